// Internal: calls of external device functions (cuda.declare_device; see emitter.hpp), as numba-cuda
// calls them: the symbol declared and called with the arguments converted to the declared parameters,
// in their in-memory representation (bool as i8). Numba ABI: `i32 symbol(R* result, args...)`, and an
// error status (other than 0 and -2) returns from the calling function (numba-cuda's callers propagate it); C ABI:
// `R symbol(args...)`.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::external_call(const Expr& e, const std::vector<Value>& args) {
  const ExternalFunction& f = m_.options.external_functions.find(e.target)->second;
  if (f.cooperative) m_.cooperative = true;  // its code syncs the grid: the kernel is launched cooperatively
  const Type result = f.signature.result.value_or(Type::none());
  const bool numba = f.abi == Abi::numba;
  std::string rty = result.is_none() ? (numba ? "i8" : "void") : llvm_data_type(result);
  std::string params, values, slot;
  if (numba) {
    slot = alloca(rty);
    params = rty + "*";
    values = rty + "* " + slot;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Type& formal = f.signature.args[i];
    Value d = to_data(convert(args[i], formal));
    std::string sep = params.empty() ? "" : ", ";
    if (numba && formal.is_foreign() && !formal.is_foreign_opaque()) {  // StructModel.as_argument: member by member
      for (std::size_t m = 0; m < formal.elements().size(); ++m) {
        const std::string ty = llvm_data_type(formal.elements()[m]);
        params += sep + ty;
        values += sep + ty + " " + extract(d, m).v;
        sep = ", ";
      }
      continue;
    }
    params += sep + llvm_data_type(formal);
    values += sep + llvm_data_type(formal) + " " + d.v;
  }
  m_.declare("declare " + std::string(numba ? "i32" : rty) + " @" + f.symbol + "(" + params + ")");
  if (!numba) {
    std::string call = "call " + rty + " @" + f.symbol + "(" + values + ")";
    if (result.is_none()) {
      line(call);
      return {"undef", result};
    }
    return from_data(ins(call), result);
  }
  std::string status = ins("call i32 @" + f.symbol + "(" + values + ")");
  std::string ok = label("external_ok"), fail = label("external_status");
  // numba's MinimalCallConv: 0 (OK) and -2 (a None result) are success, anything else an error status
  std::string is_ok = ins("icmp eq i32 " + status + ", 0"), is_none = ins("icmp eq i32 " + status + ", -2");
  cond_br(ins("or i1 " + is_ok + ", " + is_none), ok, fail);
  start_block(fail);
  return_status(status);  // as a raise returns: from a device function its status, from a kernel entry void
  start_block(ok);
  if (result.is_none()) return {"undef", result};
  return from_data(ins("load " + rty + ", " + rty + "* " + slot), result);
}

}  // namespace cubridge::compiler
