"""cubridge.torch.custom_op on a GPU: results equal PyTorch's eagerly, on torch's current stream (a side
stream, and the capture stream of torch.cuda.graph, where a launch on any other stream fails the capture),
under torch.compile(fullgraph=True) with no graph break and results equal to eager, under
mode="reduce-overhead" with no CUDA-graph skip and replays that follow new inputs, with mutated inputs,
several results, scalars, a loaded (PTX) kernel with griddim/blockdim, and autograd through a backward op."""
import warnings

import pytest

torch = pytest.importorskip("torch")

import cubridge  # noqa: E402
import cubridge.torch as ct  # noqa: E402
import torch_kernels  # noqa: E402
from torch_kernels import add, scale_rows  # noqa: E402,F401

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _cuda():
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")


def unique(stem: str) -> str:
    return torch_kernels.unique(stem, "cubridge_gpu_test")


@cubridge.jit("void(const float32[::1], float32[::1], float64[::1])")
def square_and_cube(x, sq, cube):
    i = cubridge.grid(1)
    if i < x.size:
        sq[i] = x[i] * x[i]
        cube[i] = x[i] * x[i] * x[i]


@cubridge.jit("void(const float32[::1], const float32[::1], float32[::1])")
def mul(x, y, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i] * y[i]


def add_op():
    return ct.custom_op(add, out="x", ntasks=lambda x, y: x.numel(), name=unique("add"))


def test_eager_equals_torch(answers):
    op = add_op()
    x, y = torch.randn(10_000, device="cuda"), torch.randn(10_000, device="cuda")
    torch.testing.assert_close(op(x, y), x + y)


