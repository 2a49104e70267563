"""Functions written with numba's low-level extension API (@intrinsic; type_callable + lower_builtin) and the
kernels calling them, shared by the CPU tests (test_jit_numba_lowering.py) and the GPU ones
(test_jit_numba_lowering_gpu.py). numba-cuda's spelling (numba.cuda.extending) where it is installed, else
numba's with its built-in CUDA target (numba.core.extending, numba.cuda.cudaimpl's lower)."""
import math

import pytest

numba = pytest.importorskip("numba", reason="numba is not installed")
import numba.cuda  # noqa: E402
from llvmlite import ir  # noqa: E402  (numba's dependency)

try:
    from numba.cuda.extending import intrinsic, lower_builtin, type_callable  # numba-cuda
    from numba.cuda.extending import core_models as models, make_attribute_wrapper, overload_attribute, register_model
    from numba.cuda.typing.templates import AttributeTemplate
    from numba.cuda import types
except ImportError:  # numba's built-in CUDA target
    from numba.core.extending import (intrinsic, make_attribute_wrapper, models, overload_attribute, register_model,
                                      type_callable)
    from numba.core.typing.templates import AttributeTemplate
    from numba.core import types
    from numba.cuda.cudaimpl import lower as lower_builtin
from numba.cuda.cudadecl import registry as cuda_typing_registry  # noqa: E402
from numba.cuda.cudaimpl import lower_attr  # noqa: E402


@intrinsic
def identity(typingctx, x):
    def codegen(context, builder, signature, args):
        return args[0]
    return x(x), codegen


@intrinsic
def add_shifted(typingctx, x, y):
    """x + (y << 3) in LLVM IR, for two integers of one type."""
    if not (isinstance(x, types.Integer) and x == y):
        return None

    def codegen(context, builder, signature, args):
        a, b = args
        return builder.add(a, builder.shl(b, ir.Constant(b.type, 3)))
    return x(x, y), codegen


@intrinsic
def void_func(typingctx, a):
    def codegen(context, builder, signature, args):
        pass  # numba gives a void function's call its dummy value
    return types.void(types.int32), codegen


@intrinsic
def non_void_func(typingctx, a):
    def codegen(context, builder, signature, args):
        pass  # wrong: an int32 function must return a value
    return types.int32(types.int32), codegen


@intrinsic
def is_positive(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.icmp_signed(">", args[0], ir.Constant(args[0].type, 0))
    return types.boolean(x), codegen


@intrinsic
def complex_result(typingctx, x):
    def codegen(context, builder, signature, args):
        return context.get_constant_generic(builder, types.complex128, 1j)
    return types.complex128(x), codegen


def func1(x=None):
    raise NotImplementedError  # numba's lowering below is what runs


@type_callable(func1)
def _type_func1(context):
    def typer(x=None):
        if x in (None, types.none):
            return types.int32
        if isinstance(x, types.Float):
            return x
    return typer


@lower_builtin(func1)
def _func1_nullary(context, builder, sig, args):
    return context.get_constant(sig.return_type, 42)


@lower_builtin(func1, types.Float)
def _func1_unary(context, builder, sig, args):
    def func1_impl(x):
        return math.sqrt(2 * x)
    return context.compile_internal(builder, func1_impl, sig, args)


def typed_only(x):
    raise NotImplementedError  # typed below, never lowered


@type_callable(typed_only)
def _type_typed_only(context):
    def typer(x):
        return x
    return typer


def k_identity(r, x):
    r[0] = identity(x[0])


def k_add_shifted(r, x):
    r[0] = add_shifted(x[0], x[1])


def k_void(r):
    void_func(1)
    r[0] = 7


def k_is_positive(r, x):
    r[0] = 1 if is_positive(x[0]) else 2


def k_func1_nullary(r):
    r[0] = func1()


def k_func1_unary(r, x):
    r[0] = func1(x)


def d_twice_identity(x):
    return identity(x) + identity(x + 1)


@intrinsic
def load_int32(typingctx, p):
    """The int32 at a void* (numba-cuda's test_compile_jitted_subroutine reads its input so)."""
    def codegen(context, builder, signature, args):
        i32 = context.get_value_type(types.int32)
        return builder.load(builder.bitcast(args[0], i32.as_pointer()))
    return types.int32(types.voidptr), codegen


def d_load_int32(p):
    return load_int32(p) + 1


class Interval:
    """numba's extension-type example: a half-open interval, typed as IntervalType (a types.Type subclass)."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


class IntervalType(types.Type):
    def __init__(self):
        super().__init__(name="Interval")


interval_type = IntervalType()


@type_callable(Interval)
def _type_interval(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return interval_type
    return typer


class Span:
    """numba's Interval example with its data model: a StructModel of two float64 members, read as attributes."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


class SpanType(types.Type):
    def __init__(self):
        super().__init__(name="Span")


span_type = SpanType()


@register_model(SpanType)
class _SpanModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("lo", types.float64), ("hi", types.float64)])


