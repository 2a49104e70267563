"""cubridge kernels as PyTorch operators: ``custom_op`` turns a ``@cubridge.jit`` or loaded kernel into an
operator of ``torch.library`` (``torch.ops.cubridge.<name>``) that runs eagerly, inside
``torch.compile(fullgraph=True)`` with no graph break, and inside CUDA graphs (``mode="reduce-overhead"``,
``torch.cuda.graph``)::

    @cubridge.jit("void(float32[::1], float32[::1], float32[::1])")
    def add(x, y, out):
        i = cubridge.grid(1)
        if i < out.size:
            out[i] = x[i] + y[i]

    add_op = cubridge.torch.custom_op(add, out="x", ntasks=lambda x, y: x.numel())
    z = add_op(x, y)                                   # eager, or inside torch.compile

The op takes the kernel's parameters in order, less the results: tensors for array (``float32[:]``) and
pointer (``float32*``) parameters, numbers for scalar ones. The results are the kernel's trailing
array/pointer parameters, one per ``out`` spec: the name of an input (a result shaped, typed and placed as
it), or a callable of the inputs returning ``(shape, dtype)``; the op allocates them and the kernel must
write every element. ``mutates_args`` names the inputs the kernel writes. The launch is ``ntasks`` (a
``forall``) or ``griddim`` and ``blockdim``, each an int, a tuple, or a callable of the inputs; it runs on
torch's current stream of the tensors' device. The fake implementation (``register_fake``) allocates the
results from the same specs after checking each tensor's dtype and rank against the kernel's parameter
(``fake=`` replaces it). ``backward`` (a function of the inputs then the results' gradients, returning one
gradient or None per input, typically other such ops) registers autograd. Rules and figures:
docs/native-ops.md.
"""
from __future__ import annotations

import functools
import inspect

import torch

from . import Dispatcher, Kernel, KernelSignature, _core

__all__ = ["custom_op", "Op"]

_SCHEMA_SCALAR = {"b": "bool", "i": "int", "u": "int", "f": "float"}


class _Param:
    """One kernel parameter as the op reads it: its name, kind (array, pointer, scalar), element type
    (Numba's name; 'void' for void*), rank for arrays, and whether the kernel may write it."""

    __slots__ = ("name", "text", "kind", "scalar", "ndim", "const")

    def __init__(self, name: str, text: str):
        self.name, self.text = name, text
        self.const = text.startswith("const ")
        body = text.removeprefix("const ")
        if body.endswith("*"):
            self.kind, self.scalar, self.ndim = "pointer", body[:-1].strip(), None
        elif body.endswith("]"):
            scalar, dims = body[:-1].rsplit("[", 1)
            self.kind, self.scalar, self.ndim = "array", scalar, dims.count(",") + 1
        else:
            self.kind, self.scalar, self.ndim = "scalar", body, None
        if self.scalar.startswith("Record("):
            raise TypeError(f"custom_op: parameter {name!r} ({text}) is a record; PyTorch tensors have no "
                            "structured dtype (accepted: arrays and pointers of bool, ints, floats, complex)")

    @property
    def wants_c_order(self) -> bool:
        """A pointer, or an array whose last dimension is contiguous ('[::1]', '[:, ::1]')."""
        return self.kind == "pointer" or self.kind == "array" and self.text.endswith("::1]")

    @property
    def tensor(self) -> bool:
        return self.kind != "scalar"

    def torch_dtype(self):
        return None if self.scalar == "void" else getattr(torch, self.scalar, None)

    def schema_type(self, alias: str | None) -> str:
        """The schema's type; `alias` names the alias set of a mutated tensor (one per mutated input)."""
        if self.tensor:
            return f"Tensor({alias}!)" if alias else "Tensor"
        kind = _SCALAR_KIND.get(self.scalar)
        if kind not in _SCHEMA_SCALAR:
            raise TypeError(f"custom_op: scalar parameter {self.name!r} ({self.text}) has no PyTorch schema "
                            "type (accepted: bool, int8..int64, uint8..uint64, float16/32/64)")
        return _SCHEMA_SCALAR[kind]


