"""Loading compiled kernels (PTX, cubin, fatbin) and launching them on any GPU array, re-exported by cubridge.

Kernel parameters follow the Numba ABI (an N-d array is meminfo, parent, nitems, itemsize, data,
shape[N], strides[N]), so PTX from numba-cuda's ``compile_ptx`` runs here unchanged::

    k = cubridge.load_kernel(ptx, signature='void(float32[:], float32[:], float32[:])')
    k[blocks, threads](a, b, out)              # CuPy, PyTorch, Numba, JAX, cubridge or NumPy arrays
    k[blocks, threads, stream, sharedmem](a, b, out)
    k.forall(n)(a, b, out)

CUDA C++ kernels (NVRTC, nvcc) take C pointers instead: spell such a parameter ``float32*`` (``const
float32*`` when the kernel only reads it, ``void*`` for any dtype); it is given any C- or F-contiguous
array of that dtype (its data pointer is passed) or an int device address::

    k = cubridge.load_kernel(cubin, "transform", 'void(const float32*, const float32*, float32*, uint64)')

``@cubridge.jit`` compiles a Python kernel with cubridge's own front end (the code face) and launches it
the same way: lazily, one specialisation per argument types, or eagerly for the signatures given.
"""
from __future__ import annotations

import collections
import functools
import os
import warnings
from typing import Any, Callable, Literal, overload

from . import _compiler, _core, _file_cache, _function_pickle, _numba_diagnostics
from ._jit_options import JitOptions, jit_options, link_image
from ._core import (Kernel, KernelLaunch, KernelRaised, KernelSignature, LaunchConfigError, PerformanceWarning,
                    clear_kernel_cache, kernel_cache_size, ptx_entry_names)
from ._overloads import CompiledCode, CompiledKernel, SignatureDict, kernel_signature, per_signature
from ._device_functions import CompiledDeviceFunction, DeviceFunction
from ._launch_extensions import ExtendedLaunch
from ._numba_diagnostics import DebugInfoWarning, InvalidConfigWarning
from ._resolution import Resolver
from ._types import Signature, Type, as_type, typeof, void

__all__ = ["CompiledCode", "CompiledDeviceFunction", "CompiledKernel", "DeviceFunction", "DebugInfoWarning", "InvalidConfigWarning", "Kernel", "KernelLaunch", "KernelRaised", "LaunchConfigError",
           "KernelSignature", "PerformanceWarning", "load_kernel",
           "ptx_entry_names", "clear_kernel_cache", "kernel_cache_size", "jit", "Dispatcher"]


def load_kernel(code, name: str | None = None, signature=None, *, device: int | _core.Device | None = None,
                cache: bool = True) -> Kernel:
    """Loads `code` (PTX text as str/bytes, a cubin or a fatbin) and returns its kernel `name`.

    `name` may be left out when the PTX holds exactly one kernel (handy for numba-cuda's mangled
    names). `signature` lists the parameters in Numba's spelling: 'void(float32[:], const f8[:, ::1],
    int64)'; "const" marks arrays the kernel does not write, so read-only arrays may be passed.
    C++ kernels' pointer parameters are spelled "float32*", "const float32*" or "void*".
    Where the driver reports the kernel's parameters (CUDA 12.4 and later), a signature it lays out otherwise
    (an int64 where the kernel takes a C int, an array where it takes a pointer) raises ValueError naming the
    parameter where they part: a launch would hand the kernel wrong bytes. A complex64 / complex128 fills a C
    kernel's cuFloatComplex / cuDoubleComplex (float2 / double2) parameter at the same offset.
    Modules are cached per (code, context) unless cache=False. `device` (an ordinal or a cubridge.Device;
    None means the current device) is where the kernel runs: its arrays must live there, or the launch says
    which device each is on.
    """
    if signature is None:
        raise TypeError("load_kernel: signature is required, e.g. signature='void(float32[:], int64)'")
    if not isinstance(signature, (str, KernelSignature)):
        signature = kernel_signature(signature)
    return _core._load_kernel(code, name, signature, device, cache)


# ---------------------------------------------------------------- @cubridge.jit

