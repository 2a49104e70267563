"""The `cubridge` command: `info` (version, toolkit, devices, memory; `--json`), `cache info|clear`, `demo` (the
main job), `compile`."""
from __future__ import annotations

import argparse
import os
import stat
import sys

MAX_SOURCE_BYTES = 16 << 20  # a source file larger than this is refused, not read (think /dev/zero)


class _DefaultsShown(argparse.HelpFormatter):
    """Ends an option's help with its default where that says something: not for a required option, a flag
    (off unless given) or an option whose help already names its default (argparse's own
    ArgumentDefaultsHelpFormatter printed '(default: None)' there, after the real default)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.required or action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return text + " (default: %(default)s)"


# The compiler's advice names compile()'s keywords; the command says its own flags instead
# (tools/cubridge_compile.cpp, the same command without Python, keeps the same table).
_CLI_TERMS = (("with device=True", "without --kernel"), ("(device=False)", "(--kernel)"),
              ("abi='numba'", "--abi numba"), ("abi_info={'abi_name': ...} (or --abi-name)", "--abi-name"))


def _in_cli_terms(message: str) -> str:
    for keyword, flag in _CLI_TERMS:
        message = message.replace(keyword, flag)
    return message


def cmd_info(args: argparse.Namespace) -> int:
    from . import _info

    r = _info.report()
    if args.json:
        import json
        print(json.dumps(r, indent=2))
        return 0
    print(f"cubridge {r['cubridge']} (Python {r['python']}, {r['executable']})")
    print("CUDA toolkit components:")
    if "toolkit_error" in r:
        print(f"  {r['toolkit_error']}")
    for c in r["toolkit"]:
        if c["found"]:
            print(f"  {c['name']:<10} {c['version'] or '?':<12} {c['path']}  (from {c['origin']})")
        else:
            print(f"  {c['name']:<10} {'not found':<12} {c['error']}")
    print("  searched, in order: " + (", ".join(f"{h['path']} ({h['origin']})" for h in r["toolkit_homes"])
                                      or "no CUDA home exists"))
    x = r["xla_ffi_adapter"]
    print(f"XLA FFI adapter: {'built' if x['built'] else 'not built'} (XLA FFI C API {x['ffi_api_version']})")
    c = r["cache"]
    print(f"Code cache: {c['directory']}  {c['files']} file(s), {c['bytes']} B"
          + ("" if c["enabled"] else "  (disabled by CUBRIDGE_DISABLE_CACHE)"))
    peers = ", ".join(f"{k} {v}" for k, v in r["peers"].items() if v)
    print(f"Peers installed: {peers or 'none'}")
    if r["environment"]:
        print("Environment: " + ", ".join(f"{k}={v}" for k, v in r["environment"].items()))
    g = r["gpu"]
    if not g["available"]:
        print(f"GPU: none usable here: {g['reason']}")  # the driver layer's message says what still works
        return 0
    print(f"CUDA driver: {g['driver']} ({len(g['devices'])} device(s))")
    for d in g["devices"]:
        major, minor = d["compute_capability"]
        print(f"  device {d['id']}: {d['name']}  compute capability {major}.{minor}  "
              f"{d['total_memory'] / 2**30:.1f} GiB  PCI {d['pci_bus_id']}  {d['uuid']}")
    import cubridge
    stats = getattr(cubridge, "memory_stats", None)
    if stats is not None:
        try:
            s = stats()
            print(f"Memory manager: {s['manager']} ({len(s['devices'])} device context(s) open)")
            for d in s["devices"]:  # one manager per device's context, each with its own counts
                print(f"  device {d['device']}: {d['manager']}  in use {d['bytes_in_use']} B in "
                      f"{d['allocations']} allocation(s)  peak {d['peak_bytes']} B  "
                      f"pending frees {d['pending_frees']} ({d['pending_bytes']} B)")
        except Exception as e:  # statistics must never make `info` fail
            print(f"Memory manager: statistics unavailable ({e})")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """`cubridge cache info` (directory, files, bytes) and `cubridge cache clear` (removes every entry)."""
    from . import _core, _info

    cache = _core.CodeCache()
    if args.action == "clear":
        before = _info.cache_usage(cache.directory)
        cache.clear()
        after = _info.cache_usage(cache.directory)
        print(f"cleared {cache.directory}: {before['files'] - after['files']} file(s), "
              f"{before['bytes'] - after['bytes']} B removed")
        return 0
    u = _info.cache_usage(cache.directory)
    disabled = os.environ.get("CUBRIDGE_DISABLE_CACHE", "") not in ("", "0")
    print(f"{cache.directory}: {u['files']} file(s), {u['bytes']} B"
          + ("  (disabled by CUBRIDGE_DISABLE_CACHE)" if disabled else ""))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo
    return demo.main(args)


def _read_source(path: str) -> str:
    """The text of a Python source file ('-': standard input); OSError/ValueError with a message naming the
    file and the problem."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_SOURCE_BYTES + 1)
        if len(data) > MAX_SOURCE_BYTES:
            raise ValueError(f"more than {MAX_SOURCE_BYTES >> 20} MiB on standard input; sources of at most "
                             f"{MAX_SOURCE_BYTES >> 20} MiB are read")
    else:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > MAX_SOURCE_BYTES:
            raise ValueError(f"{st.st_size} bytes; source files of at most {MAX_SOURCE_BYTES >> 20} MiB are read")
        with open(path, "rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    from ._compiler import nfkc_identifiers
    try:
        return nfkc_identifiers(data.decode("utf-8-sig"))  # a byte-order mark is not part of the source
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r}); Python source files "
                         f"are UTF-8") from None


