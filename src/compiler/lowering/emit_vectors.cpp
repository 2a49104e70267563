// Internal: numba-cuda's vector types in registers (see emitter.hpp): a vector is a struct of its
// components, as numba-cuda's VectorTypeModel; the constructor lays its arguments' components out in order.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::vector_call(const Expr& e, const std::vector<Value>& args) {
  std::vector<Value> components;
  for (const Value& a : args) {
    if (!a.t.is_vector()) {
      components.push_back(a);  // make_aggregate converts it to the base type
      continue;
    }
    for (std::size_t i = 0; i < a.t.elements().size(); ++i) components.push_back(extract(a, i));
  }
  return make_aggregate(e.type, components);
}

}  // namespace cubridge::compiler