class Dispatcher(_core._DispatchCache):
    """A Python kernel compiled by cubridge on demand: ``kernel[griddim, blockdim, stream, sharedmem](*args)``
    compiles (once per argument types) and launches; ``kernel.forall(n)(*args)`` picks the block size.
    ``kernel[...]`` is a KernelLaunch made in C++: each call imports every argument once and finds the loaded
    kernel by the arguments' types and layouts and the current device; arguments it does not know (NumPy
    arrays and scalars, records, tuples, subclasses of numbers) are typed by ``cubridge.typeof`` as before."""

    def __init__(self, py_func, signatures=(), options: JitOptions | None = None, **kws):
        super().__init__()
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._options = options if options is not None else jit_options(**kws)
        # A kernel called from a kernel compiles as a device function with its inline / forceinline (numba-cuda's)
        self.__cubridge_inline__ = self._options.inline_policy
        # numba-cuda's overloads: per signature (a cubridge.Signature returning void), the CompiledKernel (PTX,
        # entry name, cooperative, raise sites); per (signature, device): the loaded kernel.
        self.overloads: SignatureDict = SignatureDict()
        self.specializations: SignatureDict = SignatureDict()  # what specialize() gave, per signature
        self._kernels: dict[tuple[Signature, int], Kernel] = {}
        # A numba-cuda program served by cubridge (drop-in mode): compiles and launches follow numba's config
        # and warn with its classes (checked once here; the launch path reads this flag only).
        self._numba_launch = _numba_diagnostics.numba_program()
        # numba-cuda's cache=True (drop-in mode): its files beside the source, its counts per signature
        self._file_cache = _file_cache.FileCache(py_func) if _file_cache.uses_file_cache(self._options) else None
        self._cache_hits: collections.Counter = collections.Counter()
        self._cache_misses: collections.Counter = collections.Counter()
        self._eager = [self.compile(sig).signature for sig in signatures]
        # Several declared signatures: the launch's arguments choose one as numba-cuda's dispatcher does.
        self._resolver = Resolver(py_func, self._eager) if len(self._eager) > 1 else None
        # numba-cuda's launch-argument extensions (objects with prepare_args), which users append to after jit
        self.extensions: list = list(self._options.extensions)

    def _per_signature(self, signature, read):
        return per_signature(self.overloads, signature, read, self.specialized)

    @property
    def specialized(self) -> bool:
        """Made with signatures (numba-cuda's ``jit(sigs)``), as numba's specialized dispatchers: get_* without a
        signature answer for its first signature instead of a dict (inspect_* still answer a dict)."""
        return bool(self._eager)

    @property
    def signatures(self) -> list[str]:
        """The compiled signatures, spelled as cubridge.compile takes them (each looks up ``overloads``)."""
        return [str(KernelSignature(sig)) for sig in self.overloads]

    def compile(self, sig) -> CompiledKernel:
        """Compiles PTX for `sig` (no GPU needed: the module is loaded at the first launch); returns the
        CompiledKernel, as numba-cuda's compile returns its kernel."""
        sig = kernel_signature(sig)
        if sig not in self.overloads:
            KernelSignature(sig)  # a type no kernel takes is refused by the kernel layer, by name, first
            try:
                cc = _compiler._current_cc() if _core.driver_available() else None
            except Exception:  # no usable device: the lowest architecture, JIT-compiled on load
                cc = None
            if self._options.debug:
                _numba_diagnostics.warn_if_no_source(self.py_func)
            held: list = []  # captured GPU arrays: the kernel keeps them alive
            links: list = []  # what the external device functions it calls (declare_device) link with
            files = self._file_cache
            key = files.index_key(sig, cc, self._options) if files is not None else None
            r = files.load(key) if files is not None else None
            if r is not None:
                self._cache_hits[sig] += 1
            else:
                self._cache_misses[sig] += 1  # numba-cuda counts every compile, with or without a cache
                r = _compiler._compile_result(self.py_func, sig, device=False, abi="numba", cc=cc,
                                              directives=self._options, referenced=held, links=links,
                                              **self._options.compiler())
                if files is not None:
                    _file_cache.check_cachable(self.__name__, held, links, self._options.link)
                    files.save(key, r)
            self.overloads[sig] = CompiledKernel(self, sig, r, cc, held, tuple(links))
            if self._numba_launch:  # numba's NUMBA_DUMP_LLVM / NUMBA_DUMP_ASSEMBLY
                _numba_diagnostics.dump_compiled(self.__name__, self.overloads[sig])
        return self.overloads[sig]

    @property
    def stats(self) -> _file_cache.CompileStats:
        """numba-cuda's compile statistics: cache_path (where cache=True keeps its files in drop-in mode, else
        None), cache_hits and cache_misses (Counters per signature: specialisations read from those files, and
        compiled)."""
        path = self._file_cache.cache_path if self._file_cache is not None else None
        return _file_cache.CompileStats(path, self._cache_hits, self._cache_misses)

    def recompile(self) -> None:
        """Compiles every compiled signature afresh (numba-cuda's recompile: globals are read again, and
        cache=True's files are overwritten); launches from now on run the new code."""
        sigs = list(self.overloads)
        self.overloads.clear()
        self.specializations.clear()
        self._kernels.clear()
        self._launch_cache_clear()  # the C++ lazy launch's loaded kernels per argument types
        if self._file_cache is not None:
            self._file_cache.flush()
        for sig in sigs:
            self.compile(sig)

    def inspect_ptx(self) -> dict[str, str]:
        return {str(KernelSignature(sig)): k.ptx for sig, k in self.overloads.items()}

    # numba-cuda's inspection API: `signature` (a Signature, a tuple of argument types or a spelling) gives one
    # result; None gives a dict over every compiled signature, keyed by Signature (looked up by either), even
    # for a specialized dispatcher (numba-cuda's inspect_* have no single-signature shortcut; its get_* do).
    def inspect_asm(self, signature=None):
        """The PTX (numba-cuda's inspect_asm)."""
        return per_signature(self.overloads, signature, lambda k: k.inspect_asm())

    def inspect_llvm(self, signature=None):
        """The NVVM IR given to libNVVM (numba-cuda's inspect_llvm)."""
        return per_signature(self.overloads, signature, CompiledKernel.inspect_llvm)

    def inspect_lto_ptx(self, signature=None):
        """The PTX nvJitLink makes of the kernel's LTO-IR (numba-cuda's inspect_lto_ptx)."""
        return per_signature(self.overloads, signature, lambda k: k.inspect_lto_ptx())

    def inspect_sass(self, signature=None):
        """The SASS, by the toolkit's nvdisasm (numba-cuda's inspect_sass)."""
        return per_signature(self.overloads, signature, lambda k: k.inspect_sass())

    def inspect_types(self, file=None) -> None:
        """Each compiled signature with the kernel's source, to `file` (sys.stdout by default)."""
        for k in self.overloads.values():
            k.inspect_types(file=file)

    # The loaded function's attributes on the current device (cuFuncGetAttribute), loading it if needed.
    def get_regs_per_thread(self, signature=None):
        """The registers per thread of the loaded kernel on the current device (numba-cuda's get_regs_per_thread)."""
        return self._per_signature(signature, lambda k: self._kernel(k.signature).registers)

    def get_shared_mem_per_block(self, signature=None):
        """The static shared memory per block, in bytes of the loaded kernel on the current device (numba-cuda's get_shared_mem_per_block)."""
        return self._per_signature(signature, lambda k: self._kernel(k.signature).shared_memory)

    def get_local_mem_per_thread(self, signature=None):
        """The local memory per thread, in bytes of the loaded kernel on the current device (numba-cuda's get_local_mem_per_thread)."""
        return self._per_signature(signature, lambda k: self._kernel(k.signature).local_memory)

    def get_const_mem_size(self, signature=None):
        """The constant memory, in bytes of the loaded kernel on the current device (numba-cuda's get_const_mem_size)."""
        return self._per_signature(signature, lambda k: self._kernel(k.signature).const_memory)

    def get_max_threads_per_block(self, signature=None):
        """The most threads a block may have of the loaded kernel on the current device (numba-cuda's get_max_threads_per_block)."""
        return self._per_signature(signature, lambda k: self._kernel(k.signature).max_threads_per_block)

    def _kernel(self, sig: Signature) -> Kernel:
        # Loaded once per device, in the current device's context as numba-cuda does: a launch made while
        # device 1 is current (cupy.cuda.Device(1), torch.cuda.device(1)) runs on device 1.
        if self._kernels:  # a later launch: the loaded kernel by one dict lookup (the launch's hot path)
            k = self._kernels.get((sig, _core._current_device()))
            if k is not None and k.module.valid:
                return k
        compiled = self.compile(sig)  # compiled first: a typing error needs no GPU to be reported
        device = _core._current_device()
        k = self._kernels.get((sig, device))
        if k is None or not k.module.valid:  # first launch on this device, or the context was closed since
            code = compiled.ptx
            if self._options.link or compiled.links:
                code = link_image(code, self._options, _compiler._current_cc(), compiled.links)
            if self._numba_launch:  # its host-array copy warning and launch refusals as numba-cuda's classes too
                _numba_diagnostics.use_numba_performance_warning()
                _numba_diagnostics.use_numba_launch_error()
            k = load_kernel(code, compiled.entry_name, sig, device=device)
            k.cooperative = compiled.cooperative  # cuda.cg grid sync: launched cooperatively
            if self._options.shared_memory_carveout is not None:
                k.set_shared_memory_carveout(self._options.shared_memory_carveout)
            k.python_name = self.__name__  # messages name `add`, not _ZN8__main__3addE...
            if self._options.debug:
                k = _RaisingKernel(k, compiled.raise_sites)
            self._kernels[(sig, device)] = k
        return k

    def _signature_for(self, args) -> Signature:
        """The signature a launch with these arguments runs: the one eager signature, the eager one they
        match, or (lazy) their types."""
        if len(self._eager) == 1:
            return self._eager[0]
        if self._resolver is not None:
            return self._resolver(args)
        return Signature._make(void, [typeof(a) for a in args])

    def _kernel_for_types(self, params: list[Type]) -> Kernel:
        """The loaded kernel a launch with arguments of types `params` runs (the C++ lazy launch asks it once
        per argument types and device, and remembers the answer)."""
        return self._kernel(self._signature_of(params))

    def _signature_of(self, params: list[Type]) -> Signature:
        """_signature_for, given the arguments' types."""
        if len(self._eager) == 1:
            return self._eager[0]
        if self._resolver is not None:
            return self._resolver.for_types(tuple(params))
        return Signature._make(void, params)

    def specialize(self, *args):
        """The loaded kernel for these arguments' types (compiled if needed); kept in ``specializations``. A
        dispatcher made with signatures gives the kernel of the signature the arguments select (cubridge.torch
        relies on it). An argument given as a type (cubridge's or numba's: ``specialize(numba.float32[::1])``)
        stands for a value of it.

        A numba-cuda program served by cubridge (drop-in use) gets numba-cuda's specialize instead: a new
        dispatcher made with the arguments' signature (one per signature: asking again gives the same one), and
        "Dispatcher already specialized" (RuntimeError) from a dispatcher made with signatures, that one included."""
        if self._numba_launch and self._eager:
            raise RuntimeError(f"Dispatcher already specialized: kernel {self.__name__!r} was made with signatures "
                               f"({', '.join(self.signatures)}); numba-cuda specializes only a dispatcher made "
                               "without them")
        if any(_is_type(a) for a in args):
            sig = Signature._make(void, [as_type(a) if _is_type(a) else typeof(a) for a in args])
        else:
            sig = self._signature_for(args)
        if self._numba_launch:
            made = self.specializations.get(sig)
            if made is None:
                made = self.specializations[sig] = self._specialized(sig)
            return made
        k = self._kernel(sig)
        self.specializations[sig] = k
        return k

    def _specialized(self, sig: Signature) -> "Dispatcher":
        """numba-cuda's specialized dispatcher: this kernel made with the one signature `sig`, sharing its compiled
        code (compiled here once)."""
        made = Dispatcher(self.py_func, (), self._options)
        made._eager = [sig]
        made.overloads[sig] = self.compile(sig)
        made.extensions = self.extensions
        return made

    # __getitem__ is the C++ base's (the launch's hot path, with no Python frame); it hands a subscript to
    # _hooked_subscript when this is a numba-cuda program's kernel (_numba_launch) or has extensions.

    def _subscript(self, config):
        return _core._lazy_subscript(self, config)

    def _hooked_subscript(self, config):
        """kernel[config] with numba-cuda's checks and low-occupancy warning (numba.cuda imported) and through
        the launch-argument extensions (when there are any); the plain subscript otherwise."""
        if self._numba_launch:
            _numba_diagnostics.configured_launch(config)
        if self.extensions:
            return ExtendedLaunch(self, lambda k: k[config], config[2] if isinstance(config, tuple) and
                                  len(config) > 2 else 0)
        return self._subscript(config)

    def forall(self, ntasks: int, stream=None, sharedmem: int = 0):
        if isinstance(ntasks, int) and ntasks < 0:  # numba-cuda's words and class (other values: the kernel layer)
            raise ValueError(f"kernel {self.__name__!r}: Can't create ForAll with negative task count: {ntasks}; "
                             "ntasks is how many tasks to run, 0 or more")
        if self.extensions:
            return ExtendedLaunch(self, lambda k: k.forall(ntasks, stream, sharedmem), 0 if stream is None else stream)
        return _LazyForall(self, (ntasks, stream, sharedmem))

    def _general_launch(self, forall: bool, config, args: tuple) -> None:
        """A launch typed by Python (typeof of each argument): for what the C++ lazy launch does not know
        (NumPy arrays and scalars, DLPack-only producers, records, tuples, subclasses of numbers) and for
        kernels it does not cache (debug=True)."""
        k = self._kernel(self._signature_for(args))
        (k.forall(*config) if forall else k[config])(*args)

    def __call__(self, *args, **kwargs):
        # ValueError, as numba-cuda raises it (numba users catch that)
        raise ValueError(f"kernel {self.__name__!r}: the launch configuration was not specified; launch it as "
                         "kernel[griddim, blockdim](*args) or kernel.forall(n)(*args)")

    def __repr__(self) -> str:
        return f"<cubridge.Dispatcher {self.__name__} {self.signatures}>"

    def __reduce__(self):
        # numba-cuda's way: by reference where its module holds it under its name, else by value (the function's
        # code, globals and closure); compiled code is not pickled: the unpickled kernel compiles where it runs.
        # The launch-argument extensions appended after jit travel too (a copy without them would skip them).
        return _function_pickle.reduce_function_object(self, _rebuild_dispatcher, self._options,
                                                       [str(KernelSignature(s)) for s in self._eager],
                                                       list(self.extensions or ()))


