"""The ending every bench/bench_*.py shares: print its rows as a markdown table (ratio = ours / peer) and,
with --json, write them for bench/run_all.py (the row contract is in bench/README.md)."""
from __future__ import annotations

import json


def _num(v) -> str:
    return "—" if v is None else f"{v:.3g}"


def report(rows: list[dict], json_path: str | None) -> None:
    print("| case | unit | cubridge | peer | peer median | ratio | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        pv = r.get("peer_value")
        ratio = _num(r["ours"] / pv) if pv else "—"
        print(f"| {r['case']} | {r['unit']} | {_num(r['ours'])} | {r.get('peer') or '—'} | {_num(pv)} | {ratio} | "
              f"{_num(r.get('target'))} |")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)
