"""cubridge.torch.custom_op without a GPU: the schema each kernel gives, the fake implementation (results'
shapes from the out specs, dtype and rank checked against the kernel's parameters), every refusal by its
message, and torch.compile(fullgraph=True) tracing the op with no graph break (on meta tensors, which run
the fake implementation). The launches themselves: test_torch_ops_gpu.py."""
import pytest

torch = pytest.importorskip("torch")

import cubridge  # noqa: E402
import cubridge.torch as ct  # noqa: E402
import torch_kernels  # noqa: E402
from torch_kernels import add, scale_rows  # noqa: E402,F401

def unique(stem: str) -> str:
    return torch_kernels.unique(stem, "cubridge_test")


@cubridge.jit("void(const float32[::1], float32[::1], float64[::1])")
def split(x, lo, hi):
    i = cubridge.grid(1)
    if i < x.size:
        lo[i] = x[i]
        hi[i] = x[i]


def schema(op) -> str:
    return str(op._schema).split("(", 1)[1]


def test_schema_takes_the_inputs_and_returns_the_results():
    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"))
    assert schema(op) == "Tensor x, Tensor y) -> Tensor"


def test_schema_of_scalars_and_mutated_inputs():
    op = ct.custom_op(scale_rows, mutates_args=("x",), ntasks=lambda x, f, r: r, name=unique("scale"))
    assert schema(op) == "Tensor(a0!) x, float factor, int rows) -> ()"


def test_schema_of_several_results_is_a_tuple():
    op = ct.custom_op(split, out=("x", lambda x: (x.shape, torch.float64)), ntasks=lambda x: x.numel(),
                      name=unique("split"))
    assert schema(op) == "Tensor x) -> (Tensor, Tensor)"


def test_one_result_is_a_tensor_also_when_out_is_a_tuple():
    op = ct.custom_op(add, out=("x",), ntasks=lambda x, y: x.numel(), name=unique("add"))
    assert schema(op) == "Tensor x, Tensor y) -> Tensor"
    assert isinstance(op(torch.empty(2, device="meta"), torch.empty(2, device="meta")), torch.Tensor)


def test_fake_allocates_results_from_the_specs():
    op = ct.custom_op(split, out=("x", lambda x: ((x.shape[0], 2), torch.float64)), ntasks=lambda x: x.numel(),
                      name=unique("split"))
    x = torch.empty(5, device="meta")
    lo, hi = op(x)
    assert (lo.shape, lo.dtype, lo.device.type) == ((5,), torch.float32, "meta")
    assert (hi.shape, hi.dtype) == ((5, 2), torch.float64)


def test_fake_refuses_a_dtype_the_kernel_does_not_take():
    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"))
    x = torch.empty(4, device="meta")
    with pytest.raises(TypeError, match=r"argument 'y' has dtype torch.float64, but the kernel's parameter is "
                                        r"const float32\[::1\] \(dtype torch.float32\)"):
        op(x, torch.empty(4, device="meta", dtype=torch.float64))


def test_fake_refuses_a_rank_the_kernel_does_not_take():
    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"))
    with pytest.raises(TypeError, match=r"argument 'x' has 2 dimensions, but the kernel's parameter is "
                                        r"const float32\[::1\] \(1\)"):
        op(torch.empty(2, 2, device="meta"), torch.empty(4, device="meta"))


def test_user_fake_replaces_the_default():
    seen = []

    def fake(x, y):
        seen.append(x.shape)
        return torch.empty_like(x)

    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), fake=fake, name=unique("add"))
    op(torch.empty(3, device="meta"), torch.empty(3, device="meta"))
    assert seen == [torch.Size([3])]


