// Internal: typing of NumPy inside kernels (see function_typer.hpp): the constants np.pi, np.e, np.inf,
// np.nan, np.euler_gamma (float64, as numba types them) and the ufuncs numba-cuda lowers, called on
// scalars (np.sin(x), np.maximum(a, b), np.isnan(v)), with numba's loop choice (numpy_ufuncs.hpp), and an
// array's dtype where numba-cuda takes a type: cuda.local.array(n, x.dtype), x.dtype.type(v); and the scalar
// bit cast v.view(np.int64).
#include "compiler/kernel_library/numpy_complex_loops.hpp"
#include "compiler/kernel_library/numpy_reductions.hpp"
#include "compiler/kernel_library/numpy_ufuncs.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

// The complex loops the emitter lowers inline (emit_numpy.cpp); the others are the numpy complex prelude's.
bool complex_loop_inline(std::string_view ufunc) {
  return ufunc == "conjugate" || ufunc == "isnan" || ufunc == "equal" || ufunc == "not_equal" ||
         ufunc == "divide" || ufunc.starts_with("logical_");
}

}  // namespace

Type FunctionTyper::numpy_constant(Expr& e, std::string_view attr) {
  double v;
  if (attr == "pi") v = M_PI;
  else if (attr == "e") v = M_E;
  else if (attr == "inf") v = INFINITY;
  else if (attr == "nan") v = NAN;
  else if (attr == "euler_gamma") v = 0.577215664901532860606512090082402431;
  else
    error(e.loc, "np." + std::string(attr) + " is not supported as a value in kernels; NumPy's constants pi, e, inf, "
                 "nan and euler_gamma are (np.float32 and friends are types, called to convert)");
  Constant c;
  c.type = f64();
  c.re = v;
  return folded(e, c);
}

Type FunctionTyper::numpy_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  if (is_numpy_reduction(fname)) return numpy_reduction(e, fname, args, unknown);
  if (fname == "dot" || fname == "vdot") error(e.loc, dot_refusal("np." + fname + "()"));
  if (fname == "transpose" && !args.empty() && (unknown || args[0].is_array()))
    return unknown ? Type() : array_transpose(e, args[0], {args.begin() + 1, args.end()}, true);
  std::optional<std::string_view> ufunc = numpy_ufunc(fname);
  if (!ufunc) {
    std::string hint = resolve_math1(fname, f64()) || resolve_math2(fname, f64(), f64())
                           ? " (numba-cuda has no GPU code for it; math." + fname + " is supported)"
                           : "";
    error(e.loc, "np." + fname + " is not supported in kernels" + hint + "; the NumPy functions numba-cuda compiles "
                 "for scalars are: " + numpy_ufunc_names());
  }
  std::string shown = "np." + fname;
  auto nin = static_cast<std::size_t>(numpy_ufunc_inputs(*ufunc));
  arity(e, shown, args.size(), nin, nin + 1);
  e.callee = Callee::NumpyUfunc;
  e.target = std::string(*ufunc);
  if (unknown) return Type();
  if (args.size() == nin + 1) return numpy_ufunc_on_arrays(e, *ufunc, shown, args);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i].is_scalar())
      error(e.kids[i + 1]->loc, shown + "() takes numbers here, got " + args[i].name() +
                                    " (kernels apply NumPy functions to scalars, element by element, or to arrays "
                                    "with an output array: np." + std::string(*ufunc) + "(x, out))");
  UfuncLoop loop = ufunc_loop(e, *ufunc, shown, args);
  e.formals = loop.inputs;
  complex_ufunc_call(e, *ufunc, loop);  // a scalar complex loop stays a call of its prelude function
  return loop.output;
}

bool FunctionTyper::complex_ufunc_call(Expr& e, std::string_view ufunc, const UfuncLoop& loop) {
  if (!loop.inputs[0].is_complex() || complex_loop_inline(ufunc)) return false;
  std::optional<std::string> impl = numpy_complex_loop(ufunc, loop.inputs[0].bits());
  // ufunc_loop refused the loops with no implementation
  user_call(e, prelude_function(numpy_complex_prelude(), *impl), loop.inputs, false);
  return true;
}

UfuncLoop FunctionTyper::ufunc_loop(Expr& e, std::string_view ufunc, const std::string& shown,
                                          const std::vector<Type>& args) {
  auto given = [&] {
    std::string s;
    for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].name();
    return s;
  };
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].is_float() && args[i].bits() == 16)
      // numba types it (float32's loop) but numba-cuda's ufunc lowering has no float16 operands.
      error(e.kids[i + 1]->loc, shown + "() on float16 is not supported (numba-cuda cannot compile NumPy functions "
                                    "on float16 values); convert with np.float32(x) first");
  auto loop = resolve_ufunc(ufunc, args);
  if (!loop)
    error(e.loc, "no implementation of " + shown + "(" + given() + "); its loops are " + ufunc_loop_list(ufunc) +
                     " (an argument must cast safely to the loop's type)");
  if (!loop->lowered)
    error(e.loc, shown + "(" + given() + ") selects NumPy's loop " + loop->signature +
                     ", which numba-cuda cannot compile for the GPU");
  if ((loop->output.is_complex() || loop->inputs[0].is_complex()) && !complex_loop_inline(ufunc) &&
      !numpy_complex_loop(ufunc, loop->inputs[0].bits()))
    error(e.loc, shown + "(" + given() + "): the complex loop " + loop->signature +
                     " is not supported (complex numbers are supported by conjugate, isnan, equal, not_equal, "
                     "divide, logical_and/or/xor/not, " + numpy_complex_loop_names() + ")");
  return *loop;
}