_SCALAR_KIND = {"bool": "b", **{f"int{n}": "i" for n in (8, 16, 32, 64)}, **{f"uint{n}": "u" for n in (8, 16, 32, 64)},
                **{f"float{n}": "f" for n in (16, 32, 64)}, "bfloat16": "f"}


def _kernel_params(kernel, signature) -> tuple[list[str], list[str]]:
    """(parameter texts, parameter names) of a cubridge.Kernel or Dispatcher."""
    if isinstance(kernel, Dispatcher):
        names = list(inspect.signature(kernel.py_func).parameters)
        texts = [KernelSignature(signature).params if signature is not None else None]
        if texts[0] is None:
            if not kernel.signatures:
                raise TypeError(f"custom_op: kernel {kernel.__name__!r} has no signature yet (a lazy @jit); give "
                                "signature='void(float32[::1], ...)' or decorate it with @cubridge.jit('void(...)')")
            texts = [KernelSignature(s).params for s in kernel.signatures]
        kinds = {tuple((p.removeprefix("const ")[-1:] in "*]", _SCALAR_KIND.get(p)) for p in t) for t in texts}
        if len(kinds) != 1:
            raise TypeError(f"custom_op: kernel {kernel.__name__!r} has signatures {kernel.signatures} whose "
                            "parameters differ in kind (tensor or scalar type); an op has one schema: give "
                            "signature= to pick one")
        return list(texts[0]), names
    if isinstance(kernel, Kernel):
        texts = list(KernelSignature(signature).params if signature is not None else kernel.signature.params)
        return texts, [f"arg{i}" for i in range(len(texts))]
    raise TypeError(f"custom_op: {kernel!r} ({type(kernel).__name__}) is not a cubridge kernel; pass a "
                    "@cubridge.jit function or a cubridge.Kernel from cubridge.load_kernel")


def _extent(value, args, what: str):
    if callable(value):
        value = value(*args)
    values = (value,) if isinstance(value, int) else value
    if (not isinstance(values, (tuple, list)) or not 1 <= len(values) <= 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)):
        raise TypeError(f"custom_op: {what} {value!r} is not an int or a tuple of 1 to 3 ints (a callable of "
                        "the op's inputs may return either)")
    return values[0] if len(values) == 1 else tuple(values)


def _raw_stream(index: int) -> int:
    handle = torch._C._cuda_getCurrentRawStream(index)
    return handle if handle else 1  # torch's null stream is the legacy default stream (CAI's 1)


