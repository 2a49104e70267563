"""The `cubridge` command: `info` (version, toolkit, devices, memory), `demo` (the main job), `compile`."""
from __future__ import annotations

import argparse
import platform
import sys


def _toolkit_rows():
    from . import _linker
    info = getattr(_linker, "toolkit_info", None)
    if info is None:
        return None
    return info()


def cmd_info(args: argparse.Namespace) -> int:
    import cubridge
    from . import _core

    print(f"cubridge {cubridge.__version__} (Python {platform.python_version()}, {sys.executable})")
    rows = _toolkit_rows()
    print("CUDA toolkit components:")
    if rows is None:
        print("  (toolkit discovery is not part of this build)")
    else:
        for r in rows:
            if r.get("found"):
                print(f"  {r['name']:<10} {r.get('version') or '?':<12} {r.get('path')}")
            else:
                print(f"  {r['name']:<10} {'not found':<12} looked in: {r.get('searched', '?')}")
    try:
        count = _core.device_count()
    except cubridge.CudaError as e:
        print(f"GPU: none usable here ({e}).")
        print("GPU operations are unavailable; compiling and other CPU-only work still succeed.")
        return 0
    v = _core.driver_version()
    print(f"CUDA driver: {v // 1000}.{(v % 1000) // 10} ({count} device(s))")
    for d in cubridge.devices:
        major, minor = d.compute_capability
        print(f"  device {d.id}: {d.name}  compute capability {major}.{minor}  "
              f"{d.total_memory / 2**30:.1f} GiB  {d.multiprocessor_count} SMs  "
              f"PCI {d.pci_bus_id}  {d.uuid}")
    stats = getattr(cubridge, "memory_stats", None)
    if stats is not None:
        try:
            print("Memory manager:", stats())
        except Exception as e:  # statistics must never make `info` fail
            print(f"Memory manager: statistics unavailable ({e})")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo
    return demo.main(args)


def cmd_compile(argv: list[str]) -> int:
    from . import _compiler
    cli = getattr(_compiler, "cli_compile", None)
    if cli is None:
        print("cubridge compile: the compiler is not part of this build", file=sys.stderr)
        return 2
    return cli(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "compile":
        return cmd_compile(argv[1:])
    parser = argparse.ArgumentParser(prog="cubridge", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="version, CUDA toolkit components, devices, memory manager")
    demo = sub.add_parser("demo", help="the end-to-end demo of all four faces")
    demo.add_argument("--size", type=int, default=1 << 24, help="elements per array on the GPU")
    sub.add_parser("compile", help="compile FILE.py:FUNC to PTX or LTO-IR (see `cubridge compile -h`)")
    args = parser.parse_args(argv)
    if args.command == "info":
        return cmd_info(args)
    return cmd_demo(args)
