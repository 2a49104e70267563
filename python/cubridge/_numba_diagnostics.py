"""cubridge's errors and warnings as numba's classes where numba is in the process (drop-in use).

Rules (each a test in tests/python/numba_compat/test_dispatcher_diagnostics.py):

1. cubridge never imports numba: numba's classes are looked up in the modules already imported
   (``numba.cuda.core.errors``, numba-cuda's own, and ``numba.core.errors``, numba's); without them every
   function here returns cubridge's own class or exception unchanged.
2. With numba imported, a compile error (``cubridge.CompileError``, a ValueError) is raised as an instance of a
   class that derives from ``cubridge.CompileError`` and from numba's ``TypingError`` (each of the two modules'
   that is imported): ``except cubridge.CompileError``, ``except ValueError`` and numba's
   ``except TypingError`` all catch it. Its message and traceback are the original's.
3. Warnings: where numba is imported, the warnings numba itself defines for the same case are numba's own
   classes (``NumbaInvalidConfigWarning``, ``NumbaDebugInfoWarning``: numba's tests compare the category);
   without numba they are cubridge's (``cubridge.InvalidConfigWarning``, ``cubridge.DebugInfoWarning``, both
   UserWarnings). ``cubridge.PerformanceWarning`` (the kernel layer's, a UserWarning) is a class that also
   derives from numba's ``NumbaPerformanceWarning`` there, so filters on cubridge's class keep working.
4. The joined classes are made once per combination and keep cubridge's class name and module; an instance
   pickles as cubridge's class (another process may not have numba imported).
5. Where numba.cuda is imported (a numba-cuda program), a launch configuration the kernel layer refuses
   (``cubridge.LaunchConfigError``, a ValueError whose message names the driver error, CUDA_ERROR_INVALID_VALUE)
   is also an instance of the class numba-cuda's launch raises for it, cuda.core's ``CUDAError``, where
   ``cuda.core._utils.cuda_utils`` is imported. Before that, ``kernel[config]`` checks the configuration as numba-cuda
   does, with its exception types and words (2 to 4 items; griddim and blockdim 1 to 3 integers), and follows
   numba's config switches (``CUDA_LOW_OCCUPANCY_WARNINGS``, ``DISABLE_PERFORMANCE_WARNINGS``), read at each
   launch configuration; cubridge alone does neither (its launch layer checks the configuration itself).
6. There, numba's NUMBA_DUMP_LLVM and NUMBA_DUMP_ASSEMBLY (its config's DUMP_LLVM, DUMP_ASSEMBLY) print each
   kernel compiled: the NVVM IR given to libNVVM and the PTX, under numba's banners, to stdout. numba's other
   dumps (bytecode, CFG, numba IR) show numba's own pipeline, which cubridge does not have: they print nothing.
7. Wherever numba is or is not imported, jit warns InvalidConfigWarning for debug=True with opt=True or with
   lineinfo=True, and DebugInfoWarning when a kernel compiled with debug=True has no source text, as numba-cuda
   warns (the same libNVVM options, the same missing file).
8. Where numba's config asks (ALWAYS_WARN_UNINIT_VAR, NUMBA_ALWAYS_WARN_UNINIT_VAR), each compilation warns numba's
   NumbaWarning "Detected uninitialized variable x" for every read of a variable that some path reaches with
   it never assigned (the compiler reports them: CompileResult.uninitialized_reads, kept in the code cache),
   with numba's source location where numba's ir.Loc is importable; without numba nothing is warned (numba
   does not warn by default either).
"""
from __future__ import annotations

import numbers
import sys
import warnings

from ._core import CompileError, PerformanceWarning

__all__ = ["CompileWarning", "DebugInfoWarning", "InvalidConfigWarning"]

# numba-cuda's own errors module first (its tests import from it), then numba's.
_ERRORS_MODULES = ("numba.cuda.core.errors", "numba.core.errors")
_CONFIG_MODULES = ("numba.cuda.core.config", "numba.core.config")


class InvalidConfigWarning(UserWarning):
    """A jit option combination that compiles but that libNVVM does not support well (debug=True with
    opt=True: numba-cuda's NumbaInvalidConfigWarning)."""