class _Op:
    """What the op's implementations share: the parameters, which are inputs and results, the specs."""

    def __init__(self, kernel, params: list[_Param], inputs: list[int], results: list[int], out_specs, single: bool,
                 mutated: list[str], ntasks, griddim, blockdim, sharedmem: int, qualname: str):
        self.kernel, self.params, self.inputs, self.results = kernel, params, inputs, results
        self.single = single  # one result is returned as a Tensor, as PyTorch's schema "-> (Tensor)" reads
        self.out_specs, self.ntasks, self.griddim, self.blockdim = out_specs, ntasks, griddim, blockdim
        self.sharedmem, self.qualname = sharedmem, qualname
        self.input_names = [params[i].name for i in inputs]
        self.tensor_inputs = [n for n, i in enumerate(inputs) if params[i].tensor]
        # Inputs the kernel only reads and wants C-contiguous: a strided view (an expanded gradient, a slice) is
        # passed as a contiguous copy. Written inputs never are (the writes would be lost): their launch says why.
        self.contiguous = [n for n, i in enumerate(inputs) if params[i].wants_c_order and params[i].name not in mutated]
        # A dispatcher with one signature runs that signature's loaded kernel, found per call (per device, and
        # again after recompile()) by one dict lookup; other dispatchers launch through their own lazy launch.
        self.one_signature = kernel._eager[0] if isinstance(kernel, Dispatcher) and len(kernel._eager) == 1 else None
        slots = inputs + results  # the op's arguments then its results, each at its kernel parameter
        self.order = [slots.index(i) for i in range(len(params))]
        self.likes = [self.input_names.index(s) if isinstance(s, str) else None for s in out_specs]

    def _device(self, args) -> torch.device:
        if not self.tensor_inputs:
            return torch.device("cuda", torch.cuda.current_device())
        return args[self.tensor_inputs[0]].device

    def results_for(self, args, device):
        outs = []
        for spec, like in zip(self.out_specs, self.likes):
            if like is not None:  # C order whatever the input's strides: the kernel writes it as [::1]
                outs.append(torch.empty_like(args[like], memory_format=torch.contiguous_format))
            else:
                shape, dtype = spec(*args)
                outs.append(torch.empty(shape, dtype=dtype, device=device))
        return outs

    def check(self, args) -> None:
        """The dtype and rank of each tensor argument against its parameter (used by the fake
        implementation, so torch.compile reports a mismatch while tracing)."""
        for n, i in enumerate(self.inputs):
            p, a = self.params[i], args[n]
            if not p.tensor:
                continue
            if not isinstance(a, torch.Tensor):
                raise TypeError(f"{self.qualname}: argument {p.name!r} ({p.text}) must be a tensor, got "
                                f"{type(a).__name__} {a!r}")
            want = p.torch_dtype()
            if want is not None and a.dtype != want:
                raise TypeError(f"{self.qualname}: argument {p.name!r} has dtype {a.dtype}, but the kernel's "
                                f"parameter is {p.text} (dtype {want})")
            if p.ndim is not None and a.dim() != p.ndim:
                raise TypeError(f"{self.qualname}: argument {p.name!r} has {a.dim()} dimensions, but the "
                                f"kernel's parameter is {p.text} ({p.ndim})")

    def fake(self, *args):
        self.check(args)
        outs = self.results_for(args, self._device(args))
        return self._returned(outs)

    def _returned(self, outs):
        if not self.out_specs:
            return None
        return outs[0] if self.single else tuple(outs)

    def launch(self, *args):
        if self.contiguous:
            args = list(args)
            for n in self.contiguous:
                if not args[n].is_contiguous():
                    args[n] = args[n].contiguous()
        current = torch._C._cuda_getDevice()  # CUDA is initialised: the tensors live there
        index = args[self.tensor_inputs[0]].get_device() if self.tensor_inputs else current
        outs = self.results_for(args, index)
        values = [*args, *outs]
        ordered = [values[slot] for slot in self.order]
        if index != current:
            with torch.cuda.device(index):
                self._launch(ordered, args, index)
        else:
            self._launch(ordered, args, index)
        return self._returned(outs)

    def _launch(self, ordered, args, index: int) -> None:
        # A loaded kernel as it is; a dispatcher (lazy or with signatures) through its own launch, which
        # finds the specialization in C++, cached per argument types (specialize() is numba's API: a
        # numba-cuda program served by cubridge refuses it on a dispatcher made with signatures).
        kernel = self.kernel
        if self.one_signature is not None and not kernel.extensions:
            kernel = kernel._kernel(self.one_signature)
        stream = _raw_stream(index)
        if self.ntasks is not None:
            n = self.ntasks(*args) if callable(self.ntasks) else self.ntasks
            launch = kernel.forall(n, stream, self.sharedmem)
        else:
            launch = kernel[_extent(self.griddim, args, "griddim"), _extent(self.blockdim, args, "blockdim"),
                            stream, self.sharedmem]
        try:
            launch(*ordered)
        except (TypeError, ValueError) as e:  # an argument the kernel refuses: say which op was called
            raise type(e)(f"{self.qualname}: {e}") from None