def _rebuild_dispatcher(function_state, options, signatures, extensions=None) -> Dispatcher:
    """A kernel pickled by value (_function_pickle), made again with its options, declared signatures and
    launch-argument extensions."""
    made = Dispatcher(_function_pickle.rebuild_function(*function_state), signatures, options)
    if extensions is not None:
        made.extensions = list(extensions)
    return made


class _RaisingKernel:
    """A debug=True kernel: a launch that raised (cubridge.KernelRaised from the launch, which waits for
    the kernel) re-raises the kernel's own exception with numba-cuda's message: "In function 'f', file F,
    line L, tid=[z, y, x] ctaid=[z, y, x]: <first argument>"."""

    __slots__ = ("_kernel", "_sites")

    def __init__(self, kernel: Kernel, sites: dict):
        self._kernel, self._sites = kernel, sites

    def __getattr__(self, name):
        return getattr(self._kernel, name)

    def __getitem__(self, config):
        return _RaisingLaunch(self, self._kernel[config])

    def forall(self, ntasks: int, stream=None, sharedmem: int = 0):
        return _RaisingLaunch(self, self._kernel.forall(ntasks, stream, sharedmem))

    def exception(self, raised: KernelRaised) -> BaseException:
        site = self._sites.get(raised.code)
        if site is None:
            return SystemError(f"unknown error {raised.code} in native function")
        _, exception, args, function, file, line = site
        tid = list(reversed(raised.tid))
        ctaid = list(reversed(raised.ctaid))
        where = f"In function {function!r}, file {os.path.abspath(file)}, line {line}, " if line else ""
        prefix = f"{where}tid={tid} ctaid={ctaid}"
        args = _compiler.exception_args(args)
        args = (f"{prefix}: {args[0]}",) + args[1:] if args else (prefix,)
        return _compiler.exception_class(exception)(*args)


