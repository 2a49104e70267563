"""cubridge kernels inside ``jax.jit``: ``kernel_call`` launches a loaded kernel as an XLA custom call.

::

    k = cubridge.load_kernel(cubin, "transform", 'void(const float32*, const float32*, float32*, uint64)')
    f = cubridge.jax.kernel_call(k, jax.ShapeDtypeStruct((n,), jnp.float32),
                                 griddim=lambda a, b: (a[0] + 255) // 256, blockdim=256)
    out = jax.jit(lambda a, b: f(a, b, a.size))(a, b)     # launches transform(a, b, out, n)

The call takes the kernel's parameters in order, less the results: arrays for array (``float32[:]``) and
pointer (``float32*``) parameters, Python or NumPy numbers for scalar ones (static: they are packed at
trace time) or functions of the operand shapes that return them (``lambda x, y: x[0]``). The results are the
kernel's trailing array/pointer parameters; XLA allocates them and the
kernel must write every element. Operands must not be written (XLA may share them). ``griddim`` and
``blockdim`` are an int or 1 to 3 ints, or a callable of the operand shapes, evaluated at trace time.
Works with Numba-ABI kernels (numba-cuda's ``compile_ptx`` output, loaded with cubridge.load_kernel)
and with CUDA C++ kernels' pointer parameters (NVRTC, nvcc). ``jax.vmap`` is refused (a kernel's grid does
not batch by itself) unless ``vmap_method`` is chosen: "sequential" or "sequential_unrolled" launch the kernel
once per batch element (JAX's loop around the unbatched call); JAX's batched methods ("expand_dims",
"broadcast_all") are refused, since the shapes and strides packed at trace time are the unbatched ones.
``vmap_method="fold"`` (with an elementwise ``sharding_rule`` such as "i, i -> i") launches once over the
whole batch: the batch is folded into the first dimension of every operand and result (unbatched operands
broadcast), so the kernel, its grid callable and its scalar functions see one longer array.

``sharding_rule="i j, j -> i j"`` (Shardy's notation: a factor per dimension of each array operand, then of
each result) declares that the kernel computes each result element from the operand elements sharing its
factors: operands sharded over a mesh then stay sharded (no all-gather before the call) and each device
launches the kernel on its block, with the block's shapes given to ``griddim``, ``blockdim`` and the scalar
functions (a plain number is refused there: it would be the same on every shard). Reduction factors (in
operands, not in results) are gathered whole. See cubridge/_jax_sharding.py.

``jax.export``: pass ``disabled_checks=cubridge.jax.EXPORT_CHECKS`` (JAX refuses custom calls without a
compatibility guarantee otherwise). Each call site carries its kernel (image, entry, signature) in its opaque
bytes, so the deserialized function runs in a fresh process after ``cubridge.jax.register_target()``: the
kernel is found by its fingerprint or loaded on every GPU at its first launch there (outside a graph
capture: run the deserialized function once before capturing it).

How it runs: the kernel is loaded into every device's primary context when first traced (so nothing
loads while XLA captures a CUDA graph) and kept in a process-wide C++ table
(cubridge/xla/kernel_call.hpp). One built-in GPU target, ``cubridge_kernel_call`` (classic signature,
served through cubridge's typed-FFI adapter, command-buffer compatible), receives in its opaque bytes the
kernel's id, grid, block, shared memory and the packed parameter buffer with every scalar, shape and
stride already written; per call it writes XLA's buffer addresses into the data slots and launches on
XLA's stream, with the module of that stream's context (so sharded programs run on every GPU). A failure
(a bad launch, an unknown kernel) becomes the Python exception of the jitted call.
"""
from __future__ import annotations

import numpy as np

from . import _core, _scalar_types
from . import _jax_sharding
from . import xla as _xla

__all__ = ["kernel_call", "KernelCall", "kernel_vjp", "register_target", "EXPORT_CHECKS"]

TARGET = "cubridge_kernel_call"


def _param_kind(param: str) -> str:
    return "pointer" if param.endswith("*") else "array" if param.endswith("]") else "scalar"


class _Placeholder:
    """An operand or result as the signature's packer reads an array at trace time: its shape and
    dtype, C order (XLA's default layout), data pointer 0 (the target writes XLA's buffer there)."""

    __slots__ = ("__array_interface__",)

    def __init__(self, shape, dtype: np.dtype):
        self.__array_interface__ = {"version": 3, "shape": tuple(int(d) for d in shape), "typestr": dtype.str,
                                    "data": (0, False), "strides": None}