def _resolve(*paths):
    """The torch functions the direct call asks, or None where this PyTorch lacks one (then every call goes
    through the dispatcher: the direct call is taken only where each question can be asked)."""
    found = []
    for path in paths:
        obj = torch
        for part in path.split("."):
            obj = getattr(obj, part, None)
        if not callable(obj):
            return None
        found.append(obj)
    return found


# torch.jit's trace: _is_tracing (a bool) where this PyTorch has it, else _get_tracing_state (None when not tracing).
_TRACING_IS_BOOL = callable(getattr(torch._C, "_is_tracing", None))
_ASKED = _resolve("_C._is_torch_function_mode_enabled", "_C._len_torch_dispatch_stack",
                  "_C._functorch.peek_interpreter_stack", "_C._is_tracing" if _TRACING_IS_BOOL else "_C._get_tracing_state",
                  "_C._autograd._profiler_enabled")
# Dynamo reads it as True while it traces; one Python frame (is_compiling() costs two).
_is_compiling = getattr(torch.compiler, "is_dynamo_compiling", torch.compiler.is_compiling)
if _ASKED is not None:
    _function_modes, _dispatch_modes, _transforms, _tracing, _profiling = _ASKED
_Tensor = torch.Tensor


def _compiled_answers():
    """cubridge._torch_glue's table (the questions above, a tensor's facts, the allocation and the current stream
    asked in C++), where the package was built against this very PyTorch; else None (the Python functions). The
    decision is the array imports' own (``_core._torch_glue_table``)."""
    return _core._torch_glue_table()


_NATIVE = _compiled_answers()


class Op:
    """What ``custom_op`` returns: the operator ``overload`` (``torch.ops.<ns>.<name>.default``) as a
    callable. Every attribute is the overload's (``_schema``, ``name()``, ...). A call goes through
    PyTorch's dispatcher except where the dispatcher would only call the op's CUDA implementation: then
    (the direct call) the implementation is called as the dispatcher would call it, which saves the
    dispatcher's ~3 µs of boxing the arguments into a Python implementation. The checks and the
    implementation's common case (every result allocated like an input) run in one C++ call
    (``_core._DirectOp``); other results, strided inputs and device switches take the Python implementation.
    Where the package was built against this very PyTorch (``cubridge._torch_glue``), the questions below,
    each tensor's facts, the results' allocation and the current stream are asked of PyTorch in C++; else
    through torch's Python functions, with the same answers.
    The direct call is taken when every one of these holds, else the dispatcher is used:

    - not inside ``torch.compile`` (Dynamo traces the overload itself), no ``torch.jit`` trace, no profiler;
    - no ``__torch_function__`` override or mode, no ``__torch_dispatch__`` mode (FakeTensorMode,
      FunctionalTensorMode, ...), no functorch transform (``vmap``, ``grad``);
    - the arguments are positional, one per input: each tensor input an exact ``torch.Tensor`` on a CUDA
      device that requires no gradient and has no conjugate or negative bit (an exact type has no
      ``__torch_function__`` of its own; the dispatcher resolves the bits first: ``x.conj().imag`` is a float
      tensor with a negative bit), each
      scalar an exact ``bool``, ``int`` or ``float`` as its schema type (the dispatcher converts others);
    - the op mutates no input (PyTorch's dispatcher keeps the version counters of mutated inputs).
    """

    # No __slots__: Dynamo, tracing a compiled function that calls the op, guards on the object's __dict__.

    def __init__(self, overload, op: "_Op", direct: bool):
        self.overload, self._op = overload, op
        self._direct = direct and _ASKED is not None
        params = [op.params[i] for i in op.inputs]
        self._count = len(params)
        self._tensors = tuple(n for n, p in enumerate(params) if p.tensor)
        # each scalar input with the exact Python types its schema type takes as they are
        self._scalars = tuple((n, _EXACT[_SCALAR_KIND[p.scalar]]) for n, p in enumerate(params) if not p.tensor)
        # The checks above and the implementation's common case (every result allocated like an input), in C++.
        one = op.one_signature
        self._call = _core._DirectOp(
            implementation=op.launch, falsy_guards=[_function_modes, _dispatch_modes, _profiling] +
            ([_tracing] if _TRACING_IS_BOOL else []) if self._direct else [],
            none_guards=[_transforms] + ([] if _TRACING_IS_BOOL else [_tracing]) if self._direct else [], count=self._count,
            tensor_type=_Tensor, tensors=list(self._tensors),
            scalars=[(n, list(exact)) for n, exact in self._scalars], fast=all(like is not None for like in op.likes),
            results=len(op.likes), likes=[like for like in op.likes if like is not None],
            contiguous=list(op.contiguous), order=op.order, empty_like=torch.empty_like,
            contiguous_format=torch.contiguous_format, raw_stream=torch._C._cuda_getCurrentRawStream,
            kernel=op.kernel, kernels=None if one is None else op.kernel._kernels, signature=one,
            kernel_for=None if one is None else functools.partial(op.kernel._kernel, one), ntasks=op.ntasks,
            griddim=op.griddim,
            blockdim=op.blockdim, sharedmem=op.sharedmem, single=op.single, qualname=op.qualname,
            native=_NATIVE if self._direct else None)

    def __call__(self, *args, **kwargs):
        # Dynamo reads is_compiling() as True and traces the overload alone: nothing else here is traced.
        if _is_compiling() or kwargs or not self._direct:
            return self.overload(*args, **kwargs)
        result = self._call(*args)  # NotImplemented: the dispatcher must take the call
        return self.overload(*args) if result is NotImplemented else result

    def __getattr__(self, name):
        return getattr(self.overload, name)

    def __repr__(self) -> str:
        return f"cubridge.torch.Op({self.overload!r})"


