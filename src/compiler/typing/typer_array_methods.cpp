// Internal: typing of array methods in kernels (see function_typer.hpp): a.reshape(shape) and a.view(dtype)
// make views of the same data, as numba-cuda's arraydecl types them; the whole-array reductions (a.sum(),
// a.argmax(), ...) are NumPy's (typer_numpy_reductions.cpp), which allocate nothing; methods that return a
// new array (a.copy(), a.astype(t), ...) need numba-cuda's NRT, which cubridge's kernels do not have, and
// are refused with that reason; others are refused as not supported.
// Methods a user adds with numba's overload_method(types.Array, name) are calls of their overload function.
#include "compiler/kernel_library/array_fill.hpp"
#include "compiler/kernel_library/numpy_reductions.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

bool is_int_shape(const Type& t) {
  if (!t.is_tuple()) return false;
  for (const Type& e : t.elements())
    if (!e.is_int()) return false;
  return true;
}

}  // namespace

std::string dot_refusal(const std::string& spelled) {
  // numba-cuda's linalg.py: dot_2_vv and the matrix forms call numba_xxdot / numba_xxgemv / numba_xxgemm,
  // host BLAS wrappers (SciPy's) that have no GPU code, after making non-contiguous operands contiguous
  // copies; so neither numba-cuda nor cubridge compiles it in a kernel.
  return spelled + " is not supported in kernels: numba-cuda lowers it to a call of the host BLAS (numba_xxdot, "
                   "through SciPy), which has no GPU version; write the loop (s = 0.0; for i in range(a.size): "
                   "s += a[i] * b[i])";
}

Type transposed_type(const Type& base) {
  // numba's resolve_T: a 1-d array is itself; C and F swap; any other layout stays 'A'.
  if (base.ndim() <= 1) return base;
  const char layout = base.layout() == 'C' ? 'F' : base.layout() == 'F' ? 'C' : 'A';
  return Type::array(base.dtype(), base.ndim(), layout, base.readonly());
}

Type FunctionTyper::array_transpose(Expr& e, const Type& base, const std::vector<Type>& args, bool function) {
  // numba's resolve_transpose: no argument or None is .T; a tuple of ints or several ints (one per axis)
  // permute the axes at run time into an 'A' array; one int on a 1-d array keeps its type. np.transpose(a,
  // axes) is a.transpose(axes) (numba's numpy_transpose).
  const std::string shown = function ? "np.transpose()" : "array.transpose()";
  if (!e.keywords.empty()) error(e.loc, shown + " takes no keyword arguments; pass the axes as a tuple");
  if (function && args.size() > 1) error(e.loc, "np.transpose(a, axes) takes the axes as one tuple");
  for (const Type& a : args)
    if (a.is_unknown()) return a;
  e.callee = Callee::Builtin;
  e.target = function ? "np_transpose" : "transpose";
  e.formals = args;
  if (args.empty() || (args.size() == 1 && args[0].is_none())) {
    e.formals.clear();
    return transposed_type(base);
  }
  const bool tuple = args.size() == 1 && args[0].is_tuple();
  const std::vector<Type> axes = tuple ? args[0].elements() : args;
  for (const Type& a : axes)
    if (!a.is_int())
      error(e.loc, shown + " takes the axes as a tuple of ints or several ints, got " +
                       (tuple ? args[0].name() : a.name()));
  if (static_cast<int>(axes.size()) != base.ndim())
    error(e.loc, shown + " of a " + std::to_string(base.ndim()) + "-d array (" + base.name() + ") takes " +
                     std::to_string(base.ndim()) + " axes, got " + std::to_string(axes.size()));
  if (!tuple && axes.size() == 1) return base;
  return Type::array(base.dtype(), base.ndim(), 'A', base.readonly());
}

