"""cubridge kernels inside ``jax.jit``: ``kernel_call`` (not built yet; this module holds its design).

Status: ``kernel_call`` raises NotImplementedError. The XLA side it needs exists (cubridge.xla: the
typed-FFI adapter, opaque encoding, tuple layouts, GPU targets tested under jit and shard_map); the part
left is one built-in GPU target that launches a cubridge Kernel. Design, so the next engineer can build
it without rediscovering anything:

1. A process-wide kernel table in ``src/xla/kernel_call.cpp`` (C++): ``register_kernel(image bytes,
   entry name, signature text) -> id``. The image (PTX, cubin, LTO-linked cubin) is kept, not the
   CUfunction, because XLA runs the call on every device of a mesh: at call time the target looks up
   (id, CUcontext of XLA's stream via cuStreamGetCtx) in a cache and loads with
   ``Module::cached(Context for that device's primary context, image)`` on a miss (primary contexts are
   the ones XLA runs in). Preload for every device at registration, so no module is ever loaded while
   XLA captures a CUDA graph (the same rule examples/xla/seed_gpu.cpp follows with its prepare()).
2. One classic GPU target, ``cubridge_kernel_call`` (api version 2), registered once through
   ``cubridge.xla.register`` with command-buffer compatibility on (the launch is the same every call).
   Its opaque bytes (cubridge.xla.encode_opaque) carry: ``kernel`` (id), ``grid`` and ``block`` (3 ints
   each), ``shared`` (bytes), and one shape entry per operand and result (``arg0`` ... in order:
   operands, then results), because XLA_FFI buffers reach a classic target as bare pointers.
3. The target rebuilds each parameter as an ``ArrayView`` over ``buffers[i]`` (C-contiguous, the
   shape and dtype from opaque, no owner: XLA owns the memory for the call), fills an ``ArgumentPack``
   for the kernel's ``KernelSignature`` (Numba ABI: meminfo, parent, nitems, itemsize, data, shape,
   strides), and calls ``Kernel::launch_raw(config, StreamRef::external(stream), pack.params())``.
   Any exception becomes XlaCustomCallStatusSetFailure, so a bad launch is a Python exception.
4. Python: ``kernel_call(kernel, result_shape_dtypes, griddim, blockdim, sharedmem=0)`` returns
   ``lambda *args: cubridge.xla.custom_call("cubridge_kernel_call", result_shape_dtypes, *args,
   opaque=...)``; results are the kernel's trailing array parameters (outputs written in place, as in
   the classic convention), so ``kernel_call(k, out_spec, g, b)(x, y)`` launches ``k[g, b](x, y, out)``.
   griddim may be a callable of the operand shapes, evaluated at trace time.
5. Tests (gpu marker): a ``cubridge.compile``d Python kernel under jit, vmap refused with a message,
   shard_map over all GPUs, an argument count/dtype mismatch reported with the signature; bench:
   kernel_call vs the same kernel through the seed target (both per call, 200 chained).
"""
from __future__ import annotations

__all__ = ["kernel_call"]


def kernel_call(kernel, result_shape_dtypes, griddim, blockdim, sharedmem: int = 0):
    """Would return a function that launches `kernel` inside jax.jit (see this module's docstring)."""
    raise NotImplementedError(
        "cubridge.jax.kernel_call is not built yet; write the kernel as a classic custom-call target "
        "(include/cubridge/xla/custom_call.h) and call it with cubridge.xla.custom_call meanwhile")
