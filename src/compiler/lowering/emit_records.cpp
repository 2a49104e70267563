// Internal: records in NVVM IR (see emitter.hpp). A record value is the i8* address of its first byte
// (numba-cuda's record data model is a pointer too), so r = a[i] refers to the array's element and a
// field store writes the array. A field is its byte offset from that address; a packed record (NumPy's
// default, align=False) is read and written with byte alignment, as Numba does, and an aligned one with
// the field type's own alignment.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {

std::string alignment_of(const Type& record) { return record.aligned() ? "" : ", align 1"; }

}  // namespace

std::string FunctionEmitter::field_pointer(const Value& record, int field) {
  auto k = static_cast<std::size_t>(field);
  const Type& f = record.t.elements()[k];
  std::int64_t offset = record.t.field_offsets()[k];
  std::string at = offset == 0 ? record.v : ins("getelementptr i8, i8* " + record.v + ", i64 " + std::to_string(offset));
  if (f.is_record()) return at;
  std::string ety = llvm_element_type(f.is_nested_array() ? f.dtype() : f);
  return ins("bitcast i8* " + at + " to " + ety + "*");
}

Value FunctionEmitter::record_field(const Expr& e) {
  Value r = expr(*e.kids[0]);
  const Type& f = r.t.elements()[static_cast<std::size_t>(e.field)];
  std::string p = field_pointer(r, e.field);
  if (f.is_record()) return {p, f};
  if (f.is_nested_array()) return constant_shape_array(e.type, p, f.nested_shape());
  std::string ety = llvm_data_type(f);
  return from_data(ins("load " + ety + ", " + ety + "* " + p + alignment_of(r.t)), f);
}

void FunctionEmitter::record_store(const Expr& target, const Value& v) {
  Value r = expr(*target.kids[0]);
  const Type& f = r.t.elements()[static_cast<std::size_t>(target.field)];
  std::string p = field_pointer(r, target.field);
  if (f.is_record()) return copy_record(p, v);
  if (f.is_nested_array()) {  // the field's bytes from the value's data, as Numba copies them
    std::string ety = llvm_element_type(f.dtype());
    std::string to = ins("bitcast " + ety + "* " + p + " to i8*");
    std::string from = ins("bitcast " + ety + "* " + array_field(v, 4).v + " to i8*");
    return copy_bytes(to, from, f.storage_size());
  }
  Value c = f.is_char_seq() ? v : to_data(convert(v, f));  // a string constant, already the field's width
  std::string ety = llvm_data_type(f);
  line("store " + ety + " " + c.v + ", " + ety + "* " + p + alignment_of(r.t));
}

void FunctionEmitter::record_aug_assign(const Stmt& s) {
  // r.x op= v: the record is evaluated once.
  const Expr& target = *s.targets[0];
  Value r = expr(*target.kids[0]);
  const Type& f = r.t.elements()[static_cast<std::size_t>(target.field)];
  std::string p = field_pointer(r, target.field);
  std::string ety = llvm_data_type(f);
  Value cur = from_data(ins("load " + ety + ", " + ety + "* " + p + alignment_of(r.t)), f);
  Value rhs = expr(*s.value);
  Value c = to_data(convert(aug_operation(s, target, cur, rhs), f));
  line("store " + ety + " " + c.v + ", " + ety + "* " + p + alignment_of(r.t));
}

void FunctionEmitter::copy_record(const std::string& to, const Value& from) {
  copy_bytes(to, from.v, from.t.record_size());
}

void FunctionEmitter::copy_bytes(const std::string& to, const std::string& from, std::int64_t n) {
  m_.declare("declare void @llvm.memcpy.p0i8.p0i8.i64(i8* nocapture, i8* nocapture readonly, i64, i1)");
  line("call void @llvm.memcpy.p0i8.p0i8.i64(i8* " + to + ", i8* " + from + ", i64 " + std::to_string(n) +
       ", i1 false)");
}

}  // namespace cubridge::compiler
