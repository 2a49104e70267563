"""What ``@cubridge.jit(device=True)`` returns: numba-cuda's dispatcher of a device function.

A device function is compiled into the kernels (and device functions) that call it: the front end binds the
object by its ``py_func`` and reads the options each object carries (``__cubridge_inline__``,
``__cubridge_signatures__``, ``__cubridge_links__``), so two decorations of one function keep their own options.
Compiled alone (``compile_device``, ``inspect_*``) it is numba-cuda's device function: the Numba ABI, for the
current device's compute capability, with the object's own debug / opt / lineinfo / fastmath / forceinline.

Rules (each one a test in tests/python/kernels/test_device_functions.py):

- the object is callable from kernels and device functions exactly as the Python function was, with its options;
- ``compile_device(args, return_type=None)`` compiles for a tuple of argument types (once per signature) and returns
  the CompiledDeviceFunction, kept in ``overloads`` (keyed by the argument types, as numba-cuda keys them);
- declared signatures (``jit("f8(f8)", device=True)``) are compiled on first use of ``overloads`` /
  ``signatures`` / ``inspect_*`` without a signature, and are what calls are typed against;
- ``inspect_asm`` / ``inspect_llvm`` / ``inspect_lto_ptx`` (signature or None: numba-cuda's dict over the compiled
  signatures) give the PTX, the NVVM IR and nvJitLink's LTO PTX of the function; ``inspect_sass`` raises
  numba-cuda's RuntimeError (a device function has no cubin of its own);
- a call from the host, or ``f[grid, block]``, raises numba-cuda's error (ValueError / RuntimeError) naming the
  function;
- pickling is by reference (module and qualified name), as numba-cuda's dispatchers and Python functions pickle.
"""
from __future__ import annotations

import functools
import re

from . import _compiler, _core, _function_pickle, _linker
from ._jit_options import JitOptions
from ._overloads import CompiledCode, SignatureDict
from ._types import Signature, as_signature, as_type, void

__all__ = ["DeviceFunction", "CompiledDeviceFunction"]


def _arguments_key(signature) -> Signature:
    """The key numba-cuda files a device function's overloads under: its argument types (a tuple of types, a
    signature object or spelling with any return type)."""
    try:
        sig = as_signature(signature)
    except TypeError:
        raise TypeError(f"signature: {signature!r} ({type(signature).__name__}) is not a tuple of argument types "
                        "such as (float32, int64), a spelling such as 'float32(float32, int64)' or a signature "
                        "object such as cubridge.float32(cubridge.float32, cubridge.int64)") from None
    return Signature._make(void, sig.args)


class _ArgumentsDict(SignatureDict):
    """``overloads`` of a device function: keyed by the argument types, looked up by a tuple of types or by a
    signature (its return type, whatever it is, is not part of the key)."""

    @staticmethod
    def _key(key):
        try:
            return _arguments_key(key)
        except (TypeError, ValueError):
            return None


class FunctionDescriptor:
    """The names numba-cuda's function descriptor (``compile_device(...).fndesc``) gives a compiled device
    function: ``mangled_name`` is its symbol in the PTX and the NVVM IR."""

    __slots__ = ("mangled_name", "qualname", "argtypes", "restype")

    def __init__(self, mangled_name: str, qualname: str, argtypes: tuple, restype):
        self.mangled_name, self.qualname, self.argtypes, self.restype = mangled_name, qualname, argtypes, restype

    def __repr__(self) -> str:
        return f"<cubridge.FunctionDescriptor {self.mangled_name}>"