class CompileWarning(UserWarning):
    """Code that compiles to what numba-cuda compiles, about which numba-cuda warns (a print() of more than 32
    items, which prints its raw format string: numba-cuda's NumbaWarning)."""


class DebugInfoWarning(UserWarning):
    """debug=True for a function Python keeps no source text for (exec of a string, the REPL): cubridge compiles
    the source it rebuilds from the bytecode, and the debug info cannot point into a file (numba-cuda's
    NumbaDebugInfoWarning)."""


def _numba_classes(name: str, modules: tuple[str, ...] = _ERRORS_MODULES) -> tuple[type, ...]:
    """numba's classes called `name` in its errors modules (or `modules`) imported in this process (none: ())."""
    found: list[type] = []
    for module_name in modules:
        module = sys.modules.get(module_name)
        cls = getattr(module, name, None) if module is not None else None
        if isinstance(cls, type) and cls not in found:
            found.append(cls)
    # a class another found one derives from adds nothing (and would make the bases' order inconsistent)
    return tuple(c for c in found if not any(f is not c and issubclass(f, c) for f in found))


_joined: dict[tuple[type, tuple[type, ...]], type] = {}


def joined_class(base: type, numba_name: str, modules: tuple[str, ...] = _ERRORS_MODULES) -> type:
    """`base`, or (numba imported) a class deriving from `base` and numba's classes called `numba_name` (found in
    numba's errors modules, or in `modules`)."""
    numba = tuple(c for c in _numba_classes(numba_name, modules) if not issubclass(base, c))
    if not numba:
        return base
    key = (base, numba)
    cls = _joined.get(key)
    if cls is None:
        doc = f"{base.__name__}, also numba's {numba_name} (numba is imported in this process)."
        # Pickled as `base` (the joined class is made per process, so pickle could not find it by name).
        cls = type(base.__name__, (base, *numba), {"__module__": base.__module__, "__doc__": doc,
                                                    "__qualname__": base.__qualname__,
                                                    "__reduce__": lambda self: (base, self.args)})
        _joined[key] = cls
    return cls


def as_numba_error(error: BaseException) -> BaseException:
    """A cubridge.CompileError as (also) numba's TypingError where numba is imported; any other exception, or
    without numba, `error` itself."""
    if not isinstance(error, CompileError):
        return error
    cls = joined_class(type(error), "TypingError")
    if cls is type(error):
        return error
    joined = cls(*error.args)
    joined.__dict__.update(getattr(error, "__dict__", {}))
    # numba's NumbaError keeps the message and a location; its __init__ is not the one that runs (CompileError's
    # built-in base comes first), so they are set here as numba's code reads them.
    joined.msg = str(error.args[0]) if error.args else ""
    joined.loc = None
    return joined.with_traceback(error.__traceback__)


def performance_warning() -> type:
    """cubridge.PerformanceWarning, also numba's NumbaPerformanceWarning where numba is imported."""
    return joined_class(PerformanceWarning, "NumbaPerformanceWarning")


def numba_class_or(own: type, numba_name: str) -> type:
    """numba's class called `numba_name` where numba is imported (numba-cuda's first), else `own`."""
    numba = _numba_classes(numba_name)
    return numba[0] if numba else own


def warn_compiled(texts) -> None:
    """The warnings the compiler reported for code it just compiled (CompileResult.warnings), as numba's
    NumbaWarning where numba is imported, else cubridge.CompileWarning."""
    for text in texts:
        warnings.warn(text, numba_class_or(CompileWarning, "NumbaWarning"), stacklevel=4)


def invalid_config_warning() -> type:
    """numba's NumbaInvalidConfigWarning where numba is imported, else cubridge.InvalidConfigWarning."""
    return numba_class_or(InvalidConfigWarning, "NumbaInvalidConfigWarning")


_config_module = None  # numba's config module, kept once numba.cuda is imported (modules are never replaced)