def test_runs_on_the_current_side_stream(answers):
    op = add_op()
    s = torch.cuda.Stream()
    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn(1 << 20, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        z = op(x, y)
        w = z * 2  # ordered after the op on s only if the op ran on s
    s.synchronize()
    torch.testing.assert_close(w, (x + y) * 2)


def test_several_results_and_scalars_and_mutation():
    sc = ct.custom_op(square_and_cube, out=("x", lambda x: (x.shape, torch.float64)), ntasks=lambda x: x.numel(),
                      name=unique("sc"))
    x = torch.randn(777, device="cuda")
    sq, cube = sc(x)
    torch.testing.assert_close(sq, x * x)
    torch.testing.assert_close(cube, (x * x * x).double())
    scale = ct.custom_op(scale_rows, mutates_args=("x",), ntasks=lambda x, f, r: r, name=unique("scale"))
    m = torch.randn(50, 7, device="cuda")
    expected = m * 3
    assert scale(m, 3.0, m.shape[0]) is None
    torch.testing.assert_close(m, expected)


def test_a_loaded_kernel_with_griddim_and_blockdim():
    ptx, _ = cubridge.compile(add.py_func, "void(const float32[::1], const float32[::1], float32[::1])",
                              device=False, abi="numba", output="ptx",
                              cc=tuple(torch.cuda.get_device_capability()))
    k = cubridge.load_kernel(ptx, None, "void(const float32[::1], const float32[::1], float32[::1])")
    op = ct.custom_op(k, out="arg0", griddim=lambda a, b: (a.numel() + 127) // 128, blockdim=128,
                      name=unique("loaded"))
    assert str(op._schema).endswith("(Tensor arg0, Tensor arg1) -> Tensor")
    a, b = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
    torch.testing.assert_close(op(a, b), a + b)


def test_a_loaded_kernel_whose_griddim_callable_returns_a_list():
    # a list is an extent the op accepts as its Python implementation does (the C++ direct call hands it over)
    ptx, _ = cubridge.compile(add.py_func, "void(const float32[::1], const float32[::1], float32[::1])",
                              device=False, abi="numba", output="ptx",
                              cc=tuple(torch.cuda.get_device_capability()))
    k = cubridge.load_kernel(ptx, None, "void(const float32[::1], const float32[::1], float32[::1])")
    op = ct.custom_op(k, out="arg0", griddim=lambda a, b: [(a.numel() + 63) // 64], blockdim=(64,),
                      name=unique("loaded_list"))
    a, b = torch.randn(300, device="cuda"), torch.randn(300, device="cuda")
    torch.testing.assert_close(op(a, b), a + b)


def test_a_refused_argument_of_a_direct_call_names_the_op():
    op = add_op()
    c = counted(op)
    x = torch.randn(16, device="cuda", dtype=torch.float64)
    with pytest.raises(TypeError, match=r"^cubridge_gpu_test::add_\d+: .*float32"):
        op(x, x)
    assert c.calls == 0  # refused by the direct call's launch, not by the dispatcher


def test_a_strided_input_is_read_through_a_contiguous_copy():
    op = add_op()
    x, y = torch.randn(64, device="cuda"), torch.randn(64, device="cuda")
    torch.testing.assert_close(op(x[::2], y[::2]), x[::2] + y[::2])
    torch.testing.assert_close(op(x[:1].expand(32), y[:32]), x[0] + y[:32])


def test_a_strided_written_input_is_refused_naming_the_op():
    scale = ct.custom_op(scale_rows, mutates_args=("x",), ntasks=lambda x, f, r: r, name=unique("scale"))
    m = torch.randn(8, 6, device="cuda")
    with pytest.raises(TypeError, match=r"cubridge_gpu_test::scale_\d+: argument 0: an array that is not "
                                        r"C-contiguous"):
        scale(m[:, ::2], 2.0, 8)


def test_compile_fullgraph_equals_eager_with_no_graph_break():
    op = add_op()

    def f(x, y):
        return torch.relu(op(x, y)) * 2

    x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
    explained = torch._dynamo.explain(f)(x, y)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(x, y), f(x, y))


def test_compile_fullgraph_of_a_mutating_op():
    scale = ct.custom_op(scale_rows, mutates_args=("x",), ntasks=lambda x, f, r: r, name=unique("scale"))

    def f(x):
        scale(x, 2.0, x.shape[0])
        return x + 1

    m = torch.randn(64, 5, device="cuda")
    expected = m * 2 + 1
    torch._dynamo.reset()
    out = torch.compile(f, fullgraph=True)(m)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(m, expected - 1)  # the input was written, as mutates_args says


def test_reduce_overhead_captures_one_graph_and_replays_new_inputs():
    from torch._dynamo.utils import counters

    op = add_op()

    def f(x, y):
        return op(x, y) * y

    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):  # warm-up runs, then recording, then replays
        x, y = torch.randn(2048, device="cuda"), torch.randn(2048, device="cuda")
        torch.testing.assert_close(compiled(x, y).clone(), (x + y) * y)
    assert not counters["inductor"]["cudagraph_skips"], dict(counters["inductor"])