_EXACT = {"b": (bool,), "i": (int,), "u": (int,), "f": (float,)}


def custom_op(kernel, *, out=None, mutates_args=(), ntasks=None, griddim=None, blockdim=None, sharedmem: int = 0,
              name: str | None = None, signature=None, fake=None, backward=None):
    """A PyTorch operator (an ``Op`` over ``torch.ops.<ns>.<name>.default``; call it like a function) that
    launches `kernel` on torch's current stream. See this module's docstring for the rules of each argument."""
    texts, names = _kernel_params(kernel, signature)
    if len(names) != len(texts):
        raise TypeError(f"custom_op: kernel {kernel.__name__!r} has {len(names)} Python parameters but its "
                        f"signature has {len(texts)} ({', '.join(texts)})")
    params = [_Param(n, t) for n, t in zip(names, texts)]
    kname = getattr(kernel, "__name__", None) or kernel.name
    specs = () if out is None else tuple(out) if isinstance(out, (tuple, list)) else (out,)
    tensor_params = [i for i, p in enumerate(params) if p.tensor]
    if len(specs) > len(tensor_params):
        raise ValueError(f"custom_op: {len(specs)} results, but kernel {kname!r} has only {len(tensor_params)} "
                         f"array or pointer parameters to write them ({', '.join(texts)})")
    results = tensor_params[len(tensor_params) - len(specs):] if specs else []
    inputs = [i for i in range(len(params)) if i not in results]
    input_names = [params[i].name for i in inputs]
    for r, spec in zip(results, specs):
        if params[r].const:
            raise ValueError(f"custom_op: result parameter {params[r].name!r} is {params[r].text}; a result is "
                             "written by the kernel, so it cannot be const")
        if isinstance(spec, str):
            if spec not in input_names or not params[inputs[input_names.index(spec)]].tensor:
                raise ValueError(f"custom_op: out={spec!r} names no tensor input of kernel {kname!r} (its tensor "
                                 f"inputs: {[n for n in input_names if params[inputs[input_names.index(n)]].tensor]})")
        elif not callable(spec):
            raise TypeError(f"custom_op: out spec {spec!r} is neither the name of an input nor a callable of the "
                            "inputs returning (shape, dtype)")
    mutated = list(mutates_args) if isinstance(mutates_args, (tuple, list, set, frozenset)) else None
    if mutated is None:
        raise TypeError(f"custom_op: mutates_args={mutates_args!r} is not a collection of input names")
    for m in mutated:
        if m not in input_names or not params[inputs[input_names.index(m)]].tensor:
            raise ValueError(f"custom_op: mutates_args names {m!r}, which is no tensor input of kernel {kname!r} "
                             f"(its inputs: {input_names})")
        if params[inputs[input_names.index(m)]].const:
            raise ValueError(f"custom_op: mutates_args names {m!r}, but its parameter is const "
                             f"({params[inputs[input_names.index(m)]].text})")
    if not specs and not mutated:
        raise ValueError(f"custom_op: kernel {kname!r} would have no effect visible to PyTorch: give out= "
                         "(results it writes) or mutates_args= (inputs it writes)")
    if (ntasks is None) == (griddim is None and blockdim is None) or (ntasks is None and None in (griddim, blockdim)):
        raise TypeError("custom_op: give either ntasks= (a forall launch) or both griddim= and blockdim=")
    if not isinstance(sharedmem, int) or isinstance(sharedmem, bool) or sharedmem < 0:
        raise ValueError(f"custom_op: sharedmem={sharedmem!r} is not a number of bytes >= 0")
    qualname = name if name is not None else f"cubridge::{kname}"
    if "::" not in qualname:
        qualname = f"cubridge::{qualname}"
    ns, opname = qualname.split("::", 1)
    if hasattr(getattr(torch.ops, ns), opname):
        raise ValueError(f"custom_op: an operator {qualname!r} is already registered; give another name=")

    aliases = {m: f"a{n}" for n, m in enumerate(n for n in input_names if n in mutated)}
    ins = ", ".join(f"{params[i].schema_type(aliases.get(params[i].name))} {params[i].name}" for i in inputs)
    single = len(specs) == 1
    rets = "()" if not specs else "Tensor" if single else "(" + ", ".join(["Tensor"] * len(specs)) + ")"
    op = _Op(kernel, params, inputs, results, specs, single, mutated, ntasks, griddim, blockdim, sharedmem, qualname)
    lib = _library(ns)
    lib.define(f"{opname}({ins}) -> {rets}")
    lib.impl(opname, op.launch, "CUDA")
    torch.library.register_fake(qualname, fake if fake is not None else op.fake, lib=lib)
    if backward is not None:
        _register_backward(qualname, lib, op, backward)
    return Op(getattr(getattr(torch.ops, ns), opname).default, op, direct=not mutated)


_LIBRARIES: dict[str, torch.library.Library] = {}  # kept alive: a Library's registrations end with it


def _library(ns: str) -> torch.library.Library:
    lib = _LIBRARIES.get(ns)
    if lib is None:
        lib = _LIBRARIES[ns] = torch.library.Library(ns, "FRAGMENT")
    return lib


def _register_backward(qualname: str, lib, op: _Op, backward) -> None:
    def setup_context(ctx, inputs, output):
        tensors = [inputs[n] for n in op.tensor_inputs]
        ctx.save_for_backward(*tensors)
        ctx.others = [None if n in op.tensor_inputs else v for n, v in enumerate(inputs)]

    def grad(ctx, *grads):
        values = list(ctx.others)
        for n, t in zip(op.tensor_inputs, ctx.saved_tensors):
            values[n] = t
        result = backward(*values, *grads)
        result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(result) != len(op.inputs):
            raise ValueError(f"{op.qualname}: backward returned {len(result)} gradients, but the op has "
                             f"{len(op.inputs)} inputs ({', '.join(op.input_names)}); return one per input "
                             "(None where there is none)")
        return result

    torch.library.register_autograd(qualname, grad, setup_context=setup_context, lib=lib)