def _is_static_scalar(value) -> bool:
    return isinstance(value, (bool, int, float, complex, np.generic))


def _extent(value, shapes, what: str) -> list[int]:
    if callable(value):
        value = value(*shapes)
    values = [value] if isinstance(value, (int, np.integer)) else value
    if (not isinstance(values, (tuple, list)) or not 1 <= len(values) <= 3
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)):
        raise TypeError(f"kernel_call: {what} {value!r} is not an int or a tuple of 1 to 3 ints (a callable "
                        "of the operand shapes may return either)")
    return [int(v) for v in values]


def _result_leaves(result_shape_dtypes) -> list:
    leaves = list(result_shape_dtypes) if isinstance(result_shape_dtypes, (tuple, list)) else [result_shape_dtypes]
    for r in leaves:
        if not (hasattr(r, "shape") and hasattr(r, "dtype")):
            raise TypeError(f"kernel_call: result {r!r} has no .shape and .dtype; pass jax.ShapeDtypeStruct "
                            "values (one, or a flat tuple of them)")
    return leaves


def _dtype_of(value, what: str) -> np.dtype:
    dtype = np.dtype(value.dtype)
    if dtype.kind not in _scalar_types.NUMPY_KINDS:
        raise TypeError(f"kernel_call: {what} has dtype {dtype.name}, which no kernel parameter type matches "
                        "(bool, int8..int64, uint8..uint64, float16/32/64, complex64/128)")
    return dtype


_target_registered = False


def register_target() -> None:
    """Registers the ``cubridge_kernel_call`` target with XLA in this process (kernel_call does it when first
    traced). A process that runs a deserialized ``jax.export`` artifact without tracing a kernel_call calls
    it first; each call site carries its kernel, which is loaded on every GPU at its first launch."""
    _ensure_target()


def _export_checks():
    import jax

    return [jax.export.DisabledSafetyCheck.custom_call(TARGET)]


def _ensure_target() -> None:
    global _target_registered
    if not _target_registered:
        if (TARGET, "CUDA") not in {(r[0], r[1]) for r in _xla.registered()}:
            _xla.register(_core._xla_kernel_call_target(), TARGET, "cuda", api_version=2,
                          command_buffer_compatible=True)
        _target_registered = True


def _register(kernel) -> tuple[int, int]:
    """(id, fingerprint) of the kernel in the process-wide table, loading it on every device."""
    return _core._xla_kernel_call_add(kernel.image, kernel.name, kernel.signature)


def _prepare(kernel_id: int, grid, block, sharedmem: int) -> None:
    """Checks the configuration against the kernel on every device; opts in to the shared memory now."""
    _core._xla_kernel_call_prepare(kernel_id, list(grid), list(block), sharedmem)