make_attribute_wrapper(SpanType, "lo", "lo")
make_attribute_wrapper(SpanType, "hi", "hi")


@type_callable(Span)
def _type_span(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return span_type
    return typer


@lower_builtin(Span, types.Float, types.Float)
def _make_span(context, builder, sig, args):
    value = ir.Constant(context.get_value_type(sig.return_type), ir.Undefined)
    value = builder.insert_value(value, args[0], 0)
    return builder.insert_value(value, args[1], 1)


@cuda_typing_registry.register_attr
class _SpanAttributes(AttributeTemplate):
    """numba-cuda's test_property: s.width typed by an AttributeTemplate, lowered by lower_attr."""
    key = SpanType

    def resolve_width(self, s):
        return types.float64


@lower_attr(SpanType, "width")
def _span_width_attr(context, builder, sig, value):
    return builder.fsub(builder.extract_value(value, 1), builder.extract_value(value, 0))


@overload_attribute(SpanType, "mid", target="cuda")
def _span_mid(s):
    """numba-cuda's test_overload_attribute_target: an attribute implemented in Python by overload_attribute."""
    def impl(s):
        return (s.lo + s.hi) / 2
    return impl


@intrinsic
def span_width(typingctx, s):
    """hi - lo of a Span, taken by numba's calling convention (member by member)."""
    if not isinstance(s, SpanType):
        return None

    def codegen(context, builder, signature, args):
        return builder.fsub(builder.extract_value(args[0], 1), builder.extract_value(args[0], 0))
    return types.float64(s), codegen


class Counter:
    """A StructModel with a bool member: numba holds it as i1 in a value and i8 in memory."""


class CounterType(types.Type):
    def __init__(self):
        super().__init__(name="Counter")


counter_type = CounterType()


@register_model(CounterType)
class _CounterModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("n", types.int32), ("done", types.boolean)])


@type_callable(Counter)
def _type_counter(context):
    def typer(n):
        if isinstance(n, types.Integer):
            return counter_type
    return typer


class Pair:
    """A StructModel whose attributes are not its members' names: make_attribute_wrapper exposes member x as y
    and member y as x; member z has no attribute."""

    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z


class PairType(types.Type):
    def __init__(self):
        super().__init__(name="Pair")


pair_type = PairType()


@register_model(PairType)
class _PairModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", types.int64), ("y", types.float64), ("z", types.int64)])


make_attribute_wrapper(PairType, "x", "y")
make_attribute_wrapper(PairType, "y", "x")


@type_callable(Pair)
def _type_pair(context):
    def typer(x, y, z):
        if x == types.int64 and y == types.float64 and z == types.int64:
            return pair_type
    return typer


@lower_builtin(Pair, types.int64, types.float64, types.int64)
def _make_pair(context, builder, sig, args):
    value = ir.Constant(context.get_value_type(sig.return_type), ir.Undefined)
    for i, arg in enumerate(args):
        value = builder.insert_value(value, arg, i)
    return value


class HandleType(types.Opaque):
    """numba-cuda's make_dummy_type: a user's type held by numba's OpaqueModel (an i8* value)."""


handle_type = HandleType("my_handle")
register_model(HandleType)(models.OpaqueModel)


@overload_attribute(HandleType, "cuda_only", target="cuda")
def _handle_cuda_only(h):
    """numba-cuda's test_overload_attribute_target."""
    def impl(h):
        return 42
    return impl