class CompiledDeviceFunction(CompiledCode):
    """A device function compiled alone for one signature (``compile_device``'s result, an ``overloads`` value):
    its PTX, symbol name, resolved signature and numba-cuda's inspection methods."""

    def __init__(self, function: "DeviceFunction", signature: Signature, result, cc):
        self._function = function
        self.cc = cc  # the compute capability compiled for (None: the lowest libNVVM supports)
        self.signature: Signature = Signature._make(result.result_type, signature.args)  # the return type resolved
        self.ptx: str = result.code.decode()
        self.entry_name: str = result.name
        self.fndesc = FunctionDescriptor(result.name, function.__qualname__, tuple(signature.args),
                                         result.result_type)

    @property
    def return_type(self):
        return self.signature.return_type

    def _compile(self, output: str, cc):
        f = self._function
        return _compiler._compile_result(f.py_func, self.signature, device=True, abi="numba", cc=cc, output=output,
                                         directives=f._options, **f._options.compiler())

    def inspect_lto_ptx(self, cc=None) -> str:
        """The PTX nvJitLink makes of the function's LTO-IR, linked alone. nvJitLink keeps what a kernel reaches,
        so where it drops the function this raises RuntimeError naming its symbol, never returning the empty module."""
        cc = self.cc if cc is None else _linker._cc(cc, "inspect_lto_ptx", "cc")
        if cc is None:
            raise ValueError("inspect_lto_ptx: no device to take the compute capability from; pass cc=(major, minor)")
        ptx = _linker.link([self._compile("ltoir", cc).code], arch=cc, lto=True, output="ptx")
        if not re.search(rf"\b{re.escape(self.entry_name)}\b", ptx):
            raise RuntimeError(f"inspect_lto_ptx: nvJitLink's PTX of device function {self._function.__name__!r} "
                               f"lacks its symbol {self.entry_name} (the link dropped it); inspect_asm gives its PTX")
        return ptx

    def __repr__(self) -> str:
        return f"<cubridge.CompiledDeviceFunction {self._function.__name__} {self.signature}>"


def _current_cc():
    try:
        return _compiler._current_cc() if _core.driver_available() else None
    except Exception:  # no usable device: the lowest architecture
        return None