def test_torch_cuda_graph_capture_and_replay(answers):
    op = add_op()
    x, y = torch.randn(5000, device="cuda"), torch.randn(5000, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        op(x, y)  # warm-up: the module is loaded before the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        z = op(x, y)
    x.copy_(torch.randn(5000, device="cuda"))
    g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(z, x + y)


def test_autograd_through_a_backward_op():
    mul_op = ct.custom_op(mul, out="x", ntasks=lambda x, y: x.numel(), name=unique("mul_bwd"))
    op = ct.custom_op(mul, out="x", ntasks=lambda x, y: x.numel(), name=unique("mul"),
                      backward=lambda x, y, grad: (mul_op(grad, y), mul_op(grad, x)))
    x = torch.randn(300, device="cuda", requires_grad=True)
    y = torch.randn(300, device="cuda", requires_grad=True)
    gx, gy = torch.autograd.grad(op(x, y).sum(), (x, y))
    torch.testing.assert_close(gx, y.detach())
    torch.testing.assert_close(gy, x.detach())


# --- the direct eager call (cubridge.torch.Op): the dispatcher is skipped only where it would do nothing more
# than call the op's CUDA implementation; results are the dispatcher's, and every other case goes through it.

@cubridge.jit("void(const float32[::1], float32, float32[::1])")
def scaled(x, factor, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i] * factor


class _Counting:
    """Stands in for an Op's overload: counts the calls that reach PyTorch's dispatcher."""

    def __init__(self, overload):
        self.overload, self.calls = overload, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.overload(*args, **kwargs)


def counted(op) -> _Counting:
    c = _Counting(op.overload)
    op.overload = c
    return c


def test_every_question_of_the_direct_call_can_be_asked_in_this_pytorch():
    assert ct._ASKED is not None, "a torch function the direct call asks is missing: every call takes the dispatcher"


def test_the_compiled_answers_are_taken_where_built_against_this_pytorch():
    import importlib.util
    if importlib.util.find_spec("cubridge._torch_glue") is None:
        pytest.skip("cubridge._torch_glue was not built (no PyTorch where the package was built)")
    from cubridge import _torch_glue
    assert _torch_glue.torch_version == torch.__version__
    assert ct._NATIVE is _torch_glue.table


@pytest.fixture(params=["compiled", "python"])
def answers(request, monkeypatch):
    """The direct call asking PyTorch in C++ (cubridge._torch_glue) or through torch's Python functions: the ops
    a test makes take that path; both must decide and compute the same."""
    if request.param == "compiled" and ct._NATIVE is None:
        pytest.skip("cubridge._torch_glue is not built against this PyTorch")
    if request.param == "python":
        monkeypatch.setattr(ct, "_NATIVE", None)
    return request.param


def test_an_eager_call_of_plain_cuda_tensors_skips_the_dispatcher_with_its_results(answers):
    op = add_op()
    c = counted(op)
    x, y = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
    z = op(x, y)
    assert c.calls == 0
    torch.testing.assert_close(z, x + y)
    torch.testing.assert_close(c(x, y), z)  # the dispatcher's result
    s = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    cs = counted(s)
    torch.testing.assert_close(s(x, 2.5), x * 2.5)
    assert cs.calls == 0


def _mode_cases():
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class FunctionMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class DispatchMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    return {"torch_function_mode": FunctionMode, "torch_dispatch_mode": DispatchMode,
            "profiler": lambda: torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])}


@pytest.mark.parametrize("case", ["requires_grad", "keywords", "parameter_subclass", "int_for_a_float",
                                  "torch_function_mode", "torch_dispatch_mode", "profiler", "mutating_op",
                                  "jit_trace", "vmap"])
def test_the_dispatcher_takes_every_call_where_it_does_more(case, answers):
    x = torch.randn(64, device="cuda")
    if case == "mutating_op":
        op = ct.custom_op(scale_rows, mutates_args=("x",), ntasks=lambda x, f, r: r, name=unique("scale"))
        c = counted(op)
        m = torch.ones(4, 3, device="cuda")
        op(m, 2.0, 4)
        assert c.calls == 1 and torch.all(m == 2)
        return
    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    c = counted(op)
    if case == "requires_grad":
        out = op(x.clone().requires_grad_(), 2.0)
    elif case == "keywords":
        out = op(x=x, factor=2.0)
    elif case == "parameter_subclass":
        out = op(torch.nn.Parameter(x, requires_grad=False), 2.0)
    elif case == "int_for_a_float":
        out = op(x, 2)
    elif case == "jit_trace":  # the trace records the op only where the dispatcher takes the call
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's own warnings about a Python value in the trace
            traced = torch.jit.trace(lambda t: op(t, 2.0), (x,), check_trace=False)
        assert c.calls == 1
        out = traced(x)
    elif case == "vmap":  # a functorch transform: the dispatcher's batching rule (here: a loop over the batch)
        try:
            out = torch.vmap(lambda t: op(t, 2.0))(x.reshape(4, 16)).reshape(64)
        except RuntimeError as e:  # this PyTorch has no fallback for a custom op without a vmap rule
            assert "vmap" in str(e)
            assert c.calls == 1
            return
    else:
        with _mode_cases()[case]():
            out = op(x, 2.0)
    assert c.calls == 1
    torch.testing.assert_close(out.detach(), x * 2)