def _write_output(path: str, code: bytes) -> None:
    if path == "-":
        sys.stdout.buffer.write(code)
        sys.stdout.flush()
        return
    if os.path.isdir(path):
        raise ValueError(f"-o {path}: is a directory; give a file name (or '-' for standard output)")
    with open(path, "wb") as fh:
        fh.write(code)


def cmd_compile(argv: list[str]) -> int:
    """`cubridge compile FILE.py:FUNC --sig SIG [-o OUT]` (`-:FUNC` reads the module from standard input): the
    function's source is compiled from the module's text (CPython never runs it), so the module's other
    functions and constants are seen as `compile` sees them from Python."""
    from . import _compiler, _core, _types

    p = argparse.ArgumentParser(prog="cubridge compile", formatter_class=_DefaultsShown,
                                description="Compile a Python function to PTX or LTO-IR (no CPython execution, "
                                            "no GPU).")
    p.add_argument("target", help="FILE.py:FUNC, the function FUNC defined in FILE.py; -:FUNC reads the module's "
                                  "source from standard input")
    p.add_argument("--sig", required=True, help="the signature, e.g. 'float32(float32, float32)', or '(int32, int32)' "
                                                "to infer the return type")
    p.add_argument("--abi", choices=("c", "numba"), default=None,
                   help="c: a plain C function returning its value; numba: numba-cuda's calling convention "
                        "(default: c, and numba with --kernel: a kernel takes the Numba ABI)")
    p.add_argument("--abi-name", default=None, help="the symbol name of a C-ABI function (default: FUNC)")
    p.add_argument("--output", choices=("ptx", "ltoir"), default="ptx", help="PTX text or LTO-IR for nvJitLink")
    p.add_argument("--cc", default=None, help="compute capability, e.g. 9.0, 9, 90 or sm_90 (default: the lowest "
                                              "libNVVM supports)")
    p.add_argument("--fastmath", action="store_true", help="fast-math flags (flush denormals, approximate division "
                                                           "and square root, contract)")
    p.add_argument("--lineinfo", action="store_true", help="line tables for profilers")
    p.add_argument("--debug", action="store_true", help="debug information (also turns optimisation off)")
    p.add_argument("--kernel", action="store_true", help="compile a kernel (device=False) instead of a device function")
    p.add_argument("-O0", dest="O0", action="store_true", help="disable optimisation")
    p.add_argument("-o", dest="out", default=None, help="output file, '-' for standard output (default: FUNC.ptx or "
                                                        "FUNC.ltoir in the current directory)")
    p.add_argument("--timings", action="store_true", help="print where the time went to stderr")
    # '-:FUNC' names standard input; argparse would read the leading '-' as an option
    stdin_target = next((x for x in argv if x.startswith("-:")), None)
    a = p.parse_args([x for x in argv if x is not stdin_target] + ([] if stdin_target is None else
                                                                   ["--", stdin_target]))
    path, sep, func = a.target.rpartition(":")
    import unicodedata
    func = unicodedata.normalize("NFKC", func)  # as Python reads the name in the file
    if not sep or not path or not func:
        print(f"cubridge compile: expected FILE.py:FUNC (or -:FUNC for a module on standard input), got "
              f"{a.target!r}", file=sys.stderr)
        return 2
    try:
        source = _read_source(path)
    except (OSError, ValueError) as e:
        where = "standard input" if path == "-" else path
        print(f"cubridge compile: cannot read {where}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 2
    if path == "-":
        path = "<stdin>"  # as Python names a module read from standard input, in messages and line tables
    out = a.out if a.out is not None else f"{func}.{a.output}"
    try:
        abi = a.abi or ("numba" if a.kernel else "c")
        o = _compiler._options(a.debug, a.lineinfo, not a.kernel, a.fastmath, a.cc, not a.O0, abi,
                               {"abi_name": a.abi_name} if a.abi_name else None, a.output)
        o.filename = path
        o.module_name = "__main__" if path == "<stdin>" else os.path.splitext(os.path.basename(path))[0]
        r = _core._compile_source(source, func, _types.Signature.parse(a.sig), o)
    except (ValueError, TypeError, RuntimeError) as e:
        print(f"cubridge compile: {_in_cli_terms(str(e))}", file=sys.stderr)
        return 1
    try:
        _write_output(out, r.code)
    except (OSError, ValueError) as e:
        print(f"cubridge compile: cannot write {out}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 1
    if a.timings:
        t = r.timings
        print(f"parse {t[0]*1e3:.3f} ms, type {t[1]*1e3:.3f} ms, emit {t[2]*1e3:.3f} ms, libNVVM {t[3]*1e3:.3f} ms; "
              f"{r.name} -> {r.result_type}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `cubridge info | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "compile":
        return cmd_compile(argv[1:])
    import cubridge
    parser = argparse.ArgumentParser(prog="cubridge", description=__doc__)
    parser.add_argument("--version", action="version", version=f"cubridge {cubridge.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="version, CUDA toolkit components and where they came from, XLA adapter, "
                                       "code cache, peers, environment, devices, memory manager")
    info.add_argument("--json", action="store_true", help="print the report as JSON")
    cache = sub.add_parser("cache", help="the on-disk code cache: `cache info` or `cache clear`")
    cache.add_argument("action", choices=("info", "clear"))
    demo = sub.add_parser("demo", help="the end-to-end demo of all four faces")
    demo.add_argument("--size", type=int, default=1 << 24, help="elements per array on the GPU")
    sub.add_parser("compile", help="compile FILE.py:FUNC to PTX or LTO-IR (see `cubridge compile -h`)")
    args = parser.parse_args(argv)
    if args.command == "info":
        return cmd_info(args)
    if args.command == "cache":
        return cmd_cache(args)
    return cmd_demo(args)
