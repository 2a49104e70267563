"""Drop-in mode: an existing numba-cuda program with ``numba.cuda.jit`` / ``compile`` / ``compile_ptx`` /
``compile_for_current_device`` / ``compile_ptx_for_current_device`` served by cubridge, everything else
(device arrays, streams, events, to_device, numba's own ufunc and reduction kernels) left to numba-cuda.

``cubridge.install_numba()`` turns it on in this process; ``CUBRIDGE_NUMBA=1 python app.py`` turns it on
before ``app.py`` runs (the wheel's ``cubridge-numba.pth`` reads the variable at start-up and imports
nothing when it is unset). Routing happens once ``numba.cuda`` is imported (at once when it already is):
an import hook wraps ``numba.cuda``'s module when it loads. Calls made by numba's own modules keep numba's
functions (its vectorizers and reductions need numba dispatchers); calls from any other module (the
program, its libraries, numba-cuda's test suite) get cubridge's."""
from __future__ import annotations

import importlib
import os
import sys
import warnings

from . import _numba_diagnostics
from ._resolution import numba_type

__all__ = ["install_numba"]

ENV = "CUBRIDGE_NUMBA"
_ROUTED_COMPILE = ("compile", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device")
_original: dict = {}  # numba-cuda's functions, by name, once routed


def _numba_caller() -> bool:
    """Whether the function that called the routed entry point belongs to numba itself (not its tests)."""
    name = sys._getframe(2).f_globals.get("__name__", "") or ""
    return (name == "numba" or name.startswith("numba.")) and not name.startswith("numba.cuda.tests")


def _numba_module(cuda_name: str, core_name: str):
    """numba-cuda's own module (numba.cuda.types, numba.cuda.core.sigutils), or numba's where numba.cuda is
    the one numba itself ships (numba.core.types, numba.core.sigutils)."""
    try:
        module = importlib.import_module(cuda_name)
    except ImportError:
        return importlib.import_module(core_name)
    return module if hasattr(module, "float32") or hasattr(module, "normalize_signature") else \
        importlib.import_module(core_name)


def _numba_type(t):
    """cubridge's result type as numba's type object: numba-cuda's compile returns its own types."""
    types = _numba_module("numba.cuda.types", "numba.core.types")
    if t is None:
        return types.none
    converted = numba_type(t)  # numba's type object, built from the Type's structure (no text)
    if converted is t:
        raise TypeError(f"the result type {t} has no numba type object cubridge can build (numbers, arrays, "
                        "tuples and none have)")
    return converted


def _numba_defaults(options: dict) -> dict:
    """debug and opt not given (or None) take numba's defaults from its config, as numba-cuda's jit and compile do:
    CUDA_DEBUGINFO_DEFAULT (NUMBA_CUDA_DEBUGINFO) and OPT (NUMBA_OPT; 0 turns optimisation off)."""
    from ._numba_diagnostics import numba_config
    options = dict(options)
    if options.get("debug") is None:
        options["debug"] = bool(numba_config("CUDA_DEBUGINFO_DEFAULT", 0))
    if options.get("opt") is None:
        options["opt"] = numba_config("OPT", 3) != 0
    return options


def jit(func_or_sig=None, **options):
    """numba.cuda.jit, routed: cubridge.jit for the program's code, numba-cuda's for numba's own modules."""
    if _numba_caller():
        return _original["jit"](func_or_sig, **options)
    import cubridge
    return cubridge.jit(func_or_sig, **_numba_defaults(options))


def _routed_compile(name: str):
    def routed(pyfunc, sig, *args, **kwargs):
        if _numba_caller():
            return _original[name](pyfunc, sig, *args, **kwargs)
        import cubridge
        # options given by position (numba's order is cubridge's) are passed as they are
        code, resty = getattr(cubridge, name)(pyfunc, sig, *args, **(kwargs if args else _numba_defaults(kwargs)))
        return code, _numba_type(resty)
    routed.__name__ = routed.__qualname__ = name
    routed.__doc__ = f"numba.cuda.{name}, routed: cubridge.{name} for the program's code, numba-cuda's for numba's."
    return routed


def _route(cuda) -> None:
    """Replaces numba.cuda's entry points where numba-cuda defines and re-exports them."""
    if _original:
        return
    decorators = importlib.import_module("numba.cuda.decorators")
    compiler = importlib.import_module("numba.cuda.compiler")
    _original["jit"] = decorators.jit
    for name in _ROUTED_COMPILE:
        _original[name] = getattr(compiler, name)
    for module in (cuda, decorators, sys.modules.get("numba.cuda.device_init")):
        if module is not None and hasattr(module, "jit"):
            module.jit = jit
    for name in _ROUTED_COMPILE:
        routed = _routed_compile(name)
        for module in (cuda, compiler):
            if hasattr(module, name):
                setattr(module, name, routed)


def routed() -> bool:
    """Whether numba.cuda's entry points are cubridge's in this process."""
    return bool(_original)


class _RoutingLoader:
    """numba.cuda's own loader, routing the entry points once the module has run. (The import system asks a
    loader for these two methods; no importlib.abc base, whose import costs every `import cubridge` ~5 ms.)"""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _route(module)


class _Hook:
    """Finds numba.cuda through the other finders and gives it the routing loader (a meta path finder: the
    import system asks it for find_spec)."""

    def find_spec(self, name, path, target=None):
        if name != "numba.cuda":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RoutingLoader(spec.loader)
                return spec
        return None


def install_numba() -> None:
    """Serves numba.cuda.jit / compile / compile_ptx / compile_for_current_device /
    compile_ptx_for_current_device with cubridge in this process, for every caller outside numba itself: at
    once if numba.cuda is imported, else when it is; kernels made from then on launch as numba-cuda's do
    (its configuration checks, warnings and NUMBA_DUMP_*). Calling it again does nothing."""
    _numba_diagnostics.serve_numba_program()
    cuda = sys.modules.get("numba.cuda")
    if cuda is not None and getattr(cuda, "__spec__", None) is not None and "jit" in vars(cuda):
        _route(cuda)
    elif not any(isinstance(f, _Hook) for f in sys.meta_path):
        sys.meta_path.insert(0, _Hook())


def from_environment() -> None:
    """The .pth file's entry: CUBRIDGE_NUMBA=1 installs drop-in mode, 0 or empty leaves numba alone, any
    other value is named in a warning (a start-up file must not stop the interpreter) and changes nothing."""
    value = os.environ.get(ENV, "")
    if value == "1":
        install_numba()
    elif value not in ("", "0"):
        warnings.warn(f"{ENV}={value!r} is not valid; expected 1 (numba.cuda.jit and compile* served by cubridge) "
                      "or 0 / unset (numba-cuda's own); numba is left as it is", RuntimeWarning, stacklevel=2)