class KernelCall:
    """A kernel with its results and launch configuration; call it (inside jax.jit) with the operands
    and scalar values, in the order of the kernel's parameters less the results."""

    def __init__(self, kernel, result_shape_dtypes, griddim, blockdim, sharedmem: int = 0, vmap_method=None,
                 sharding_rule=None):
        if not (hasattr(kernel, "signature") and hasattr(kernel, "image") and hasattr(kernel, "name")):
            raise TypeError(f"kernel_call: {kernel!r} ({type(kernel).__name__}) is not a cubridge.Kernel; load "
                            "PTX, a cubin or a fatbin with cubridge.load_kernel (numba-cuda's compile_ptx "
                            "output, NVRTC or nvcc output)")
        if not isinstance(sharedmem, (int, np.integer)) or isinstance(sharedmem, bool) or sharedmem < 0:
            raise ValueError(f"kernel_call: sharedmem={sharedmem!r} is not a number of bytes ≥ 0")
        self.kernel = kernel
        self.result_shape_dtypes = result_shape_dtypes
        self._results = _result_leaves(result_shape_dtypes)
        self.griddim, self.blockdim, self.sharedmem = griddim, blockdim, int(sharedmem)
        self.vmap_method = _vmap_method(vmap_method)
        self.sharding_rule = None if sharding_rule is None else _jax_sharding.parse_rule(sharding_rule)
        if self.vmap_method == "fold":
            rule = self.sharding_rule
            if rule is None or not rule.elementwise:
                raise ValueError(
                    f"kernel_call: vmap_method='fold' folds the batch into the first dimension of every operand "
                    f"and result, which is right only for a kernel that computes each element on its own: give "
                    f"an elementwise sharding_rule (every array with the same factors, e.g. 'i j, i j -> i j'); "
                    f"got sharding_rule={None if rule is None else rule.text!r}")
        elif self.sharding_rule is not None and self.vmap_method is not None:
            raise ValueError("kernel_call: sharding_rule and a sequential vmap_method cannot be combined (a sharded "
                             "call is partitioned by XLA, a sequential one looped by JAX); use vmap_method='fold'")
        self._ids: dict[int, tuple[int, int]] = {}
        self._sharded: dict = {}

    def plan(self, *args):
        """(kernel, operands, packed parameter buffer, grid, block) for these arguments, checked against
        the kernel's signature; needs no GPU."""
        return self._plan(self._results, args)

    def _plan(self, result_leaves, args):
        results = [_Placeholder(r.shape, _dtype_of(r, f"result {i}")) for i, r in enumerate(result_leaves)]
        kernel = self.kernel
        sig = kernel.signature
        params = list(sig.params)
        kinds = [_param_kind(p) for p in params]
        array_params = [i for i, k in enumerate(kinds) if k != "scalar"]
        name = getattr(kernel, "name", "?")
        if len(results) > len(array_params):
            raise ValueError(f"kernel_call: {len(results)} results, but kernel {name!r} has only "
                             f"{len(array_params)} array or pointer parameters to write them ({sig})")
        result_params = array_params[len(array_params) - len(results):]
        takes = [p for i, p in enumerate(params) if i not in result_params]
        if len(args) != len(takes):
            raise TypeError(f"kernel_call: kernel {name!r} {sig} with {len(results)} result(s) takes "
                            f"{len(takes)} arguments ({', '.join(takes) or 'none'}), got {len(args)}")
        shapes = [tuple(a.shape) for a, p in zip(args, takes) if _param_kind(p) != "scalar" and hasattr(a, "shape")]
        values, operands, given = [], [], iter(args)
        for i, (param, kind) in enumerate(zip(params, kinds)):
            if i in result_params:
                values.append(results[result_params.index(i)])
                continue
            value = next(given)
            if kind == "scalar":
                if callable(value) and not isinstance(value, np.generic):
                    value = value(*shapes)
                if not _is_static_scalar(value):
                    raise TypeError(f"kernel_call: argument {i} ({param}) must be a Python or NumPy number, "
                                    f"known at trace time; got {type(value).__name__} {value!r} (a traced "
                                    "value cannot be packed: pass e.g. x.shape[0], or make it an array)")
                values.append(value)
            else:
                if _is_static_scalar(value) or not (hasattr(value, "shape") and hasattr(value, "dtype")):
                    raise TypeError(f"kernel_call: argument {i} ({param}) must be an array (a jax.Array or "
                                    f"a traced value), got {type(value).__name__} {value!r}")
                operands.append(value)
                values.append(_Placeholder(value.shape, _dtype_of(value, f"argument {i} ({param})")))
        try:
            packed = sig.pack(*values)
        except (TypeError, ValueError) as e:
            raise type(e)(f"kernel_call: kernel {name!r}: {e}") from None
        grid = _extent(self.griddim, shapes, "griddim")
        block = _extent(self.blockdim, shapes, "blockdim")
        return kernel, operands, packed, grid, block

    def opaque(self, kernel_id: int, fingerprint: int, packed: bytes, grid, block) -> bytes:
        """The call site's opaque bytes (read by the target in C++: KernelCallSite::decode)."""
        return _core._xla_kernel_call_opaque(kernel_id, fingerprint, list(grid), list(block), self.sharedmem,
                                             bytes(packed))

    def __call__(self, *args):
        if self.vmap_method == "fold":
            return self._folding_call(self.result_shape_dtypes, args)
        return self._unbatched_call(self.result_shape_dtypes, args)

    def _unbatched_call(self, result_shape_dtypes, args):
        if self.sharding_rule is None:
            return self._call(result_shape_dtypes, *args)
        return self._sharded_call(result_shape_dtypes, args)

    def _folding_call(self, result_shape_dtypes, args):
        """The call under jax.custom_batching.custom_vmap: a batch (of one vmap or several nested) is folded
        into the first dimension of every operand and result, one launch for the whole batch."""
        import jax
        import jax.numpy as jnp

        takes = self._takes()
        static = {i: a for i, a in enumerate(args) if _param_kind(takes[i]) == "scalar"} if len(args) == len(takes) else {}
        arrays = [a for i, a in enumerate(args) if i not in static]

        def rebuild(arrays_):
            given = iter(arrays_)
            return [static[i] if i in static else next(given) for i in range(len(args))]

        @jax.custom_batching.custom_vmap
        def call(*arrays_):
            return self._unbatched_call(result_shape_dtypes, rebuild(arrays_))

        @call.def_vmap
        def fold(axis_size, in_batched, *arrays_):
            flat = []
            for a, batched in zip(arrays_, in_batched):
                a = a if batched else jnp.broadcast_to(a, (axis_size, *a.shape))
                flat.append(a.reshape((axis_size * a.shape[1], *a.shape[2:])))
            leaves = _result_leaves(result_shape_dtypes)
            folded = [jax.ShapeDtypeStruct((axis_size * r.shape[0], *r.shape[1:]), r.dtype) for r in leaves]
            spec = tuple(folded) if isinstance(result_shape_dtypes, (tuple, list)) else folded[0]
            out = self._folding_call(spec, rebuild(flat))
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            outs = [o.reshape((axis_size, *r.shape)) for o, r in zip(outs, leaves)]
            shaped = tuple(outs) if isinstance(result_shape_dtypes, (tuple, list)) else outs[0]
            return shaped, jax.tree_util.tree_map(lambda _: True, shaped)

        return call(*arrays)

    def _takes(self) -> list[str]:
        results = set(self._result_params())
        return [p for i, p in enumerate(self.kernel.signature.params) if i not in results]

    def _sharded_call(self, result_shape_dtypes, args):
        name = getattr(self.kernel, "name", "?")
        takes = self._takes()
        results = _result_leaves(result_shape_dtypes)
        if len(args) != len(takes):  # the unsharded plan words the refusal
            self._plan(results, args)
        static = tuple(i for i, p in enumerate(takes) if _param_kind(p) == "scalar")
        for i in static:
            if not callable(args[i]) or isinstance(args[i], np.generic):
                raise TypeError(
                    f"kernel_call: kernel {name!r} has sharding_rule {self.sharding_rule.text!r}, so each device "
                    f"runs it on its shard; argument {i} ({takes[i]}) = {args[i]!r} would be the same number on "
                    "every shard: give it as a function of the shard's operand shapes (lambda x, y: x[0] for a "
                    "length, lambda *shapes: 2.0 for a constant)")
        arrays = [a for i, a in enumerate(args) if i not in static]
        _jax_sharding.check_rule(self.sharding_rule, [tuple(a.shape) for a in arrays],
                                 [tuple(r.shape) for r in results], name)
        key = tuple((tuple(r.shape), str(r.dtype)) for r in results)
        f = self._sharded.get(key)
        if f is None:  # one partitioned function per result shape (a folded batch has its own)
            f = self._sharded[key] = _jax_sharding.sharded(
                self._call, self.sharding_rule, static, results,
                single_result=not isinstance(result_shape_dtypes, (tuple, list)))
        return f(*args)

    def _result_params(self) -> list[int]:
        kinds = [_param_kind(p) for p in self.kernel.signature.params]
        arrays = [i for i, k in enumerate(kinds) if k != "scalar"]
        return arrays[len(arrays) - len(self._results):] if len(self._results) <= len(arrays) else []

    def _call(self, result_shape_dtypes, *args):
        kernel, operands, packed, grid, block = self._plan(_result_leaves(result_shape_dtypes), args)
        key = id(kernel)
        if key not in self._ids:
            self._ids[key] = _register(kernel)
        kernel_id, fingerprint = self._ids[key]
        _prepare(kernel_id, grid, block, self.sharedmem)
        opaque = self.opaque(kernel_id, fingerprint, packed, grid, block)
        _ensure_target()
        try:
            return _xla.custom_call(TARGET, result_shape_dtypes, *operands, opaque=opaque,
                                    vmap_method=None if self.vmap_method == "fold" else self.vmap_method)
        except NotImplementedError as e:  # jax.ffi.ffi_call's batching rule without a vmap_method
            if "vmap" not in str(e):
                raise
            raise NotImplementedError(
                f"kernel_call: jax.vmap of kernel {getattr(kernel, 'name', '?')!r} is not supported (its grid "
                "and buffers are fixed at trace time); call it on the whole batch with a grid that covers "
                "it, or pass vmap_method='sequential' (one launch per batch element)") from None

    def __repr__(self) -> str:
        return (f"<cubridge.jax.KernelCall {getattr(self.kernel, 'name', self.kernel)!r} grid={self.griddim!r} "
                f"block={self.blockdim!r} shared={self.sharedmem}>")