def k_handle(res, h):
    res[0] = h.cuda_only


def k_span(r, x):
    """numba-cuda's test_attributes: an extension type made in the kernel, its members read back."""
    s = Span(x[0], x[1])
    r[0] = s.lo
    r[1] = s.hi


def d_span_difference(a, b):
    s = Span(a, b)
    return s.hi - s.lo


class Mixed:
    """A StructModel with a member cubridge has no type for (an opaque pointer) beside an int32 and an array."""


class MixedType(types.Type):
    def __init__(self):
        super().__init__(name="Mixed")


mixed_type = MixedType()


@register_model(MixedType)
class _MixedModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("n", types.int32), ("data", types.float32[::1]),
                                        ("handle", types.pyobject)])


def sine(x):
    raise NotImplementedError  # numba's lowering below is what runs


@type_callable(sine)
def _type_sine(context):
    def typer(x):
        if x == types.float32:
            return x
    return typer


@lower_builtin(sine, types.float32)
def _sine_float32(context, builder, sig, args):
    def sine_impl(x):
        return math.sin(x)  # numba-cuda: __nv_fast_sinf under fastmath, __nv_sinf otherwise
    return context.compile_internal(builder, sine_impl, sig, args)


@intrinsic
def shift_by(typingctx, x, n):
    """x << n for an n written as an integer: the codegen reads it from the signature (numba's IntegerLiteral)."""
    if not isinstance(n, types.IntegerLiteral):
        return None

    def codegen(context, builder, signature, args):
        return builder.shl(args[0], ir.Constant(args[0].type, signature.args[1].literal_value))
    return x(x, n), codegen


def k_shift_by(r, x):
    r[0] = shift_by(x[0], 3)
    r[1] = shift_by(x[0], 5)


def _double(x):
    return 2 * x


def make_read_double_write():
    """An intrinsic void(void*, void*) storing 2 * (the int32 at its first pointer) at its second one, through
    context.compile_subroutine of a cubridge.jit(device=True) function (numba-cuda's test_compiler
    test_compile_jitted_subroutine does this with numba.cuda.jit(device=True))."""
    import cubridge
    device = cubridge.jit(device=True)(_double)
    inner = types.int32(types.int32)

    @intrinsic
    def read_double_write(typingctx, src, dst):
        def codegen(context, builder, signature, args):
            i32 = context.get_value_type(types.int32)
            value = builder.load(builder.bitcast(args[0], i32.as_pointer()))
            cres = context.compile_subroutine(builder, device, inner, caching=False)
            result = context.call_internal(builder, cres.fndesc, inner, [value])
            builder.store(result, builder.bitcast(args[1], i32.as_pointer()))
            return context.get_dummy_value()
        return types.void(types.voidptr, types.voidptr), codegen
    return read_double_write


@intrinsic
def first_element(typingctx, a):
    """An array argument: numba passes its data model's struct, which cubridge does not pass to numba's code."""
    def codegen(context, builder, signature, args):
        return context.get_constant(signature.return_type, 0)
    return a.dtype(a), codegen


def external_add(x, y):
    raise NotImplementedError  # numba's lowering below calls add_cabi, linked from CUDA C++


ADD_CABI = None  # numba-cuda's CUSource of add_cabi, where numba-cuda is installed
if hasattr(numba.cuda, "CUSource"):
    from numba.cuda import cgutils

    ADD_CABI = numba.cuda.CUSource('extern "C" __device__ unsigned int add_cabi(unsigned int a, unsigned int b) '
                                   '{ return a + b; }')

    @type_callable(external_add)
    def _type_external_add(context):
        def typer(x, y):
            if x == types.uint32 and y == types.uint32:
                return types.uint32
        return typer

    @lower_builtin(external_add, types.uint32, types.uint32)
    def _lower_external_add(context, builder, sig, args):
        """numba-cuda's test_extension_adds_linkable_code: the lowering adds a link file and calls its symbol."""
        context.active_code_library.add_linking_file(ADD_CABI)
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i32, [i32, i32]), "add_cabi")
        return builder.call(fn, args)


def k_external_add(r, x, y):
    r[0] = external_add(x[0], y[0])
