// Internal: calls of numba.cuda.libdevice functions (see emitter.hpp): the __nv_ function itself, with stack
// slots for its output pointers, whose values follow the result in the returned tuple (numba-cuda's
// libdeviceimpl does the same).
#include "compiler/lowering/emitter.hpp"
#include "compiler/kernel_library/libdevice_functions.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::libdevice_call(const Expr& e, const std::vector<Value>& args) {
  LibdeviceFunction f = *libdevice_function(e.target);
  std::string rty = f.result ? llvm_value_type(*f.result) : "void";
  std::string decl = "declare " + rty + " @" + f.symbol + "(";
  std::string call = "call " + rty + " @" + f.symbol + "(";
  std::vector<std::pair<std::string, Type>> outputs;
  std::size_t next_arg = 0;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    std::string ty = llvm_value_type(f.params[i]);
    std::string sep = i ? ", " : "";
    if (f.is_output[i]) {
      std::string slot = alloca(ty);
      outputs.emplace_back(slot, f.params[i]);
      decl += sep + ty + "*";
      call += sep + ty + "* " + slot;
    } else {
      Value v = convert(args[next_arg++], f.params[i]);
      decl += sep + ty;
      call += sep + ty + " " + v.v;
    }
  }
  m_.declare(decl + ")");
  m_.uses_libdevice = true;
  std::vector<Value> parts;
  if (f.result) {
    parts.push_back({ins(call + ")"), *f.result});
  } else {
    line(call + ")");
  }
  for (const auto& [slot, t] : outputs) parts.push_back(load(slot, t));
  if (parts.size() == 1) return parts[0];
  return make_aggregate(e.type, parts);
}

}  // namespace cubridge::compiler