Type FunctionTyper::array_method(Expr& e, const Expr& callee, const Type& base) {
  const std::string& m = callee.name;
  if (m != "reshape" && m != "view") {
    // A user's numba overload_method(types.Array, m): numba types a.m(x) as a call of the overload function
    // with (a, x). The call becomes that function's call (the name "Array.m", the array its first argument),
    // which overloaded_call resolves like any @overload'ed call.
    if (auto o = prog_.options.overloads.find("Array." + m); o != prog_.options.overloads.end()) {
      auto name = std::make_unique<Expr>();
      name->kind = ExprKind::Name;
      name->loc = callee.loc;
      name->name = o->first;
      ExprPtr self = std::move(e.kids[0]->kids[0]);
      e.kids[0] = std::move(name);  // `callee` and `m` refer to the node replaced: not used below
      e.kids.insert(e.kids.begin() + 1, std::move(self));
      return overloaded_call(e, o->first, o->second);
    }
  }
  if (is_array_reduction_method(m)) return numpy_reduction(e, m, {base}, false, true);
  if (m == "transpose") {
    std::vector<Type> args;
    for (std::size_t i = 1; i < e.kids.size(); ++i) args.push_back(expr(*e.kids[i]));
    return array_transpose(e, base, args, false);
  }
  if (m == "dot") error(e.loc, dot_refusal("array.dot()"));
  if (m == "fill") {
    // numba-cuda's overload: arr[:] = val, compiled for the array's and the value's types (array_fill.cpp).
    if (!e.keywords.empty() || e.kids.size() != 2)
      error(e.loc, "array.fill(value) takes one argument, the number stored into every element");
    Type v = expr(*e.kids[1]);
    if (v.is_unknown()) return v;
    if (!v.is_scalar())
      error(e.kids[1]->loc, "array.fill(value) takes a number, got " + v.name() + " (" + base.name() + " holds " +
                                base.dtype().name() + ")");
    e.target = "array_method";  // lowering passes the array (the callee's owner) first
    return user_call(e, prelude_function(array_fill_module(), kArrayFillFunction), {base, v}, false);
  }
  if (m == "copy" && e.kids[0]->kids[0]->constant_array && e.kids.size() == 1 && e.keywords.empty()) {
    // A captured NumPy array's copy has a shape known when compiling: a new C-contiguous, writable array in
    // the kernel's local memory (as cuda.local.array), filled from the constant, where numba-cuda allocates
    // it with NRT. In a loop each pass would need a new array, while the local one is reused: refused there.
    if (loop_depth_ > 0)
      error(e.loc, "array.copy() of the captured array '" + e.kids[0]->kids[0]->name + "' inside a loop is not "
                   "supported: cubridge copies a captured array into one local array per call site, and each pass "
                   "of a loop would need a new one (numba-cuda allocates them with NRT); copy it before the loop");
    e.callee = Callee::Builtin;
    e.target = "constant_copy";
    e.shape = e.kids[0]->kids[0]->constant_array->shape;
    return Type::array(base.dtype(), base.ndim(), 'C', false);
  }
  if (m == "ravel" && base.layout() == 'C') {
    // numba's array_ravel: a C-contiguous array's is ary.reshape(ary.size), a 1-d view of the same data.
    if (!e.keywords.empty() || e.kids.size() != 1) error(e.loc, "array.ravel() takes no arguments in kernels");
    e.callee = Callee::Builtin;
    e.target = "ravel";
    return Type::array(base.dtype(), 1, 'C', base.readonly());
  }
  if (m == "ravel")
    error(e.loc, "array.ravel() of " + base.name() + " is not supported in kernels: numba-cuda's is a view only of a "
                 "C-contiguous array; of any other layout it is a new array (a.flatten()), which numba-cuda allocates "
                 "only with its device memory runtime (NRT: CUDA_ENABLE_NRT=1), and cubridge's kernels do not allocate");
  if (m == "copy" || m == "astype" || m == "flatten" || m == "cumsum" || m == "cumprod" || m == "argsort")
    error(e.loc, "array." + m + "() is not supported in kernels: it returns a new array, which numba-cuda allocates "
                 "only with its device memory runtime (NRT: CUDA_ENABLE_NRT=1), and cubridge's kernels do not "
                 "allocate; write the loop, into a cuda.local.array or an array argument");
  if (!e.keywords.empty()) error(e.loc, "array." + m + "() takes no keyword arguments in kernels");
  std::vector<Type> args;
  for (std::size_t i = 1; i < e.kids.size(); ++i) args.push_back(m == "view" ? Type() : expr(*e.kids[i]));
  e.callee = Callee::Builtin;
  if (m == "reshape") {
    // numba's resolve_reshape: an int, a tuple of ints or several ints; a contiguous array; the same layout.
    if (args.empty()) error(e.loc, "reshape() takes at least one argument, the new shape");
    for (const Type& a : args)
      if (a.is_unknown()) return a;
    int ndim = 0;
    if (args.size() == 1 && is_int_shape(args[0])) {
      ndim = static_cast<int>(args[0].elements().size());
      if (ndim == 0)
        error(e.loc, "reshape(()) makes a 0-d array, which cubridge's kernels do not have; index the element instead");
    } else {
      for (std::size_t i = 0; i < args.size(); ++i)
        if (!args[i].is_int())
          error(e.kids[i + 1]->loc, "reshape() takes the new shape as an int, a tuple of ints or several ints, got " +
                                        args[i].name());
      ndim = static_cast<int>(args.size());
    }
    if (base.layout() == 'A')
      error(e.loc, "reshape() supports contiguous arrays only (numba-cuda's rule); " + base.name() +
                       " may have any strides: reshape a C-contiguous array");
    if (base.layout() == 'F' && base.ndim() > 1)
      error(e.loc, "reshape() of an F-ordered array (" + base.name() + ") is not supported: numba-cuda reshapes in C "
                   "order without copying, which an F-ordered array rarely allows; reshape a C-contiguous array");
    e.target = "reshape";
    e.formals = args;
    return Type::array(base.dtype(), ndim, 'C', base.readonly());
  }
  if (m == "view") {
    // numba's resolve_view: the same rank and layout, another element type; shape and strides change at run
    // time (numba's _change_dtype).
    if (args.size() != 1) error(e.loc, "array.view(dtype) takes one argument, the dtype (np.int32, x.dtype, ...)");
    std::optional<Type> to = dtype_argument(*e.kids[1]);
    if (!to || !to->is_scalar())
      error(e.kids[1]->loc, "array.view(dtype): the dtype must be a number type such as np.int32 or np.float64 (or "
                            "an array's .dtype)");
    if (base.dtype().is_record())
      error(e.loc, "view() of an array of records (" + base.name() + ") is not supported; view arrays of numbers");
    e.target = "array_view";
    e.formals = {};
    return Type::array(*to, base.ndim(), base.layout(), base.readonly());
  }
  error(e.loc, "method '" + m + "' of an array (" + base.name() + ") is not supported in kernels; arrays offer "
               ".reshape(shape), .view(dtype) and the reductions ." + numpy_reduction_names(true) + " (as a.sum())");
}

}  // namespace cubridge::compiler::typer_detail
