"""Arrays face benchmark: CAI / DLPack import and export, cubridge side by side with its peers.

    python bench/bench_arrays.py [--json PATH] [--quick]

Medians (µs per call) of many timeit batches, every peer measured in the same process on the same arrays;
ratio = ours / peer. Host overhead only: no case launches GPU work. Peers that are not importable are left
out of the table (and said so). Contract of the output: bench/README.md.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import timeit

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda still names it

import cubridge  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from rows import report  # noqa: E402  (the table-and-JSON ending every bench shares)


# Issue 17's targets (µs).
EXPORT_US = 0.4        # CAI export of our array
DICT_US = 0.3          # CAI import from a prebuilt dict
CUPY_IMPORT_US = 1.5   # as_cuda_array of a CuPy array, CuPy's own export included (its attribute path now)
C_API_TORCH_US = 0.1   # C API import of a PyTorch tensor through __dlpack_c_exchange_api__


def optional(name):
    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - any failure means "peer not available"
        print(f"(peer {name} not available: {type(e).__name__}: {e})", file=sys.stderr)
        return None


def median_us(stmt: str, env: dict, number: int, repeat: int) -> float:
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(number=max(10, number // 10))  # warm up caches (pointer ranges, types, interned keys)
    return statistics.median(t / number * 1e6 for t in timer.repeat(repeat=repeat, number=number))


def strided_memory_view():
    for mod in ("cuda.core.utils", "cuda.core.experimental.utils"):
        m = optional(mod)
        if m is not None and hasattr(m, "StridedMemoryView"):
            return m.StridedMemoryView
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows here (bench/README.md contract)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    args = ap.parse_args()
    number, repeat = (2_000, 5) if args.quick else (20_000, 25)

    cp = optional("cupy")
    torch = optional("torch")
    ncuda = optional("numba.cuda")
    smv = strided_memory_view()

    if cubridge.driver_available():
        ours_arr = cubridge.to_device(np.arange(1024, dtype=np.float32).reshape(32, 32))
    else:  # a smoke run without a GPU: a view of a fake address (never dereferenced), no peers
        print("(no GPU here: timing cubridge's host paths on a fake array; peers skipped)", file=sys.stderr)
        cp = torch = ncuda = smv = None
        ours_arr = cubridge.from_cuda_array_interface(
            {"shape": (32, 32), "typestr": "<f4", "data": (0x7F0000000000, False), "version": 3, "stream": 1})
        desc = ours_arr.__cuda_array_interface__
    env = {"cubridge": cubridge, "ours_arr": ours_arr, "from_cai": cubridge.from_cuda_array_interface,
           "as_cuda_array": cubridge.as_cuda_array, "c_import_ns": cubridge._core._c_import_ns}
    rows = []

    def row(case, ours, peer=None, peer_value=None, target=None):
        rows.append({"face": "arrays", "case": case, "unit": "us", "ours": ours, "peer": peer,
                     "peer_value": peer_value, "target": target})

    def run(stmt):
        return median_us(stmt, env, number, repeat)

    def peer(stmt):
        """A peer's median, or None (with the reason on stderr) when the peer's call fails here."""
        try:
            return run(stmt)
        except Exception as e:  # noqa: BLE001 - a peer's API drift must not sink the whole run
            print(f"(peer call {stmt!r} failed: {type(e).__name__}: {e})", file=sys.stderr)
            return None

    # --- export: our array's __cuda_array_interface__ vs CuPy's and Numba's own exports -------------
    ours_export = run("ours_arr.__cuda_array_interface__")
    if cp is not None:
        env["cp_arr"] = cp.arange(1024, dtype=cp.float32).reshape(32, 32)
        row("CAI export (__cuda_array_interface__)", ours_export, "CuPy export",
            peer("cp_arr.__cuda_array_interface__"), EXPORT_US)
    if ncuda is not None:
        env["nb_arr"] = ncuda.to_device(np.arange(1024, dtype=np.float32).reshape(32, 32))
        row("CAI export (__cuda_array_interface__)", ours_export, "Numba export",
            peer("nb_arr.__cuda_array_interface__"), EXPORT_US)
    if cp is None and ncuda is None:
        row("CAI export (__cuda_array_interface__)", ours_export, target=EXPORT_US)

    if cp is None and not cubridge.driver_available():
        env["desc"] = desc
        row("CAI import from a prebuilt dict (parse + view)", run("from_cai(desc)"), target=DICT_US)

    # --- import: a CuPy array (its CAI) as a view, ours vs the peers a user would otherwise call ------
    if cp is not None:
        env["cp_desc"] = env["cp_arr"].__cuda_array_interface__
        parse = run("from_cai(cp_desc, cp_arr)")
        row("CAI import from a prebuilt dict (parse + view)", parse, "CuPy dict export (for scale)",
            peer("cp_arr.__cuda_array_interface__"), DICT_US)
        ours_import = run("as_cuda_array(cp_arr)")
        env["from_cai_of"] = lambda x: cubridge.from_cuda_array_interface(x.__cuda_array_interface__, x)
        row("CAI import of a CuPy array (incl. CuPy's export)", ours_import,
            "cubridge through CuPy's CAI dict (the path before issue 17)", peer("from_cai_of(cp_arr)"),
            CUPY_IMPORT_US)
        if ncuda is not None:
            env["nb_as"] = ncuda.as_cuda_array
            row("CAI import of a CuPy array (incl. CuPy's export)", ours_import, "numba as_cuda_array",
                peer("nb_as(cp_arr)"), CUPY_IMPORT_US)
        if smv is not None:
            env["SMV"] = smv
            row("CAI import of a CuPy array (incl. CuPy's export)", ours_import, "cuda.core StridedMemoryView",
                peer("SMV(cp_arr, stream_ptr=-1)"), CUPY_IMPORT_US)
        if torch is not None:
            env["torch"] = torch
            row("CAI import of a CuPy array (incl. CuPy's export)", ours_import, "torch.as_tensor",
                peer("torch.as_tensor(cp_arr, device='cuda')"), CUPY_IMPORT_US)
        if ncuda is None and smv is None and torch is None:
            row("CAI import of a CuPy array (incl. CuPy's export)", ours_import, target=CUPY_IMPORT_US)

    # --- DLPack ------------------------------------------------------------------------------------
    if torch is not None:
        env["t"] = torch.arange(1024, device="cuda", dtype=torch.float32)
        env["from_dlpack"] = cubridge.from_dlpack
        ours_dl = run("from_dlpack(t)")
        if cp is not None:
            env["cp_from_dlpack"] = cp.from_dlpack
            row("DLPack import of a PyTorch tensor", ours_dl, "cupy.from_dlpack", peer("cp_from_dlpack(t)"))
        else:
            row("DLPack import of a PyTorch tensor", ours_dl)
        row("DLPack export of our array to PyTorch (torch.from_dlpack)", run("torch.from_dlpack(ours_arr)"),
            "torch.from_dlpack of a CuPy array" if cp is not None else None,
            peer("torch.from_dlpack(cp_arr)") if cp is not None else None)

    # --- the C-side call (timed inside C++: what a C/C++ extension pays per import) -------------------
    per = max(20_000, number)
    row("C API import of a cubridge array (from_pyobject + release)",
        statistics.median(cubridge._core._c_import_ns(ours_arr, per) for _ in range(repeat)) / 1000,
        target=0.08)
    if torch is not None:
        exchange = hasattr(type(env["t"]), "__dlpack_c_exchange_api__")
        row("C API import of a PyTorch tensor (" + ("__dlpack_c_exchange_api__" if exchange else "__dlpack__")
            + ")", statistics.median(cubridge._core._c_import_ns(env["t"], per) for _ in range(repeat)) / 1000,
            target=C_API_TORCH_US)

    report(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
