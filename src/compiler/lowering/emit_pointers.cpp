// Internal: loads and stores through C pointers (see emitter.hpp): p[i] is the element i items past p, in
// the generic address space, as numba's getitem/setitem on CPointer lower it.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

std::string FunctionEmitter::pointer_element(const Expr& e) {
  Value p = expr(*e.kids[0]);
  Value i = convert(expr(*e.kids[1]), e.formals[0]);
  std::string ety = llvm_element_type(p.t.pointee());
  return ins("getelementptr inbounds " + ety + ", " + ety + "* " + p.v + ", i64 " + i.v);
}

Value FunctionEmitter::pointer_load(const Expr& e) {
  const Type& t = e.kids[0]->type.pointee();
  std::string ety = llvm_element_type(t), at = pointer_element(e);
  return from_data(ins("load " + ety + ", " + ety + "* " + at), t);
}

void FunctionEmitter::pointer_store(const Expr& target, const Value& v) {
  const Type& t = target.kids[0]->type.pointee();
  std::string ety = llvm_element_type(t), at = pointer_element(target);
  Value d = to_data(convert(v, t));
  line("store " + ety + " " + d.v + ", " + ety + "* " + at);
}

void FunctionEmitter::pointer_aug_assign(const Stmt& s) {
  const Expr& target = *s.targets[0];
  const Type& t = target.kids[0]->type.pointee();
  std::string ety = llvm_element_type(t), at = pointer_element(target);  // p and i evaluated once
  Value cur = from_data(ins("load " + ety + ", " + ety + "* " + at), t);
  Value rhs = expr(*s.value);
  Value d = to_data(convert(aug_operation(s, target, cur, rhs), t));
  line("store " + ety + " " + d.v + ", " + ety + "* " + at);
}

}  // namespace cubridge::compiler

namespace cubridge::compiler {

Value FunctionEmitter::pointer_array(const Expr& e) {
  const Type& t = e.type;
  const Type i64 = Type::integer(64, true);
  Value p = expr(*e.kids[1]);
  Value shape = expr(*e.kids[2]);
  std::vector<std::string> dims;
  if (shape.t.is_tuple()) {
    for (std::size_t k = 0; k < shape.t.elements().size(); ++k) dims.push_back(convert(extract(shape, k), i64).v);
  } else {
    dims.push_back(convert(shape, i64).v);
  }
  const std::string itemsize = std::to_string(t.dtype().storage_size());
  std::string ety = llvm_element_type(t.dtype());
  std::string data = p.v;
  if (llvm_value_type(p.t) != ety + "*") data = ins("bitcast " + llvm_value_type(p.t) + " " + p.v + " to " + ety + "*");
  std::string nitems = "1";
  for (const std::string& d : dims) nitems = ins("mul i64 " + nitems + ", " + d);
  // numba's carray/farray strides: C order from the last axis, F order from the first.
  const std::size_t n = dims.size();
  std::vector<std::string> strides(n, itemsize);
  if (t.layout() == 'F') {
    for (std::size_t k = 1; k < n; ++k) strides[k] = ins("mul i64 " + strides[k - 1] + ", " + dims[k - 1]);
  } else {
    for (std::size_t k = n - 1; k-- > 0;) strides[k] = ins("mul i64 " + strides[k + 1] + ", " + dims[k + 1]);
  }
  std::vector<std::string> pieces = {"null", "null", nitems, itemsize, data};
  pieces.insert(pieces.end(), dims.begin(), dims.end());
  pieces.insert(pieces.end(), strides.begin(), strides.end());
  return build_array(t, pieces);
}

}  // namespace cubridge::compiler
