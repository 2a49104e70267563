// Internal: parsing the record spellings (see record_spelling.hpp). Field types are read by
// parse_type_name (numbers, records), plus the array-field forms only a record has.
#include "types/record_spelling.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "support/spelling_text.hpp"

namespace cubridge {

namespace {

using spelling_text::trim;

// `s` split at the top-level `sep` (outside brackets and parentheses); empty when they do not balance.
std::vector<std::string_view> split_top(std::string_view s, char sep) {
  spelling_text::TopLevelFields f = spelling_text::split_top_level(s, sep);
  if (!f.error.empty()) return {};
  return std::move(f.parts);
}

std::vector<std::string_view> split_commas(std::string_view s) { return split_top(s, ','); }

std::optional<std::int64_t> parse_count(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::optional<Type> field_type(std::string_view name);

// Numba's str() of a Record: "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)" (fields
// may add ";alignment=N" or ";title=T", which change nothing here); the fields come back sorted by
// offset, then name, as Numba sorts them. nullopt when malformed or a field overflows the record.
std::optional<Type> numba_record(std::string_view inner) {
  std::vector<std::string_view> parts = split_top(inner, ';');
  if (parts.size() != 3) return std::nullopt;
  auto size = parse_count(parts[1]);
  if (!size || *size < 1 || (parts[2] != "True" && parts[2] != "False")) return std::nullopt;
  struct Field {
    std::int64_t offset;
    std::string name;
    Type type;
  };
  std::vector<Field> fields;
  for (std::string_view f : split_commas(parts[0])) {
    std::size_t open = f.find('[');
    if (open == std::string_view::npos || f.back() != ']') return std::nullopt;
    Field field{-1, std::string(trim(f.substr(0, open))), Type()};
    for (std::string_view attr : split_top(f.substr(open + 1, f.size() - open - 2), ';')) {
      if (attr.starts_with("type=")) {
        auto t = field_type(attr.substr(5));
        if (!t) return std::nullopt;
        field.type = *t;
      } else if (attr.starts_with("offset=")) {
        auto o = parse_count(attr.substr(7));
        if (!o) return std::nullopt;
        field.offset = *o;
      } else if (!attr.starts_with("alignment=") && !attr.starts_with("title=")) {
        return std::nullopt;
      }
    }
    if (field.name.empty() || field.offset < 0 || field.type.is_unknown() ||
        field.offset + field.type.storage_size() > *size)
      return std::nullopt;
    for (const Field& g : fields)
      if (g.name == field.name) return std::nullopt;
    fields.push_back(std::move(field));
  }
  if (fields.empty()) return std::nullopt;
  std::stable_sort(fields.begin(), fields.end(),
                   [](const Field& a, const Field& b) { return std::tie(a.offset, a.name) < std::tie(b.offset, b.name); });
  std::vector<std::string> names;
  std::vector<Type> types;
  std::vector<std::int64_t> offsets;
  for (Field& f : fields) {
    names.push_back(std::move(f.name));
    types.push_back(std::move(f.type));
    offsets.push_back(f.offset);
  }
  return Type::record(std::move(names), std::move(types), std::move(offsets), *size, parts[2] == "True");
}

// "nestedarray(float32, (3,))", "nestedarray(int32, (2, 3))": an array field of a record.
std::optional<Type> nested_array_type(std::string_view inner) {
  std::vector<std::string_view> parts = split_commas(inner);
  if (parts.size() != 2 || parts[1].size() < 2 || parts[1].front() != '(' || parts[1].back() != ')')
    return std::nullopt;
  auto dtype = field_type(parts[0]);
  if (!dtype || dtype->is_nested_array()) return std::nullopt;
  std::vector<std::int64_t> shape;
  for (std::string_view d : split_commas(parts[1].substr(1, parts[1].size() - 2))) {
    if (d.empty()) continue;  // "(3,)"
    auto n = parse_count(d);
    if (!n || *n < 1 || *n > (1 << 24)) return std::nullopt;
    shape.push_back(*n);
  }
  if (shape.empty() || shape.size() > 32) return std::nullopt;
  return Type::nested_array(*dtype, std::move(shape));
}

// NumPy's alignment of a field type: a number's size (a complex's part), an array field's element's,
// a record's widest field's when it is aligned and 1 when packed.
std::int64_t numpy_alignment(const Type& t) {
  if (t.is_nested_array()) return numpy_alignment(t.dtype());
  if (t.is_record()) {
    std::int64_t a = 1;
    if (t.aligned())
      for (const Type& f : t.elements()) a = std::max(a, numpy_alignment(f));
    return a;
  }
  if (t.is_char_seq()) return t.bits() / 8;  // NumPy aligns 'S' to 1 byte, 'U' to 4
  return t.is_complex() ? t.bits() / 16 : t.storage_size();
}

std::optional<Type> field_type(std::string_view name);

// A field type in our own spelling: a number, string or record type name, or "T[3]", "T[2, 3]" (an array
// field).
std::optional<Type> own_field_type(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.back() == ']' && text.front() != '[') {  // "[char x 12]" is a string type
    std::size_t open = text.rfind('[');
    if (open == std::string_view::npos) return std::nullopt;
    auto element = own_field_type(text.substr(0, open));
    if (!element || element->is_nested_array()) return std::nullopt;
    std::vector<std::int64_t> shape;
    for (std::string_view d : split_commas(text.substr(open + 1, text.size() - open - 2))) {
      auto n = parse_count(d);
      if (!n || *n < 1 || *n > (1 << 24)) return std::nullopt;
      shape.push_back(*n);
    }
    if (shape.empty() || shape.size() > 32) return std::nullopt;
    return Type::nested_array(*element, std::move(shape));
  }
  return field_type(text);
}

// Our own spelling, which a user can write: "Record(x=float32, y=int32)" lays the fields out as NumPy
// does by default (packed, in order), "Record(x=int8, y=float64; aligned)" as NumPy's align=True does
// (each field at a multiple of its alignment, the size a multiple of the widest); the result is the
// same Type as Numba's spelling of that dtype.
std::optional<Type> own_record(std::string_view inner) {
  std::vector<std::string_view> parts = split_top(inner, ';');
  if (parts.empty() || parts.size() > 2 || (parts.size() == 2 && parts[1] != "aligned")) return std::nullopt;
  bool aligned = parts.size() == 2;
  std::vector<std::string> names;
  std::vector<Type> types;
  std::vector<std::int64_t> offsets;
  std::int64_t offset = 0, widest = 1;
  for (std::string_view f : split_commas(parts[0])) {
    std::size_t eq = f.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string name(trim(f.substr(0, eq)));
    auto t = own_field_type(f.substr(eq + 1));
    bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!t || !identifier || std::find(names.begin(), names.end(), name) != names.end()) return std::nullopt;
    std::int64_t align = aligned ? numpy_alignment(*t) : 1;
    offset = (offset + align - 1) / align * align;
    widest = std::max(widest, align);
    names.push_back(std::move(name));
    offsets.push_back(offset);
    offset += t->storage_size();
    types.push_back(std::move(*t));
  }
  if (names.empty()) return std::nullopt;
  std::int64_t size = (offset + widest - 1) / widest * widest;
  return Type::record(std::move(names), std::move(types), std::move(offsets), size, aligned);
}

// The type of a record field: a scalar, a record, a fixed-width string or a nested array.
std::optional<Type> field_type(std::string_view name) {
  name = trim(name);
  if (name.starts_with("nestedarray(") && name.back() == ')')
    return nested_array_type(name.substr(12, name.size() - 13));
  auto t = parse_type_name(name);
  if (!t || !(t->is_scalar() || t->is_record() || t->is_char_seq())) return std::nullopt;
  return t;
}


}  // namespace

std::optional<Type> parse_record_spelling(std::string_view inner) {
  return split_top(inner, ';').size() == 3 ? numba_record(inner) : own_record(inner);
}

}  // namespace cubridge