std::optional<Type> FunctionTyper::array_dtype_of(Expr& e) {
  if (e.kind != ExprKind::Attribute || e.name != "dtype" || !dotted(e).empty()) return std::nullopt;
  Type base = expr(*e.kids[0]);
  if (!base.is_array()) return std::nullopt;
  return base.dtype();
}

Type FunctionTyper::dtype_type_call(Expr& e, const Type& dtype) {
  // x.dtype.type(v): numba-cuda's cast to the array's element type, as np.float32(v) is.
  bool unknown = false;
  std::vector<Type> args = args_of(e, unknown);
  std::string shown = "<array>.dtype.type";
  arity(e, shown, args.size(), 1, 1);
  e.callee = Callee::TypeCast;
  e.target = dtype.name();
  e.formals = args;
  if (unknown) return Type();
  if (!args[0].is_scalar() || (args[0].is_complex() && !dtype.is_complex()))
    error(e.loc, "cannot convert " + args[0].name() + " to " + dtype.name() + " (" + shown + "(v) takes a number)");
  return dtype;
}

std::optional<Type> FunctionTyper::dtype_argument(Expr& dtype) {
  std::string dt = dotted(dtype);
  if (!dt.empty()) return parse_type_name(dt.substr(dt.rfind('.') + 1));
  return array_dtype_of(dtype);
}

Type FunctionTyper::scalar_view(Expr& e, const Type& value) {
  // numba's scalar_view: an integer or float reinterpreted as another integer or float of the same width.
  Expr& callee = *e.kids[0];
  if (e.kids.size() != 2 || !e.keywords.empty())
    error(e.loc, ".view(dtype) takes one argument, the dtype (np.int64, np.float32, x.dtype, ...)");
  e.callee = Callee::Builtin;
  e.target = "view";
  if (value.is_unknown()) return value;
  Expr& dtype = *e.kids[1];
  std::optional<Type> to = dtype_argument(dtype);
  if (!(value.is_int() || value.is_float()))
    error(callee.loc, ".view() of a value of type " + value.name() + " is not supported; integers and floats offer "
                      ".view(dtype) (numba-cuda's scalar bit cast)");
  if (!to || !(to->is_int() || to->is_float()))
    error(dtype.loc, ".view(dtype): the dtype must be an integer or float type such as np.int64, np.uint32 or "
                     "np.float32 (or an array's .dtype)");
  if (to->bits() != value.bits())
    error(e.loc, "cannot view " + value.name() + " as " + to->name() + ": a scalar's view keeps its width (" +
                     std::to_string(value.bits()) + " bits)");
  e.formals = {value};
  return *to;
}

Type FunctionTyper::numpy_ufunc_on_arrays(Expr& e, std::string_view ufunc, const std::string& shown,
                                          const std::vector<Type>& args) {
  // np.sin(x, out): numba-cuda's ufunc with an explicit output, inputs scalars or arrays of out's rank.
  const std::size_t nin = args.size() - 1;
  const Type& out = args[nin];
  const Expr& out_expr = *e.kids[nin + 1];
  if (!out.is_array())
    error(out_expr.loc, shown + "(): the output must be an array, got " + out.name() + " (" + shown +
                            "(x) returns the result for scalars)");
  if (out.readonly())
    error(out_expr.loc, shown + "() cannot write its output: it is a read-only array (" + out.name() + ")");
  std::vector<Type> elements;
  for (std::size_t i = 0; i < nin; ++i) {
    const Type& a = args[i];
    if (a.is_array() && a.ndim() != out.ndim())
      error(e.kids[i + 1]->loc, shown + "(): input " + std::to_string(i) + " is " + a.name() + " and the output " +
                                    out.name() + "; inputs of another rank than the output are not supported");
    if (!a.is_array() && !a.is_scalar())
      error(e.kids[i + 1]->loc, shown + "() takes numbers or arrays, got " + a.name());
    if (a.is_array() && !a.dtype().is_scalar())
      error(e.kids[i + 1]->loc, shown + "() takes arrays of numbers, got " + a.name());
    elements.push_back(a.is_array() ? a.dtype() : a);
  }
  UfuncLoop loop = ufunc_loop(e, ufunc, shown, elements);
  // The loop's result is stored with NumPy's 'same_kind' casting: widening or narrowing within a kind, and
  // up the kinds bool -> int -> float -> complex; never down.
  auto kind = [](const Type& t) { return t.is_bool() ? 0 : t.is_int() ? 1 : t.is_float() ? 2 : 3; };
  const Type& od = out.dtype();
  if (!od.is_scalar() || kind(loop.output) > kind(od))
    error(out_expr.loc, shown + "(): the result (" + loop.output.name() + ", loop " + loop.signature +
                            ") cannot be cast to the output's " + od.name() + " with NumPy's same_kind rule");
  // A complex loop of the prelude: its function is typed here and called per element (the call keeps
  // callee NumpyUfunc, the function's index in e.callee_index).
  if (complex_ufunc_call(e, ufunc, loop)) e.callee = Callee::NumpyUfunc;
  e.formals = loop.inputs;
  e.formals.push_back(loop.output);
  fn_.can_raise = true;  // an input that does not broadcast to the output raises ValueError
  return out;
}

}  // namespace cubridge::compiler::typer_detail