def _numba_config_module():
    global _config_module
    if _config_module is not None:
        return _config_module
    found = next((m for m in map(sys.modules.get, _CONFIG_MODULES) if m is not None), None)
    if "numba.cuda" in sys.modules:  # numba-cuda's own config module is imported by then, where there is one
        _config_module = found
    return found


def numba_config(name: str, default=None):
    """numba's config value `name` where numba's config module is imported, else `default`."""
    module = _numba_config_module()
    return default if module is None else getattr(module, name, default)


_numba_program = False  # set once by serve_numba_program(); never cleared


def serve_numba_program() -> None:
    """Marks this process as a numba-cuda program served by cubridge (drop-in mode: install_numba(), or a
    harness routing numba.cuda.jit itself): dispatchers made from now on launch as numba-cuda's do (its
    configuration checks and wording, its opt-in warnings, NUMBA_DUMP_*). A process that merely imports
    numba (numba device arrays beside cubridge kernels, a benchmark comparing both) keeps cubridge's launch."""
    global _numba_program
    _numba_program = True


def numba_program() -> bool:
    """Whether serve_numba_program() was called in this process."""
    return _numba_program


def numba_errors(compile_function):
    """`compile_function` with its CompileError raised as numba's TypingError too where numba is imported."""
    import functools

    @functools.wraps(compile_function)
    def compile_with_numba_errors(*args, **kwargs):
        try:
            return compile_function(*args, **kwargs)
        except CompileError as error:
            joined = as_numba_error(error)
            if joined is error:
                raise
            raise joined from error.__cause__

    return compile_with_numba_errors


_IR_MODULES = ("numba.cuda.core.ir", "numba.core.ir")


def _numba_loc(file: str, line: int):
    """numba's ir.Loc of file:line (its warnings print the source line), or None."""
    for name in _IR_MODULES:
        loc = getattr(sys.modules.get(name), "Loc", None)
        if loc is not None:
            try:
                return loc(file, line)
            except Exception:  # another numba's signature: the location goes into the text instead
                return None
    return None


def warn_uninitialized(result) -> None:
    """numba's SSA warning for each read of a possibly unassigned variable in a compile result (rule 8)."""
    reads = getattr(result, "uninitialized_reads", ())
    if not reads or not numba_config("ALWAYS_WARN_UNINIT_VAR", 0):
        return
    cls = numba_class_or(UserWarning, "NumbaWarning")
    for variable, function, file, line in reads:
        message = f"Detected uninitialized variable {variable}"
        loc = _numba_loc(file, line)
        warnings.warn(cls(message, loc=loc) if loc is not None else
                      cls(f"{message} (in {function!r}, file {file}, line {line})"))


def use_numba_performance_warning() -> None:
    """The kernel layer's host-array copy warning as numba's NumbaPerformanceWarning too (numba imported),
    issued when numba's configuration asks for it, as numba-cuda does."""
    from . import _core
    cls = performance_warning()
    if cls is not PerformanceWarning:
        _core._set_performance_warning(cls, implicit_copy_warning_on)


def implicit_copy_warning_on() -> bool:
    """numba-cuda's rule for its host-array copy warning: CUDA_WARN_ON_IMPLICIT_COPY (NUMBA_CUDA_WARN_ON_IMPLICIT_COPY,
    default on) and not DISABLE_PERFORMANCE_WARNINGS (numba's test cases turn the first off)."""
    return bool(numba_config("CUDA_WARN_ON_IMPLICIT_COPY", 1)) and not numba_config("DISABLE_PERFORMANCE_WARNINGS", 0)


# numba-cuda 0.30 launches through cuda.core, whose launch raises this module's CUDAError for a configuration the
# driver refuses (its tests catch that class).
_LAUNCH_ERROR_MODULES = ("cuda.core._utils.cuda_utils",)


def launch_config_error() -> type:
    """cubridge.LaunchConfigError, also the class numba-cuda's launch raises for a refused configuration (cuda.core's
    CUDAError) where that module is imported."""
    from . import _core
    return joined_class(_core.LaunchConfigError, "CUDAError", _LAUNCH_ERROR_MODULES)