def kernel_call(kernel, result_shape_dtypes, griddim, blockdim, sharedmem: int = 0, *,
                vmap_method: str | None = None, sharding_rule: str | None = None) -> KernelCall:
    """A function that launches `kernel` (a cubridge.Kernel) inside jax.jit:
    ``kernel_call(k, out_spec, grid, block)(x, y)`` runs ``k[grid, block](x, y, out)`` on XLA's stream
    and returns ``out``. ``sharding_rule`` ("i j, j -> i j": a factor per dimension of each array operand,
    then of each result) declares which dimensions the kernel computes independently, so operands sharded
    over a mesh stay sharded and each device launches the kernel on its shard. See this module's docstring
    for the argument rules."""
    return KernelCall(kernel, result_shape_dtypes, griddim, blockdim, sharedmem, vmap_method, sharding_rule)


_SEQUENTIAL = ("sequential", "sequential_unrolled")


_ACCEPTED = ("None (jax.vmap refused), 'sequential' or 'sequential_unrolled' (one launch per element), 'fold' "
             "(one launch over the whole batch, for an elementwise sharding_rule)")


def _vmap_method(value):
    if value is None or value in _SEQUENTIAL or value == "fold":
        return value
    if value in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        raise ValueError(f"kernel_call: vmap_method={value!r} would launch the kernel once on the batched "
                         f"buffers with the unbatched shapes and strides packed at trace time; accepted: {_ACCEPTED}")
    raise ValueError(f"kernel_call: vmap_method={value!r} is not one of {_ACCEPTED}")


