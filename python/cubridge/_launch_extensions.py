"""numba-cuda's launch-argument extensions on ``@cubridge.jit`` kernels: ``jit(extensions=[...])`` and
``kernel.extensions.append(obj)``. Used only by a launch of a kernel whose list is not empty (the launch path
checks the list's truth and nothing more).

Rules (each a test in tests/python/kernels/test_dispatcher_extensions.py):

1. An extension is an object with a callable ``prepare_args``; anything else is refused by name when given to
   ``jit`` and when a launch finds it in the list.
2. The kernel's signature is chosen from the launch's own arguments (an argument hint such as numba's
   ``cuda.In(x)`` is typed by the value it wraps), as numba-cuda types a launch before preparing arguments.
3. Then each argument goes through the extensions, the last added first, as numba-cuda does:
   ``ty, val = ext.prepare_args(ty, val, stream=stream, retr=retr)``. ``ty`` is the signature's parameter type
   (numba's type object where numba is imported and names it, else cubridge's), ``stream`` the launch's
   stream as given (0 when none), ``retr`` a list the extension may append zero-argument callables to.
4. A value an extension returns that is an argument hint (it has numba's ``ArgHint.to_device(retr, stream)``:
   ``cuda.In``, ``cuda.Out``, ``cuda.InOut``) becomes the device array that method returns; the copies back it
   registers go into ``retr``; a cuda.core ``StridedMemoryView`` it returns (numba-cuda 0.30's hints do) that
   exports neither DLPack nor the CUDA Array Interface is passed as the CUDA Array Interface its pointer,
   shape, strides and dtype describe, and so is one that holds records (DLPack has no record dtype), with the
   record's fields as CAI v3's ``descr``: the fields of the view's dtype, or, where the view has bare void items
   (cuda.core builds a host record array's view from its typestr alone), those of the array the hint wraps. The type an extension returns is not used: the kernel layer checks the
   value it receives against the signature and refuses what does not fit, by name.
5. After the launch, every callable in ``retr`` is called in order (numba-cuda's write-backs); when there are
   any, the current context is synchronized first, so a write-back reads what the kernel wrote whichever
   stream the launch chose.
"""
from __future__ import annotations

import sys

from . import _core
from ._resolution import numba_type


def checked(extensions) -> tuple:
    """`extensions` (jit's option) as a tuple, each with a callable prepare_args, or TypeError naming the bad one."""
    if extensions is None:
        return ()
    if not isinstance(extensions, (list, tuple)):
        raise TypeError(f"jit: extensions must be a list of objects with a prepare_args method, got {extensions!r}")
    for e in extensions:
        _check(e)
    return tuple(extensions)


def _check(extension) -> None:
    if not callable(getattr(extension, "prepare_args", None)):
        raise TypeError(f"extension {extension!r} ({type(extension).__name__}) has no callable prepare_args(ty, val, "
                        "stream=, retr=); numba-cuda's launch-argument extensions must define one")


def _synchronize() -> None:
    """Waits for the work of the current context (the launch) before the write-backs read its results."""
    _core.current_context().synchronize()


def _is_hint(value) -> bool:
    args = sys.modules.get("numba.cuda.args")
    hint = getattr(args, "ArgHint", None) if args is not None else None
    return hint is not None and isinstance(value, hint)


class ExtendedLaunch:
    """A configured launch of a kernel with extensions: `configure(kernel)` gives the launch of the loaded kernel
    (kernel[config] or kernel.forall(...)), `stream` the stream given with the configuration."""

    __slots__ = ("_dispatcher", "_configure", "_stream")

    def __init__(self, dispatcher, configure, stream):
        self._dispatcher, self._configure, self._stream = dispatcher, configure, stream

    def __call__(self, *args):
        d = self._dispatcher
        sig = d._signature_for(tuple(a.value if _is_hint(a) else a for a in args))
        retr: list = []
        prepared = [self._prepare(ty, value, retr) for ty, value in zip(sig.args, args)] if len(sig.args) == len(
            args) else list(args)  # a count that does not fit: the kernel layer names it
        self._configure(d._kernel(sig))(*prepared)
        if retr:
            _synchronize()
        for write_back in retr:
            write_back()

    def _prepare(self, ty, value, retr):
        ty = numba_type(ty)
        for extension in reversed(self._dispatcher.extensions):
            _check(extension)
            ty, value = extension.prepare_args(ty, value, stream=self._stream, retr=retr)
        if _is_hint(value):
            numbas = type(value).__module__.startswith("numba")
            host_dtype = getattr(value.value, "dtype", None)
            value = _as_argument(value.to_device(retr, _numba_stream(self._stream) if numbas else self._stream),
                                 host_dtype)
        return value