def test_cpu_tensors_are_refused_by_torch_with_the_op_name():
    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"))
    with pytest.raises(NotImplementedError, match="cubridge_test::add"):
        op(torch.ones(3), torch.ones(3))


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(out="z", ntasks=1), ValueError, r"out='z' names no tensor input of kernel 'add' \(its tensor inputs: "
                                          r"\['x', 'y'\]\)"),
    (dict(out=("x", "x", "x", "x"), ntasks=1), ValueError, "4 results, but kernel 'add' has only 3 array"),
    (dict(out=3, ntasks=1), TypeError, "out spec 3 is neither the name of an input nor a callable"),
    (dict(out=("x", "x"), ntasks=1), ValueError, "result parameter 'y' is const float32"),
    (dict(mutates_args=("x",), out="x", ntasks=1), ValueError, "mutates_args names 'x', but its parameter is const"),
    (dict(mutates_args=("w",), out="x", ntasks=1), ValueError, r"mutates_args names 'w', which is no tensor input"),
    (dict(mutates_args="x", out="x", ntasks=1), TypeError, "mutates_args='x' is not a collection of input names"),
    (dict(ntasks=1), ValueError, "would have no effect visible to PyTorch"),
    (dict(out="x"), TypeError, "give either ntasks= .* or both griddim= and blockdim="),
    (dict(out="x", griddim=1), TypeError, "give either ntasks="),
    (dict(out="x", ntasks=1, griddim=1, blockdim=1), TypeError, "give either ntasks="),
    (dict(out="x", ntasks=1, sharedmem=-1), ValueError, "sharedmem=-1 is not a number of bytes"),
])
def test_refusals_name_the_value(kwargs, error, message):
    with pytest.raises(error, match=message):
        ct.custom_op(add, name=unique("bad"), **kwargs)


def test_refuses_what_is_not_a_kernel():
    with pytest.raises(TypeError, match=r"custom_op: <function .*> \(function\) is not a cubridge kernel"):
        ct.custom_op(add.py_func, out="x", ntasks=1)


def test_refuses_a_lazy_kernel_without_signature():
    @cubridge.jit
    def lazy(x):
        x[0] = 1

    with pytest.raises(TypeError, match="kernel 'lazy' has no signature yet"):
        ct.custom_op(lazy, mutates_args=("x",), ntasks=1)
    op = ct.custom_op(lazy, signature="void(int32[::1])", mutates_args=("x",), ntasks=1, name=unique("lazy"))
    assert schema(op) == "Tensor(a0!) x) -> ()"


def test_refuses_signatures_whose_kinds_differ():
    @cubridge.jit(["void(float32[::1], float32)", "void(float32[::1], int32)"])
    def two(x, v):
        x[0] = v

    with pytest.raises(TypeError, match="parameters differ in kind"):
        ct.custom_op(two, mutates_args=("x",), ntasks=1)


def test_refuses_a_complex_scalar():
    @cubridge.jit("void(complex64[::1], complex64)")
    def fill(x, v):
        x[0] = v

    with pytest.raises(TypeError, match=r"scalar parameter 'v' \(complex64\) has no PyTorch schema type"):
        ct.custom_op(fill, mutates_args=("x",), ntasks=1, name=unique("fill"))


def test_refuses_a_name_already_registered():
    name = unique("add")
    ct.custom_op(add, out="x", ntasks=1, name=name)
    with pytest.raises(ValueError, match=f"an operator '{name}' is already registered"):
        ct.custom_op(add, out="x", ntasks=1, name=name)


def test_name_without_namespace_goes_to_cubridge():
    op = ct.custom_op(add, out="x", ntasks=1, name=unique("plain_add").split("::")[1])
    assert op.name().startswith("cubridge::plain_add_")


def test_compile_fullgraph_has_no_graph_break():
    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"))

    def f(x, y):
        return op(x, y) * 2

    x, y = torch.empty(16, device="meta"), torch.empty(16, device="meta")
    explained = torch._dynamo.explain(f)(x, y)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    out = torch.compile(f, backend="aot_eager", fullgraph=True)(x, y)
    assert out.shape == (16,) and out.device.type == "meta"


def test_compile_fullgraph_of_a_mutating_op():
    op = ct.custom_op(scale_rows, mutates_args=("x",), ntasks=lambda x, f, r: r, name=unique("scale"))

    def f(x):
        op(x, 2.0, x.shape[0])
        return x + 1

    x = torch.empty(4, 3, device="meta")
    assert torch._dynamo.explain(f)(x).graph_break_count == 0
    assert torch.compile(f, backend="aot_eager", fullgraph=True)(x).shape == (4, 3)


def test_backward_is_registered_and_its_gradient_count_checked():
    op = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"),
                      backward=lambda x, y, grad: (grad, grad * 2))
    x = torch.empty(4, device="meta", requires_grad=True)
    y = torch.empty(4, device="meta", requires_grad=True)
    gx, gy = torch.autograd.grad(op(x, y).sum(), (x, y))
    assert gx.shape == gy.shape == (4,)
    bad = ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"),
                       backward=lambda x, y, grad: grad)
    with pytest.raises(ValueError, match=r"backward returned 1 gradients, but the op has 2 inputs \(x, y\)"):
        torch.autograd.grad(bad(x, y).sum(), (x, y))
