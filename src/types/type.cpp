// Internal: Type names, type-name parsing and signature parsing (include/cubridge/types/type.hpp).
#include "cubridge/types/type.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include "cubridge/error.hpp"
#include "cubridge/types/datetime_unit.hpp"

namespace cubridge {

Type Type::scalar(ScalarType type) {
  const ScalarTypeInfo& row = scalar_type_info(type);
  const int bits = 8 * row.itemsize;
  switch (row.kind) {
    case 'b': return boolean();
    case 'i': return integer(bits, true);
    case 'u': return integer(bits, false);
    case 'f': return floating(bits);
    case 'c': return complex(bits);
    default:
      if (type == ScalarType::BFloat16) return bfloat16();
      throw cubridge::InvalidArgument(std::string(row.name) + " is no type NumPy has, so no Type of the compiler");
  }
}

Type Type::datetime(std::uint8_t unit) {
  if (datetime_unit_named(datetime_unit_name(unit)) != unit)
    throw cubridge::InvalidArgument("datetime64: unit code " + std::to_string(unit) + " names no unit; units: " +
                                    std::string(kDatetimeUnitList) + " or generic");
  Type t(TypeKind::Datetime, 64, true);
  t.unit_ = unit;
  return t;
}

Type Type::timedelta(std::uint8_t unit) {
  Type t = datetime(unit);
  t.kind_ = TypeKind::Timedelta;
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t(TypeKind::Tuple, 0, false);
  t.elements_ = std::move(elements);
  return t;
}

Type Type::named_tuple(std::string class_name, std::vector<std::string> fields, std::vector<Type> elements) {
  if (class_name.empty() || fields.size() != elements.size())
    throw cubridge::InvalidArgument("a named tuple needs its class's name and one field name per element; got '" +
                                    class_name + "' with " + std::to_string(fields.size()) + " names for " +
                                    std::to_string(elements.size()) + " elements");
  Type t = tuple(std::move(elements));
  t.names_ = std::move(fields);
  t.tuple_class_ = std::move(class_name);
  return t;
}

Type Type::foreign(std::string name, std::int64_t handle, std::vector<std::string> members,
                   std::vector<Type> member_types, std::int64_t size) {
  if (name.empty() || members.empty() || members.size() != member_types.size() || size <= 0)
    throw cubridge::InvalidArgument("a foreign type needs numba's name of it, one member name per member type and its "
                                    "size; got '" + name + "' with " + std::to_string(members.size()) + " names for " +
                                    std::to_string(member_types.size()) + " types, size " + std::to_string(size));
  for (const Type& m : member_types)
    if (!m.is_real() || m.is_bool())
      throw cubridge::InvalidArgument("foreign type '" + name + "': member type " + m.name() +
                                      " is not held (members are integers and floats)");
  Type t(TypeKind::Foreign, 0, false);
  t.tuple_class_ = std::move(name);
  t.handle_ = handle;
  t.names_ = std::move(members);
  t.elements_ = std::move(member_types);
  t.size_ = size;
  return t;
}

Type Type::foreign_opaque(std::string name, std::int64_t handle) {
  if (name.empty()) throw cubridge::InvalidArgument("an opaque foreign type needs numba's name of it");
  Type t(TypeKind::Foreign, 0, false);
  t.tuple_class_ = std::move(name);
  t.handle_ = handle;
  t.opaque_ = true;
  t.size_ = 8;  // the pointer
  return t;
}

Type Type::vector(const Type& base, int count) {
  Type t(TypeKind::Vector, 0, false);
  t.elements_.assign(static_cast<std::size_t>(count), base);
  return t;
}

Type Type::array(const Type& dtype, int ndim, char layout, bool readonly) {
  Type t(TypeKind::Array, 0, false);
  t.ndim_ = ndim;
  t.elements_ = {dtype};
  // One axis: C and F are the same layout, spelt C (Numba does the same for 1-d contiguous arrays).
  t.layout_ = (ndim == 1 && layout == 'F') ? 'C' : layout;
  t.readonly_ = readonly;
  return t;
}

Type Type::record(std::vector<std::string> names, std::vector<Type> types, std::vector<std::int64_t> offsets,
                  std::int64_t size, bool aligned) {
  Type t(TypeKind::Record, 0, false);
  t.names_ = std::move(names);
  t.elements_ = std::move(types);
  t.offsets_ = std::move(offsets);
  t.size_ = size;
  t.aligned_ = aligned;
  return t;
}

Type Type::nested_array(const Type& dtype, std::vector<std::int64_t> shape) {
  Type t(TypeKind::NestedArray, 0, false);
  t.ndim_ = static_cast<int>(shape.size());
  t.elements_ = {dtype};
  t.shape_ = std::move(shape);
  t.layout_ = 'C';
  return t;
}

Type Type::char_seq(std::int64_t count, bool unicode) {
  if (count < 1 || count > (std::int64_t{1} << 28))
    throw cubridge::InvalidArgument("a fixed-width string type holds 1 to 2**28 characters; got " + std::to_string(count));
  Type t(TypeKind::CharSeq, unicode ? 32 : 8, false);
  t.size_ = count * (unicode ? 4 : 1);
  return t;
}

Type Type::enum_member(std::string enum_class, const Type& value, bool int_enum) {
  if (enum_class.empty())
    throw cubridge::InvalidArgument("an enum member's type needs its class's name; got an empty one for values of " +
                                    value.name());
  if (!(value.is_scalar() || value.is_tuple()))
    throw cubridge::InvalidArgument("the members of enum class " + enum_class + " have values of type " + value.name() +
                                    "; kernels take enum members whose values are numbers or tuples of numbers");
  if (int_enum && !value.is_int())
    throw cubridge::InvalidArgument("the members of IntEnum class " + enum_class + " have values of type " +
                                    value.name() + "; an IntEnum's values are integers");
  Type t(int_enum ? TypeKind::IntEnumMember : TypeKind::EnumMember, 0, false);
  t.elements_ = {value};
  t.enum_class_ = std::move(enum_class);
  return t;
}

int Type::field_index(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  return -1;
}

std::int64_t Type::storage_size() const {
  switch (kind_) {
    case TypeKind::Bool: return 1;
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Complex:
    case TypeKind::BFloat16:
    case TypeKind::Fp8E4M3:
    case TypeKind::Fp8E5M2:
    case TypeKind::Fp8E8M0:
    case TypeKind::Datetime:
    case TypeKind::Timedelta: return bits_ / 8;
    case TypeKind::Record:
    case TypeKind::CharSeq:
    case TypeKind::Foreign: return size_;
    case TypeKind::Vector: return elements_[0].storage_size() * static_cast<std::int64_t>(elements_.size());
    case TypeKind::EnumMember:
    case TypeKind::IntEnumMember: return elements_[0].storage_size();  // held as its value
    case TypeKind::NestedArray: {
      std::int64_t n = elements_[0].storage_size();
      for (std::int64_t d : shape_) n *= d;
      return n;
    }
    default: return 0;
  }
}

Type Type::optional(const Type& value) {
  Type t(TypeKind::Optional, 0, false);
  t.elements_.push_back(value);
  return t;
}

Type Type::as_readonly() const {
  if (!(is_array() || is_pointer() || is_record()))
    throw cubridge::InvalidArgument("only arrays, pointers and records are read-only; " + name() + " is neither");
  Type t = *this;
  t.readonly_ = true;
  return t;
}

Type Type::pointer(const Type& pointee, bool readonly) {
  Type t(TypeKind::Pointer, 0, false);
  t.elements_.push_back(pointee);
  t.readonly_ = readonly;
  return t;
}

std::string Type::name() const {
  switch (kind_) {
    case TypeKind::Unknown: return "unknown";
    case TypeKind::None: return "none";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return (signed_ ? "int" : "uint") + std::to_string(bits_);
    case TypeKind::Float: return "float" + std::to_string(bits_);
    case TypeKind::Complex: return "complex" + std::to_string(bits_);
    case TypeKind::BFloat16: return "bfloat16";
    case TypeKind::Fp8E4M3: return "fp8_e4m3";
    case TypeKind::Fp8E5M2: return "fp8_e5m2";
    case TypeKind::Fp8E8M0: return "fp8_e8m0";
    case TypeKind::Vector: return elements_[0].name() + "x" + std::to_string(elements_.size());  // numba's
    case TypeKind::Tuple: {
      if (!tuple_class_.empty()) {  // numba prints "Point(int64 x 2)"; the field names make ours readable back
        std::string s = "NamedTuple(" + tuple_class_;
        for (std::size_t i = 0; i < elements_.size(); ++i) s += ", " + names_[i] + "=" + elements_[i].name();
        return s + ")";
      }
      bool uniform = !elements_.empty();
      for (const Type& e : elements_) uniform = uniform && e == elements_[0];
      if (uniform) return "UniTuple(" + elements_[0].name() + " x " + std::to_string(elements_.size()) + ")";
      std::string s = "Tuple(";
      for (std::size_t i = 0; i < elements_.size(); ++i) s += (i ? ", " : "") + elements_[i].name();
      return s + ")";
    }
    case TypeKind::GridGroup: return "GridGroup";
    case TypeKind::Array:
      // Numba calls an array of a packed record "unaligned" (its Array.aligned follows the record's).
      return std::string(elements_[0].is_record() && !elements_[0].aligned() ? "unaligned " : "") +
             (readonly_ ? "readonly " : "") + "array(" +
             elements_[0].name() + ", " + std::to_string(ndim_) + "d, " + std::string(1, layout_) + ")";
    case TypeKind::Record: {
      std::string s = readonly_ ? "readonly Record(" : "Record(";
      for (std::size_t i = 0; i < names_.size(); ++i)
        s += (i ? "," : "") + names_[i] + "[type=" + elements_[i].name() + ";offset=" + std::to_string(offsets_[i]) + "]";
      return s + ";" + std::to_string(size_) + ";" + (aligned_ ? "True" : "False") + ")";
    }
    case TypeKind::NestedArray: {
      std::string s = "nestedarray(" + elements_[0].name() + ", (";
      for (std::size_t i = 0; i < shape_.size(); ++i) s += (i ? ", " : "") + std::to_string(shape_[i]);
      return s + (shape_.size() == 1 ? ",))" : "))");
    }
    case TypeKind::CharSeq:  // numba's names: "[char x 12]", "[unichr x 12]"
      return std::string(bits_ == 8 ? "[char x " : "[unichr x ") + std::to_string(char_count()) + "]";
    case TypeKind::Datetime:
    case TypeKind::Timedelta:  // numba's names: "datetime64[D]", "timedelta64[]" (the generic unit)
      return std::string(kind_ == TypeKind::Datetime ? "datetime64[" : "timedelta64[") +
             std::string(datetime_unit_name(unit_)) + "]";
    case TypeKind::Optional: return "OptionalType(" + elements_[0].name() + ")";
    case TypeKind::EnumMember:  // numba's "Enum<int64>(Color)", with the class's full name
    case TypeKind::IntEnumMember:
      return std::string(kind_ == TypeKind::IntEnumMember ? "IntEnum<" : "Enum<") + elements_[0].name() + ">(" +
             enum_class_ + ")";
    case TypeKind::Foreign: return tuple_class_;  // numba's name of the type
    case TypeKind::Pointer:  // Numba's CPointer prints "float32*"; const is ours (C's spelling)
      return (readonly_ ? "const " : "") + (elements_[0].is_none() ? std::string("void") : elements_[0].name()) + "*";
  }
  return "?";
}

namespace {
void mix(std::size_t& h, std::size_t v) noexcept { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }
}  // namespace

std::size_t Type::hash() const noexcept {
  std::size_t h = static_cast<std::size_t>(kind_);
  for (std::int64_t v : {std::int64_t{bits_}, std::int64_t{signed_}, std::int64_t{ndim_}, std::int64_t{layout_},
                         std::int64_t{readonly_}, std::int64_t{aligned_}, size_, std::int64_t{unit_}})
    mix(h, static_cast<std::size_t>(v));
  for (const Type& e : elements_) mix(h, e.hash());
  for (const std::string& n : names_) mix(h, std::hash<std::string>{}(n));
  if (!tuple_class_.empty()) mix(h, std::hash<std::string>{}(tuple_class_));
  if (!enum_class_.empty()) mix(h, std::hash<std::string>{}(enum_class_));
  mix(h, static_cast<std::size_t>(handle_));
  mix(h, static_cast<std::size_t>(opaque_));
  for (std::int64_t v : offsets_) mix(h, static_cast<std::size_t>(v));
  for (std::int64_t v : shape_) mix(h, static_cast<std::size_t>(v));
  return h;
}

std::size_t Type::leaf_count() const noexcept {
  if (kind_ != TypeKind::Tuple) return 1;
  std::size_t n = 0;
  for (const Type& e : elements_) n += e.leaf_count();
  return n;
}

}  // namespace cubridge