def test_a_negated_float_view_goes_to_the_dispatcher_which_resolves_it(answers):
    # x.conj().imag is a float32 tensor with PyTorch's negative bit: its memory holds -x; the dispatcher resolves
    # the bit before the implementation runs, so the op reads the values PyTorch shows.
    z = torch.complex(torch.randn(64, device="cuda"), torch.randn(64, device="cuda"))
    x = z.conj().imag
    assert x.dtype == torch.float32 and x.is_neg()
    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    c = counted(op)
    out = op(x, 2.0)
    assert c.calls == 1
    torch.testing.assert_close(out, -z.imag * 2.0)


FACTOR = 2.0


@cubridge.jit("void(const float32[::1], float32[::1])")
def times_factor(x, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i] * FACTOR


def test_a_recompiled_kernel_is_what_the_next_direct_call_runs(answers):
    global FACTOR
    op = ct.custom_op(times_factor, out="x", ntasks=lambda x: x.numel(), name=unique("times"))
    c = counted(op)
    x = torch.randn(100, device="cuda")
    try:
        torch.testing.assert_close(op(x), x * 2.0)
        FACTOR = 3.0
        times_factor.recompile()  # numba-cuda's recompile: the global is read again
        torch.testing.assert_close(op(x), x * 3.0)
    finally:
        FACTOR = 2.0
        times_factor.recompile()
    assert c.calls == 0


def test_a_zero_tensor_goes_to_the_dispatcher_with_the_compiled_answers():
    # torch._efficientzerotensor has no memory of its own (PyTorch's ZeroTensor key): only the dispatcher knows it
    if ct._NATIVE is None:
        pytest.skip("cubridge._torch_glue is not built against this PyTorch")
    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    c = counted(op)
    zt = torch._efficientzerotensor((64,), device="cuda")
    try:
        out = op(zt, 2.0)
    except (RuntimeError, NotImplementedError):  # a PyTorch whose dispatcher refuses it: refused, never misread
        assert c.calls == 1
        return
    assert c.calls == 1
    torch.testing.assert_close(out, torch.zeros(64, device="cuda"))


def test_a_cpu_tensor_goes_to_the_dispatcher_which_refuses_it(answers):
    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    c = counted(op)
    with pytest.raises(NotImplementedError):
        op(torch.randn(8), 2.0)
    assert c.calls == 1


@pytest.mark.parametrize("case", ["one_element_with_a_stride", "empty", "row_of_a_matrix"])
def test_inputs_pytorch_calls_contiguous_take_the_direct_call(case, answers):
    # PyTorch's is_contiguous(): a dimension of extent 1 may have any stride, an empty tensor is contiguous.
    base = torch.randn(64, 8, device="cuda")
    x = {"one_element_with_a_stride": base[:1, 3], "empty": base[:0, 2], "row_of_a_matrix": base[3]}[case]
    assert x.is_contiguous()
    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    c = counted(op)
    out = op(x, 3.0)
    assert c.calls == 0
    torch.testing.assert_close(out, x * 3.0)
    # allocated as the fake implementation allocates (C order), whatever stride x has on an extent of 1
    assert out.stride() == torch.empty_like(x, memory_format=torch.contiguous_format).stride() == (1,)


def test_a_strided_input_of_the_direct_call_is_copied_not_read_in_place(answers):
    base = torch.randn(64, 8, device="cuda")
    x = base[:, 5]  # stride 8: not contiguous
    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name=unique("scaled"))
    c = counted(op)
    out = op(x, 3.0)
    assert c.calls == 0 and out.is_contiguous()
    torch.testing.assert_close(out, x * 3.0)


def test_the_op_forwards_the_overloads_attributes():
    op = add_op()
    assert op._schema is op.overload._schema and op.name() == op.overload.name()
    assert repr(op).startswith("cubridge.torch.Op(")