def use_numba_launch_error() -> None:
    """A refused launch configuration raised as launch_config_error() (drop-in use); its message, cubridge's
    explanation, already ends with the driver error's name (CUDA_ERROR_INVALID_VALUE) that numba-cuda reports."""
    from . import _core
    cls = launch_config_error()
    if cls is not _core.LaunchConfigError:
        _core._set_launch_config_error(cls)


MIN_GRID_SIZE = 128  # numba-cuda's threshold of its low-occupancy warning


def configured_launch(config) -> None:
    """numba-cuda's checks and warning of a launch configuration ``kernel[griddim, blockdim(, stream(, sharedmem))]``
    where numba.cuda is imported, raised where numba raises them (at the subscript): 2 to 4 items (ValueError),
    griddim and blockdim an int or a sequence of 1 to 3 (ValueError) integers (TypeError), in numba's words; then
    numba's warning for a grid of fewer than 128 blocks when its config asks (CUDA_LOW_OCCUPANCY_WARNINGS on,
    DISABLE_PERFORMANCE_WARNINGS off). The launch layer checks the extents against the device afterwards."""
    items = config if type(config) is tuple else (config,)
    if len(items) not in (2, 3, 4):
        raise ValueError(f"must specify at least the griddim and blockdim: kernel[griddim, blockdim], optionally "
                         f"followed by stream and sharedmem; got {config!r}")
    blocks = _extents(items[0], "griddim")
    _extents(items[1], "blockdim")
    module = _config_module or _numba_config_module()
    if module is None or not getattr(module, "CUDA_LOW_OCCUPANCY_WARNINGS", 0) or \
            getattr(module, "DISABLE_PERFORMANCE_WARNINGS", 0):
        return
    if blocks < MIN_GRID_SIZE:
        warnings.warn(f"Grid size {blocks} will likely result in GPU under-utilization due to low occupancy "
                      f"(fewer than {MIN_GRID_SIZE} blocks; numba's CUDA_LOW_OCCUPANCY_WARNINGS asks for this "
                      "warning)", performance_warning(), stacklevel=3)


def _extents(value, name: str) -> int:
    """The product of a griddim or blockdim, checked as numba-cuda checks it (an int, or 1 to 3 of them)."""
    if type(value) is int:  # the common spelling, checked without building anything
        return value
    dims = value if isinstance(value, (tuple, list)) else (value,)
    if len(dims) > 3:
        raise ValueError(f"{name} must be a sequence of 1, 2 or 3 integers, got {list(dims)!r}")
    product = 1
    for d in dims:
        if type(d) is not int and not isinstance(d, numbers.Integral):
            raise TypeError(f"{name} must be a sequence of integers, got {list(dims)!r}")
        product *= int(d)
    return product


def dump_compiled(name: str, compiled) -> None:
    """numba's NUMBA_DUMP_LLVM / NUMBA_DUMP_ASSEMBLY for a kernel just compiled (a CompiledKernel), where numba's
    config asks: the NVVM IR and the PTX, each under numba's banner, to stdout."""
    if numba_config("DUMP_LLVM", 0):
        print(f"LLVM DUMP {name}".center(80, "-"))
        print(compiled.inspect_llvm())
        print("=" * 80)
    if numba_config("DUMP_ASSEMBLY", 0):
        print(f"ASSEMBLY {name}".center(80, "-"))
        print(compiled.ptx)
        print("=" * 80)


def warn_if_no_source(py_func) -> None:
    """DebugInfoWarning (numba's NumbaDebugInfoWarning where numba is imported) when a kernel compiled with
    debug=True has no source text Python can give (numba-cuda's warning and words)."""
    import inspect
    try:
        inspect.getsourcelines(py_func)
    except (OSError, TypeError):
        warnings.warn(f"Could not find source for function: {py_func}. Debug line information may be inaccurate: "
                      f"cubridge compiles the source it rebuilds from the bytecode, and the debug info names "
                      f"{py_func.__code__.co_filename!r}, which holds no text", numba_class_or(DebugInfoWarning,
                                                                                         "NumbaDebugInfoWarning"),
                      stacklevel=4)
