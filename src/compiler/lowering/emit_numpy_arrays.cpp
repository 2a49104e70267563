// Internal: NumPy ufuncs called on arrays with an explicit output, np.sin(x, out) (see emitter.hpp), as
// numba-cuda compiles them in a kernel: one loop over the output's elements, each input read at the same
// index (a scalar input everywhere, an axis of length 1 broadcast), the ufunc's scalar loop applied and the
// result converted to the output's dtype. An input whose axis is neither the output's length nor 1 raises
// ValueError before anything is written, as numba's broadcasting check does.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::numpy_ufunc_on_arrays(const Expr& e, const std::vector<Value>& args) {
  const std::size_t nin = args.size() - 1;
  const Value& out = args[nin];
  const int nd = out.t.ndim();
  std::vector<Type> loop_inputs(e.formals.begin(), e.formals.begin() + static_cast<std::ptrdiff_t>(nin));
  const Type& loop_output = e.formals[nin];
  std::vector<std::string> shape;
  for (int k = 0; k < nd; ++k) shape.push_back(array_field(out, 5, k).v);
  // Broadcasting check, then each input's length along each axis (1 or the output's).
  for (std::size_t i = 0; i < nin; ++i) {
    if (!args[i].t.is_array()) continue;
    for (int k = 0; k < nd; ++k) {
      std::string dim = array_field(args[i], 5, k).v;
      std::string same = ins("icmp eq i64 " + dim + ", " + shape[static_cast<std::size_t>(k)]);
      std::string one = ins("icmp eq i64 " + dim + ", 1");
      std::string fits = ins("or i1 " + same + ", " + one);
      std::string ok = label("ufunc_fits"), bad = label("ufunc_broadcast");
      cond_br(fits, ok, bad);
      start_block(bad);
      raise_exception("builtins.ValueError",
                      {"s:unable to broadcast argument " + std::to_string(i) + " to output array"}, e.loc);
      start_block(ok);
    }
  }
  auto element = [&](const Value& a, const std::vector<std::string>& index, bool broadcast) {
    std::string ety = llvm_element_type(a.t.dtype());
    std::string offset = "0";
    for (int k = 0; k < nd; ++k) {
      std::string at = index[static_cast<std::size_t>(k)];
      if (broadcast) {
        std::string one = ins("icmp eq i64 " + array_field(a, 5, k).v + ", 1");
        at = ins("select i1 " + one + ", i64 0, i64 " + at);
      }
      std::string term = ins("mul i64 " + at + ", " + axis_stride(a, k));
      offset = offset == "0" ? term : ins("add i64 " + offset + ", " + term);
    }
    std::string bytes = ins("bitcast " + ety + "* " + array_field(a, 4).v + " to i8*");
    return ins("bitcast i8* " + ins("getelementptr i8, i8* " + bytes + ", i64 " + offset) + " to " + ety + "*");
  };
  // Nested loops over the output's axes, outermost first.
  std::vector<std::string> counters, index, conds, ends;
  for (int k = 0; k < nd; ++k) {
    std::string c = alloca("i64");
    line("store i64 0, i64* " + c);
    std::string cond = label("ufunc_axis"), body = label("ufunc_body"), end = label("ufunc_end");
    br(cond);
    start_block(cond);
    std::string at = ins("load i64, i64* " + c);
    cond_br(ins("icmp slt i64 " + at + ", " + shape[static_cast<std::size_t>(k)]), body, end);
    start_block(body);
    counters.push_back(c);
    index.push_back(at);
    conds.push_back(cond);
    ends.push_back(end);
  }
  std::vector<Value> operands;
  for (std::size_t i = 0; i < nin; ++i) {
    if (!args[i].t.is_array()) {
      operands.push_back(args[i]);
      continue;
    }
    const Type& d = args[i].t.dtype();
    std::string ety = llvm_data_type(d);
    operands.push_back(from_data(ins("load " + ety + ", " + ety + "* " + element(args[i], index, true)), d));
  }
  // A complex loop of the numpy complex prelude is a call of its function (typer: complex_ufunc_call).
  Value r = e.callee_index >= 0 ? function_call(e.callee_index, operands, loop_output)
                                : ufunc_scalar(e.target, loop_inputs, loop_output, operands);
  const Type& od = out.t.dtype();
  std::string oty = llvm_data_type(od);
  line("store " + oty + " " + to_data(convert(r, od)).v + ", " + oty + "* " + element(out, index, false));
  for (int k = nd; k-- > 0;) {
    const std::string& c = counters[static_cast<std::size_t>(k)];
    std::string next = ins("add i64 " + index[static_cast<std::size_t>(k)] + ", 1");
    line("store i64 " + next + ", i64* " + c);
    br(conds[static_cast<std::size_t>(k)]);
    start_block(ends[static_cast<std::size_t>(k)]);
  }
  return out;
}

}  // namespace cubridge::compiler
