// Internal: numba-cuda's cache-hinted loads and stores in NVVM IR (see emitter.hpp): one inline-asm
// ld.global.<hint>.b<bits> / st.global.<hint>.b<bits> on the element's address, with numba-cuda's
// register constraints (cache_hints.py: 8-bit values in an "r" register, 16 "h", 32 "r", 64 "l").
// Both are marked sideeffect: the asm then counts as touching memory, so it is neither dropped nor
// moved across other loads and stores.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {
const char* constraint(int bits) { return bits == 16 ? "h" : bits == 64 ? "l" : "r"; }
}  // namespace

Value FunctionEmitter::cache_hint(const Expr& e) {
  const std::string& n = e.target;  // "ldcg", "stwt", ...
  bool store = n.starts_with("st");
  std::string hint = n.substr(2);
  Value a = expr(*e.kids[1]);
  const Type d = a.t.is_pointer() ? a.t.pointee() : a.t.dtype();
  std::string ptr;
  if (a.t.is_pointer()) {  // p + i items, as numba-cuda's cache hints address a CPointer
    std::string ety = llvm_element_type(d);
    Value i = convert(expr(*e.kids[2]), e.formals[0]);
    ptr = ins("getelementptr inbounds " + ety + ", " + ety + "* " + a.v + ", i64 " + i.v);
  } else {
    ptr = element_pointer(a, *e.kids[2], e.formals);
  }
  std::string ty = llvm_data_type(d);
  std::string bits = std::to_string(d.bits());
  if (!store) {
    std::string asm_text = "ld.global." + hint + ".b" + bits + " $0, [$1];";
    return {ins("call " + ty + " asm sideeffect \"" + asm_text + "\", \"=" + constraint(d.bits()) + ",l\"(" + ty + "* " +
                ptr + ")"),
            d};
  }
  Value v = convert(expr(*e.kids[3]), d);
  std::string asm_text = "st.global." + hint + ".b" + bits + " [$0], $1;";
  line("call void asm sideeffect \"" + asm_text + "\", \"l," + constraint(d.bits()) + ",~{memory}\"(" + ty + "* " + ptr +
       ", " + ty + " " + v.v + ")");
  return {"undef", Type::none()};
}

}  // namespace cubridge::compiler