def _numba_stream(stream):
    """The launch's stream as numba-cuda's own argument hints (cuda.In/Out/InOut) take it: numba-cuda 0.30's
    to_device wants a cuda.core stream, which its launch makes with its driver's _to_core_stream (a numba
    internal, read where it exists) from 0 (the default stream), numba's own streams, or numba's external_stream
    of any other stream's handle (an int, a cubridge or CuPy stream). Without numba.cuda, the stream as given."""
    cuda = sys.modules.get("numba.cuda")
    if cuda is None or not hasattr(cuda, "external_stream"):
        return stream
    if stream is None or (isinstance(stream, int) and stream == 0):
        numbas = 0
    elif type(stream).__module__.startswith(("numba", "cuda.core")):
        numbas = stream
    else:
        handle = stream if isinstance(stream, int) else getattr(stream, "handle", getattr(stream, "ptr", None))
        if handle is None:
            return stream  # the kernel layer names a stream it cannot take
        numbas = cuda.external_stream(int(getattr(handle, "value", handle)))
    to_core = getattr(sys.modules.get("numba.cuda.cudadrv.driver"), "_to_core_stream", None)
    if to_core is not None:
        return to_core(numbas)
    return cuda.default_stream() if numbas == 0 else numbas


def _as_argument(value, host_dtype=None):
    """`value`, or a cuda.core StridedMemoryView as a CUDA Array Interface where it exports no array protocol or
    holds records (DLPack has no record dtype: cuda.core's DLPack export fails for one). `host_dtype` is the dtype of
    the value the hint wraps: cuda.core reads a host record array's dtype from its typestr alone ('|V4', no fields),
    so a view of bare void items the hint made from a record array of that size holds those records."""
    klass = type(value)
    view = klass.__name__ == "StridedMemoryView" and klass.__module__.startswith("cuda.core")
    dtype = getattr(value, "dtype", None)
    if view and getattr(host_dtype, "fields", None) and not getattr(dtype, "fields", None) \
            and getattr(dtype, "kind", None) == "V" and dtype.itemsize == host_dtype.itemsize:
        return _ViewInterface(value, host_dtype)
    if view and getattr(dtype, "fields", None):
        return _ViewInterface(value)
    if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
        return value
    if not view:
        return value  # the kernel layer names what it cannot take
    return _ViewInterface(value)


class _ViewInterface:
    """The CUDA Array Interface (v3) of a cuda.core StridedMemoryView on the device (it keeps the view alive)."""

    __slots__ = ("_view", "__cuda_array_interface__")

    def __init__(self, view, dtype=None):
        if not view.is_device_accessible:
            raise ValueError(f"an argument hint gave {view!r}, which is not accessible from the device")
        dtype = view.dtype if dtype is None else dtype
        itemsize = dtype.itemsize
        strides = view.strides
        self._view = view
        self.__cuda_array_interface__ = {
            "version": 3, "shape": tuple(view.shape), "typestr": dtype.str,
            "data": (int(view.ptr), bool(view.readonly)),
            "strides": None if strides is None else tuple(s * itemsize for s in strides),  # counts -> bytes
            "stream": None,  # made on the launch's stream by the hint's to_device
        }
        if dtype.fields:  # a record: its fields, as CAI v3's descr spells them
            self.__cuda_array_interface__["descr"] = dtype.descr