class DeviceFunction:
    """numba-cuda's dispatcher of a device function (``@cubridge.jit(device=True)``): called from kernels and device
    functions, inspected and compiled alone with numba-cuda's methods."""

    def __init__(self, py_func, signatures=(), options: JitOptions | None = None):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._options = options if options is not None else JitOptions(device=True)
        self._declared = tuple(signatures)
        self._overloads: _ArgumentsDict = _ArgumentsDict()
        # What the front end reads where a kernel calls this object (the object's own, not the function's).
        self.__cubridge_device__ = True
        self.__cubridge_inline__ = self._options.inline_policy
        self.__cubridge_signatures__ = self._declared  # numba-cuda's jit(sigs, device=True): calls typed against these
        self.__cubridge_links__ = self._options.link  # linked into every kernel that calls it

    #: numba's compiler, handed this object (``context.compile_subroutine`` in an @intrinsic's codegen, which
    #: cubridge runs through numba's own lowering: _numba_lowering), compiles its py_func, as it does for
    #: numba-cuda's own dispatchers: numba finds the function through ``__numba__`` and keys its cache by ``__code__``.
    __numba__ = "py_func"

    @property
    def __code__(self):
        return self.py_func.__code__

    @property
    def targetoptions(self) -> dict:
        """The options this device function was made with (numba-cuda's name)."""
        o = self._options
        return dict(device=True, inline=o.inline, forceinline=o.forceinline, debug=o.debug, opt=o.opt,
                    lineinfo=o.lineinfo, fastmath=o.fastmath, link=o.link)

    @property
    def overloads(self) -> SignatureDict:
        """Per signature (its argument types), the CompiledDeviceFunction; declared signatures compiled first."""
        for sig in self._declared:
            self.compile_device(sig)
        return self._overloads

    @property
    def signatures(self) -> list[str]:
        """The compiled signatures (declared ones included), spelled with their return types; each looks up
        ``overloads``."""
        return [str(k.signature) for k in self.overloads.values()]

    @property
    def specialized(self) -> bool:
        """Made with signatures: numba-cuda compiles those only."""
        return bool(self._declared)

    def compile_device(self, args, return_type=None) -> CompiledDeviceFunction:
        """Compiles the device function alone for `args` (a tuple of argument types, or a signature), with its
        return type given or inferred; once per argument types. Returns the CompiledDeviceFunction."""
        sig = as_signature(args)
        if return_type is not None:
            sig = Signature._make(as_type(return_type), sig.args)
        key = _arguments_key(sig)
        compiled = self._overloads.get(key)
        if compiled is None:
            sig = self._declared_for(sig)
            cc = _current_cc()
            r = _compiler._compile_result(self.py_func, sig, device=True, abi="numba", cc=cc,
                                          directives=self._options, **self._options.compiler())
            compiled = self._overloads[key] = CompiledDeviceFunction(self, sig, r, cc)
        return compiled

    def _declared_for(self, sig: Signature) -> Signature:
        """A device function made with signatures compiles those only: `sig`'s argument types must be one's."""
        if not self._declared:
            return sig
        for d in self._declared:
            declared = as_signature(d)
            if list(declared.args) == list(sig.args):
                return declared
        raise TypeError(f"device function {self.__name__!r} was declared with "
                        f"{', '.join(str(as_signature(d)) for d in self._declared)}; it is not compiled for "
                        f"({', '.join(str(a) for a in sig.args)})")

    def _per_signature(self, signature, read):
        if signature is not None:
            key = _arguments_key(signature)
            if key not in self.overloads:
                raise KeyError(f"device function {self.__name__!r}: not compiled for {signature!r}; compiled: "
                               f"{', '.join(self.signatures) or 'none yet'} (compile_device(args) compiles it)")
            return read(self._overloads[key])
        return _ArgumentsDict((sig, read(k)) for sig, k in self.overloads.items())

    def inspect_asm(self, signature=None):
        """The PTX of the function compiled for `signature` (numba-cuda's inspect_asm); None: a dict over every
        compiled signature."""
        return self._per_signature(signature, CompiledDeviceFunction.inspect_asm)

    def inspect_llvm(self, signature=None):
        """The NVVM IR given to libNVVM (numba-cuda's inspect_llvm); None: a dict over every compiled signature."""
        return self._per_signature(signature, CompiledDeviceFunction.inspect_llvm)

    def inspect_lto_ptx(self, signature=None):
        """nvJitLink's PTX of the function's LTO-IR (numba-cuda's inspect_lto_ptx)."""
        return self._per_signature(signature, CompiledDeviceFunction.inspect_lto_ptx)

    def inspect_sass(self, signature=None):
        """Raises RuntimeError, as numba-cuda does: a device function has no cubin of its own."""
        raise RuntimeError(f"Cannot inspect SASS of a device function ({self.__name__!r}): it is compiled into the "
                           "kernels that call it, and has no cubin of its own; inspect_sass a kernel that calls it")

    def inspect_sass_cfg(self, signature=None):
        """Raises RuntimeError, as numba-cuda does: a device function has no cubin of its own."""
        raise RuntimeError(f"Cannot get the CFG of a device function ({self.__name__!r}): it is compiled into the "
                           "kernels that call it; inspect a kernel that calls it")

    def __getitem__(self, config):
        raise RuntimeError(f"Cannot compile a device function as a kernel: {self.__name__!r} was made with "
                           f"jit(device=True), so it has no launch configuration; call it from a kernel, or "
                           f"decorate it with jit (device=False) to launch it")

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """Raises RuntimeError, as numba-cuda does: a device function is not launched."""
        return self[ntasks, tpb]

    def __call__(self, *args, **kwargs):
        # numba-cuda raises ValueError for a call from the host (its dispatcher's launch-configuration error)
        raise ValueError(f"device function {self.__name__!r} cannot be called from the host: it runs on the GPU, "
                         f"called from a kernel or another device function; its Python function is "
                         f"{self.__name__}.py_func")

    def __repr__(self) -> str:
        return f"<cubridge.DeviceFunction {self.__name__}>"

    def __reduce__(self):
        # numba-cuda's way: by reference where its module holds it under its name, else by value
        return _function_pickle.reduce_function_object(self, _rebuild_device_function, self._options,
                                                       tuple(_spelled(s) for s in self._declared))


def _spelled(signature):
    """A declared signature as pickle takes it: cubridge's Signature as its spelling, others as they are."""
    return str(signature) if isinstance(signature, Signature) else signature


def _rebuild_device_function(function_state, options, signatures) -> DeviceFunction:
    """A device function pickled by value (_function_pickle), made again; it compiles where a kernel calls it."""
    return DeviceFunction(_function_pickle.rebuild_function(*function_state), signatures, options)