def kernel_vjp(forward: KernelCall, backward: KernelCall):
    """A function computing ``forward(*args)`` whose gradient (``jax.grad``, ``jax.vjp``) is ``backward``:
    ``backward(*args, *cotangents)`` (the forward's arguments, then one cotangent per forward result) returns
    one cotangent per array argument of the forward, in order. Scalar arguments are static (not
    differentiated), as kernel_call packs them at trace time."""
    for what, call in (("forward", forward), ("backward", backward)):
        if not isinstance(call, KernelCall):
            raise TypeError(f"kernel_vjp: {what} {call!r} ({type(call).__name__}) is not a kernel_call(...)")
    import jax

    made: dict[tuple[int, ...], object] = {}

    def differentiable(*args):
        static = tuple(i for i, a in enumerate(args) if _is_static_scalar(a))
        f = made.get(static)
        if f is None:
            f = made[static] = _paired(jax, forward, backward, static)
        return f(*args)

    return differentiable


def _paired(jax, forward: KernelCall, backward: KernelCall, static: tuple[int, ...]):
    """jax.custom_vjp of the forward call, the static scalars at `static` left undifferentiated."""
    def f(*args):
        return forward(*args)

    f = jax.custom_vjp(f, nondiff_argnums=static)

    def fwd(*args):
        return forward(*args), args

    def bwd(*rest):  # the static arguments, then the residuals (every argument) and the cotangents
        args, cotangents = rest[-2], rest[-1]
        cts = tuple(cotangents) if isinstance(cotangents, (tuple, list)) else (cotangents,)
        grads = backward(*args, *cts)
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) != len(args) - len(static):
            raise ValueError(f"kernel_vjp: the backward kernel {getattr(backward.kernel, 'name', '?')!r} returns "
                             f"{len(grads)} results, but the forward takes {len(args) - len(static)} array "
                             "arguments: it must return one cotangent per array argument")
        return grads

    f.defvjp(fwd, bwd)
    return f


def __getattr__(name):
    if name == "EXPORT_CHECKS":  # jax.export refuses custom calls it does not know unless told
        return _export_checks()
    raise AttributeError(f"module 'cubridge.jax' has no attribute {name!r}")
