"""Runs every bench/bench_*.py side by side with its peers and writes the report.

Each script follows the contract of bench/README.md (rows with face, case, unit, ours, peer, peer_value,
target). This adds ratio = ours / peer_value and whether the target is met, writes
bench/results/<date>-<gpu>.md, one PNG chart per face, and copies both into --out.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def gpu_name() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, check=True).stdout.strip().splitlines()
        return out[0].replace("NVIDIA ", "").replace(" ", "-") if out else "nogpu"
    except (OSError, subprocess.CalledProcessError):
        return "nogpu"


def run_script(script: Path, out: Path, timeout: int, extra: list[str]) -> list[dict]:
    js = out / f"{script.stem}.json"
    log = out / f"{script.stem}.log"
    print(f"== {script.name}", flush=True)
    try:
        with open(log, "w") as f:
            proc = subprocess.run([sys.executable, str(script), "--json", str(js), *extra],
                                  stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
        if proc.returncode != 0:
            print(f"   {script.name} exited {proc.returncode}; see {log.name}")
    except subprocess.TimeoutExpired:
        print(f"   {script.name} timed out after {timeout} s")
    if not js.exists():
        return []
    rows = json.loads(js.read_text())
    return rows.get("rows", []) if isinstance(rows, dict) else rows


def fmt(v) -> str:
    if v is None:
        return "—"
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def table(rows: list[dict]) -> str:
    lines = ["| face | case | unit | cubridge | peer | peer median | ratio | target | met |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(k)) for k in
                     ("face", "case", "unit", "ours", "peer", "peer_value", "ratio", "target", "met")) + " |")
    return "\n".join(lines)


def chart(face: str, rows: list[dict], path: Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for r in rows if r.get("ours") is not None]
    if not rows:
        return False
    labels = [f"{r['case']}\nvs {r['peer']}" if r.get("peer") else r["case"] for r in rows]
    fig, ax = plt.subplots(figsize=(10, 0.7 * len(rows) + 1.5))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], [r["ours"] for r in rows], height=0.4, label="cubridge")
    ax.barh([i - 0.2 for i in y], [r.get("peer_value") or 0 for r in rows], height=0.4, label="peer")
    ax.set_yticks(list(y), labels, fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("median (unit per row; log scale)")
    ax.set_title(f"cubridge {face}: medians, lower is better")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "latest")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per bench script")
    ap.add_argument("--only", nargs="*", help="bench script stems to run (default: all)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    raw = Path(tempfile.mkdtemp(prefix="cubridge-bench-"))  # per-script JSON and logs
    extra = ["--quick"] if args.quick else []
    rows: list[dict] = []
    for script in sorted(HERE.glob("bench_*.py")):
        if args.only and script.stem not in args.only:
            continue
        rows += run_script(script, raw, args.timeout, extra)
    for r in rows:
        ours, peer = r.get("ours"), r.get("peer_value")
        r["ratio"] = round(ours / peer, 3) if ours is not None and peer else None
        t = r.get("target")
        r["met"] = None if t is None or ours is None else ("yes" if ours <= t else "no")
    stamp = datetime.date.today().isoformat()
    name = f"{stamp}-{gpu_name()}"
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    md = [f"# cubridge benchmarks, {stamp}, {gpu_name()}", "",
          "Medians; ratio = cubridge / peer (below 1 means cubridge is faster); `scripts/gpu-bench`.", "",
          table(rows), ""]
    for face in sorted({r["face"] for r in rows}):
        png = results / f"{name}-{face}.png"
        if chart(face, [r for r in rows if r["face"] == face], png):
            md.append(f"![{face}]({png.name})")
    report = results / f"{name}.md"
    report.write_text("\n".join(md) + "\n")
    (results / f"{name}.json").write_text(json.dumps(rows, indent=1))
    shutil.copy(report, args.out / "report.md")
    # One archive back to the caller (the device tool returns few files): report, charts, rows, raw logs.
    with tarfile.open(args.out / "bench-results.tgz", "w:gz") as tar:
        for p in results.glob(f"{name}*"):
            tar.add(p, arcname=f"results/{p.name}")
        tar.add(raw, arcname="raw")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