class _RaisingLaunch:
    __slots__ = ("_owner", "_launch")

    def __init__(self, owner: _RaisingKernel, launch):
        self._owner, self._launch = owner, launch

    def __call__(self, *args):
        try:
            self._launch(*args)
        except KernelRaised as raised:
            raise self._owner.exception(raised) from None


class _LazyForall:
    """``dispatcher.forall(ntasks, stream, sharedmem)``: the C++ lazy launch (one import per argument, the
    specialization by the dispatcher's cache) where it knows every argument, else the general path."""
    __slots__ = ("_dispatcher", "_config")

    def __init__(self, dispatcher: Dispatcher, config: tuple):
        self._dispatcher, self._config = dispatcher, config

    def __call__(self, *args):
        d = self._dispatcher
        if not _core._lazy_forall(d, *self._config, args):
            d._general_launch(True, self._config, args)


@overload
def jit(func_or_sig: Callable[..., Any], *, device: Literal[True], **options: Any) -> DeviceFunction: ...
@overload
def jit(func_or_sig: Callable[..., Any], **options: Any) -> Dispatcher: ...
@overload
def jit(func_or_sig: Any = None, **options: Any) -> Callable[[Callable[..., Any]], Any]: ...


def jit(func_or_sig: Any = None, **options: Any) -> Any:
    """numba-cuda's ``cuda.jit`` over cubridge's front end: ``@jit`` (lazy), ``@jit('void(float32[:])')``,
    ``@jit(numba.void(numba.float32[::1]))`` or ``@jit([sig, ...])`` (eager), ``@jit(device=True)`` (a device
    function, compiled where a kernel calls it: a ``DeviceFunction``, numba-cuda's dispatcher of it). Kernels take the Numba
    ABI, so the PTX is numba-cuda's. Every option of numba-cuda's ``cuda.jit`` is accepted with its meaning
    here (``cubridge._jit_options`` tables them: inline/forceinline, debug, opt, lineinfo, fastmath (bool
    or numba's flag set), max_registers, launch_bounds, link, lto, cache, extensions, boundscheck);
    unknown options are refused by name.

    Each specialisation's PTX is kept in the on-disk code cache (``cubridge.CodeCache``; directory
    $CUBRIDGE_CACHE_DIR, off with CUBRIDGE_DISABLE_CACHE=1), keyed by the source of the kernel and the
    functions it calls, the constants it folds, the signature, the options, the device's compute
    capability, cubridge's build and libNVVM's version: another process compiling the same kernel reads
    the PTX back (``cubridge.compile_cache_stats()`` counts it). ``cache=False`` always compiles."""
    checked = jit_options(**options)
    if checked.debug and checked.opt:
        warnings.warn("debug=True with opt=True is not supported by CUDA (libNVVM is given -g and -opt=3 together). "
                      "This may result in a crash - set debug=False or opt=False.",
                      _numba_diagnostics.invalid_config_warning(), stacklevel=2)
    if checked.debug and checked.lineinfo:
        warnings.warn("debug and lineinfo are mutually exclusive: debug=True gives full debug info, line table "
                      "included (this disables some optimizations), lineinfo=True alone gives line info only with "
                      "code generation unaffected; here lineinfo adds nothing to debug.",
                      _numba_diagnostics.invalid_config_warning(), stacklevel=2)

    def decorate(func, sigs=()):
        # jit applied to a dispatcher (ours, a DeviceFunction, numba-cuda's): its py_func with this call's
        # options, as numba-cuda's dispatcher ends up holding the wrapped dispatcher's py_func
        func = _python_function(func)
        if checked.device:
            return DeviceFunction(func, sigs, checked)
        return Dispatcher(func, sigs, checked)

    if _is_function(func_or_sig):
        return decorate(func_or_sig)
    if func_or_sig is None:
        return decorate
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return lambda func: decorate(func, sigs)


def _is_type(obj) -> bool:
    """A type object (cubridge's Type, or one of numba's types) rather than a value."""
    return isinstance(obj, Type) or any(k.__name__ == "Type" and k.__module__.startswith("numba")
                                        for k in type(obj).__mro__)


def _python_function(obj):
    """The Python function a dispatcher (anything whose py_func is a function) wraps; obj itself otherwise."""
    import types
    inner = getattr(obj, "py_func", None)
    return inner if not isinstance(obj, types.FunctionType) and isinstance(inner, types.FunctionType) else obj


def _is_function(obj) -> bool:
    """A Python function (or a numba dispatcher of one), as opposed to a signature: Numba's type objects
    are callable too (numba.float32(...) builds a signature)."""
    import types
    return isinstance(getattr(obj, "py_func", obj), types.FunctionType)
