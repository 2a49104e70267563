// Internal: typing of NumPy's whole-array reductions in kernels (see function_typer.hpp): np.sum(a),
// np.mean(a), np.all(a), np.nanmax(a), np.count_nonzero(a), ... Each call compiles the reduction's source
// for the array's rank and dtype (numpy_reductions.cpp), parsed once per process, and calls it as a module
// function: its result type is the one numba-cuda's implementation gives. They return a scalar and allocate
// nothing, so they need no device memory runtime. The method spellings (a.sum(), a.argmax(), ...) are the same
// calls with the array as the argument (typer_array_methods.cpp).
#include "compiler/kernel_library/numpy_reductions.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::numpy_reduction(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown,
                                    bool method) {
  const std::string shown = method ? "array." + fname : "np." + fname;
  if (!e.keywords.empty() || args.size() != 1 || (method && e.kids.size() != 1))
    error(e.loc, shown + "() is supported on a whole array in kernels (" + (method ? "a." + fname + "()" : shown + "(a)") +
                 "); axis=, dtype=, out= and other arguments are not: along an axis of a 2-d or larger array the "
                 "result is a new array, which numba-cuda allocates with its device memory runtime (NRT) and "
                 "cubridge's kernels do not allocate (the reductions: " + numpy_reduction_names(method) + ")");
  if (unknown) return Type();
  const Type& a = args[0];
  if (!a.is_array())
    error(e.kids[1]->loc, shown + "() takes an array here, got " + a.name() + " (kernels reduce whole arrays)");
  std::string why;
  std::optional<ReductionSource> source = numpy_reduction_source(fname, a.ndim(), a.dtype(), why);
  if (!source) error(e.loc, shown + "() of " + a.name() + " is not supported: " + why);
  if (method) e.target = "array_method";  // lowering passes the array (the callee's owner) as the argument
  return user_call(e, prelude_function(numpy_reduction_module(*source), source->function), args, false);
}

}  // namespace cubridge::compiler::typer_detail
