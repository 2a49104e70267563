// Internal: typing of records (see function_typer.hpp), NumPy structured dtypes as numba-cuda types them.
// A record value is an element of a record array (a[i]) and, as in Numba, refers to that element: r.x
// reads the array and r.x = v writes it. Fields are named by attribute (r.x) or by a constant key
// (r['x'], or r[0] for the first field in offset order); a field's value has the field's type, an array
// field ('v', np.float32, (3,)) reads as a C-ordered array view into the record.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

std::string field_list(const Type& record) {
  std::string s;
  for (std::size_t i = 0; i < record.field_names().size(); ++i)
    s += (i ? ", " : "") + record.field_names()[i] + " (" + record.elements()[i].name() + ")";
  return s;
}

// The ABI alignment of a field's data in NVVM (a record's own data is bytes; an array field aligns as
// its element).
std::int64_t abi_alignment(const Type& t) {
  if (t.is_nested_array()) return abi_alignment(t.dtype());
  if (t.is_record() || t.is_bool()) return 1;
  if (t.is_complex()) return t.bits() / 16;
  return t.bits() / 8;
}

}  // namespace

void FunctionTyper::check_field_alignment(const Expr& e, const Type& record, int index) {
  // numba-cuda's targets have strict alignment: a field whose offset is not a multiple of its type's
  // alignment is refused (in packed records too), as its sentry_record_alignment does.
  auto k = static_cast<std::size_t>(index);
  const Type& f = record.elements()[k];
  std::int64_t align = abi_alignment(f), offset = record.field_offsets()[k];
  if (offset % align != 0)
    error(e.loc, "field '" + record.field_names()[k] + "' (" + f.name() + ") of " + record.name() + " is at offset " +
                     std::to_string(offset) + ", not a multiple of its alignment " + std::to_string(align) +
                     "; CUDA needs aligned fields, so numba-cuda refuses it too (\"type " + f.name() +
                     " is not aligned\"): reorder the fields, pad them, or build the dtype with align=True");
}

Type FunctionTyper::field_value_type(const Type& record, int index) {
  const Type& f = record.elements()[static_cast<std::size_t>(index)];
  if (f.is_nested_array()) return Type::array(f.dtype(), f.ndim(), 'C');
  return f;
}

Type FunctionTyper::record_attribute(Expr& e, const Type& record) {
  int k = record.field_index(e.name);
  if (k < 0)
    error(e.loc, "record " + record.name() + " has no field '" + e.name + "'; its fields: " + field_list(record));
  check_field_alignment(e, record, k);
  e.field = k;
  return field_value_type(record, k);
}

Type FunctionTyper::record_subscript(Expr& e, const Type& record) {
  Expr& key = *e.kids[1];
  int k = -1;
  if (key.kind == ExprKind::Str) {
    k = record.field_index(key.name);
    if (k < 0)
      error(key.loc, "record " + record.name() + " has no field '" + key.name + "'; its fields: " +
                         field_list(record));
  } else if (key.kind == ExprKind::Int && !key.int_unsigned) {
    // Numba's static getitem with an integer: the field at that position, in offset order.
    auto n = static_cast<std::int64_t>(record.field_names().size());
    auto i = static_cast<std::int64_t>(key.ival);
    if (i >= n || i < -n)
      error(key.loc, "record field index " + std::to_string(i) + " out of range: the record has " +
                         std::to_string(n) + " field(s): " + field_list(record));
    k = static_cast<int>(i < 0 ? i + n : i);
    key.type = i64();
  } else {
    error(key.loc, "a record field key must be a constant: a string literal (r['x']) or an integer literal "
                   "(r[0]); the fields of " + record.name() + ": " + field_list(record));
  }
  check_field_alignment(e, record, k);
  e.field = k;
  return field_value_type(record, k);
}

void FunctionTyper::record_store(Expr& target, const Type& value) {
  Type base = expr(*target.kids[0]);
  if (base.is_unknown()) return;
  if (!base.is_record()) {
    if (target.kind == ExprKind::Attribute)
      error(target.loc, "cannot assign to attribute '" + target.name + "' of a value of type " + base.name() +
                            "; attributes can be assigned on records only (r.x = v, r an element of a record array)");
    error(target.loc, "cannot assign to an element of a value of type " + base.name());
  }
  Type field = target.kind == ExprKind::Attribute ? record_attribute(target, base) : record_subscript(target, base);
  target.type = field;
  const std::string& fname = base.field_names()[static_cast<std::size_t>(target.field)];
  if (value.is_unknown()) return;
  // A whole array or record field takes a copy of its bytes, as Numba's record setattr copies them.
  if (field.is_array()) {
    if (!value.is_array() || value.dtype() != field.dtype())
      error(target.loc, "cannot store a value of type " + value.name() + " into the array field '" + fname + "' (" +
                            field.name() + "); assign an array of " + field.dtype().name() +
                            " (its first elements are copied) or store the elements (r." + fname + "[k] = v)");
    return;
  }
  if (field.is_record()) {
    if (value != field)
      error(target.loc, "cannot store a value of type " + value.name() + " into the record field '" + fname +
                            "' (" + field.name() + "); it takes a record of the same dtype");
    return;
  }
  // Numba casts the stored value to the field's type (float to int included); complex cannot narrow.
  if (!value.is_scalar() || can_convert(value, field) == Conversion::None ||
      (value.is_complex() && !field.is_complex()))
    error(target.loc, "cannot store a value of type " + value.name() + " into field '" + fname + "' (" +
                          field.name() + ") of " + base.name());
}

}  // namespace cubridge::compiler::typer_detail
