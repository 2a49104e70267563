// Internal: the one grammar of type spellings (include/cubridge/types/type_spelling.hpp).
#include "cubridge/types/type_spelling.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

#include "support/spelling_text.hpp"
#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/datetime_unit.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "types/record_spelling.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// Splits at top-level commas (not inside parentheses or brackets).
std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[') ++depth;
    else if (s[i] == ')' || s[i] == ']') --depth;
    else if (s[i] == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trim(s.substr(start));
  if (!last.empty() || !out.empty()) out.push_back(last);
  return out;
}

// Names of the language beyond the table's spellings: Python's builtins (int, float, complex denote the
// types Python's values have), NumPy's aliases of them (int_, float_; byte), and C's double.
constexpr std::pair<std::string_view, ScalarType> kPythonNames[] = {
    {"int", ScalarType::Int64},     {"int_", ScalarType::Int64},   {"byte", ScalarType::UInt8},
    {"float", ScalarType::Float64}, {"float_", ScalarType::Float64}, {"double", ScalarType::Float64},
    {"complex", ScalarType::Complex128}, {"bool_", ScalarType::Bool},
};

std::optional<Type> scalar_by_name(std::string_view n) {
  if (n == "none" || n == "void") return Type::none();
  if (n == "bfloat16") return Type::bfloat16();  // numba.cuda.types.bfloat16: array elements, device functions
  if (const ScalarTypeInfo* row = scalar_type_spelled(n); row != nullptr && row->numpy()) return Type::scalar(row->type);
  for (const auto& [name, type] : kPythonNames)
    if (name == n) return Type::scalar(type);
  return std::nullopt;
}

}  // namespace

std::string accepted_type_names() {
  return "bool, int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128 (also intp, "
         "uintp, i1..i8, u1..u8, f2, f4, f8, c8, c16, bool_, boolean, half, float, double, int, complex); "
         "arrays T[:], T[:, ::1] (C), T[::1, :] (F), array(T, 2d, C) (array(T, 0d, C): 0-d); pointers T*, void*, CPointer(T) and "
         "voidptr; arrays and pointers optionally 'const ' (read-only); UniTuple(T x N), Tuple(T, ...), "
         "Record(x=float32, ...), fixed-width strings [char x N] and [unichr x N] as array elements, bfloat16 (array "
         "elements and device functions), "
         "datetime64[unit] and timedelta64[unit] (units Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, or [] generic), "
         "enum members Enum<int64>(module.Class) and IntEnum<int64>(module.Class)";
}

namespace {

// "float32[:, ::1]" or Numba's str() "array(float32, 2d, C)", after any const/readonly prefix; nullopt
// when the spelling is malformed or its element is not a scalar (the caller names the accepted forms).
std::optional<Type> array_type(std::string_view name, bool readonly) {
  std::optional<ArraySpelling> spelling;
  try {
    spelling = parse_array_spelling(name);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  if (!spelling) return std::nullopt;  // 0d too: numba's 0-d arrays (array(int64, 0d, C))
  auto dtype = parse_type_name(spelling->element);
  if (!dtype || !dtype->is_array_dtype()) return std::nullopt;
  return Type::array(*dtype, spelling->ndim, spelling->layout, readonly);
}

}  // namespace


namespace {

std::optional<Type> parse_type_name_at(std::string_view name, int depth);

// Tuples built from a spelling: at most kMaxTupleLeaves values in all, checked before one is built (a
// 62-character spelling of nested UniTuples asks for 10**9 of them).
Type checked_tuple(std::vector<Type> elements, std::size_t copies, std::string_view name) {
  std::size_t leaves = 0;
  for (const Type& e : elements) leaves += e.leaf_count();
  if (leaves * copies > kMaxTupleLeaves)
    throw cubridge::InvalidArgument("type " + spelling_text::quoted(name.size() > 80 ? name.substr(0, 77) : name) +
                                (name.size() > 80 ? "...: " : ": ") + "a tuple of " +
                                std::to_string(leaves * copies) + " values; tuples hold at most " +
                                std::to_string(kMaxTupleLeaves));
  if (copies == 1) return Type::tuple(std::move(elements));
  return Type::tuple(std::vector<Type>(copies, elements.front()));
}

}  // namespace

std::optional<Type> parse_type_name(std::string_view name) { return parse_type_name_at(name, 0); }

namespace {

// What a tuple holds: numbers, arrays (numba-cuda's tuples of arrays, passed to kernels element by element)
// and tuples of these; never pointers, records or strings.
bool tuple_element(const Type& t) { return !t.is_pointer() && !t.is_record() && !t.is_char_seq(); }

// A Python identifier in ASCII: a namedtuple's class or field name.
bool identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// numba's NPDatetime / NPTimedelta names: "datetime64[D]", "timedelta64[ms]", "datetime64[]" (the generic
// unit; also "datetime64", NumPy's name of it).
std::optional<Type> datetime_type(std::string_view name) {
  for (const bool datetime : {true, false}) {
    const std::string_view stem = datetime ? "datetime64" : "timedelta64";
    if (!name.starts_with(stem)) continue;
    std::string_view rest = name.substr(stem.size());
    if (!rest.empty() && (rest.front() != '[' || rest.back() != ']')) return std::nullopt;
    const auto unit = datetime_unit_named(rest.empty() ? rest : rest.substr(1, rest.size() - 2));
    if (!unit) return std::nullopt;
    return datetime ? Type::datetime(*unit) : Type::timedelta(*unit);
  }
  return std::nullopt;
}

// numba's CharSeq / UnicodeCharSeq names: "[char x 12]", "[unichr x 12]".
std::optional<Type> char_seq_type(std::string_view name) {
  const bool bytes = name.starts_with("[char x "), unicode = name.starts_with("[unichr x ");
  if (!(bytes || unicode) || name.back() != ']') return std::nullopt;
  std::string_view digits = trim(name.substr(bytes ? 8 : 10, name.size() - (bytes ? 9 : 11)));
  std::int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || n > (std::int64_t{1} << 28)) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (digits.empty() || n < 1 || n > (std::int64_t{1} << 28)) return std::nullopt;
  return Type::char_seq(n, unicode);
}

// An enum class's unique name as the Python layer spells it: its module and qualified name, dotted
// ("pkg.mod.Color", "mod.f.<locals>.Color@7f12"): identifier characters, '.', '<', '>' and '@'.
bool enum_class_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '<' || c == '>' || c == '@'))
      return false;
  return true;
}

std::optional<Type> parse_type_name_at(std::string_view name, int depth) {
  if (depth > kMaxTypeNesting)
    throw cubridge::InvalidArgument("type " + spelling_text::quoted(name.substr(0, 40)) + "...: types nest at most " +
                                std::to_string(kMaxTypeNesting) + " levels deep");
  const auto parse_type_name = [depth](std::string_view inner) { return parse_type_name_at(inner, depth + 1); };
  name = trim(name);
  if (name.empty()) return std::nullopt;
  if (auto t = scalar_by_name(name)) return t;
  if (name.starts_with("unaligned ")) {  // Numba's name of an array of a packed record
    auto t = parse_type_name(name.substr(10));
    if (!t || !t->is_array() || !t->dtype().is_record()) return std::nullopt;
    return t;
  }
  if (name.starts_with("Record(") && name.back() == ')') return parse_record_spelling(name.substr(7, name.size() - 8));
  for (std::string_view prefix : {std::string_view("const "), std::string_view("readonly ")})
    if (name.starts_with(prefix)) {
      auto t = parse_type_name(name.substr(prefix.size()));
      if (!t || !(t->is_array() || t->is_pointer() || t->is_record())) return std::nullopt;
      return t->as_readonly();
    }
  if (name == "voidptr") return Type::pointer(Type::none());  // numba's name of void*
  if (name.starts_with("CPointer(") && name.back() == ')') {  // numba's CPointer(float32): "float32*"
    std::string_view pointee = trim(name.substr(9, name.size() - 10));
    auto t = scalar_by_name(pointee);
    if (!t) return std::nullopt;
    return Type::pointer(*t);
  }
  if (name.back() == '*') {  // a C pointer: "float32*", "float32 *", "void*"; never a pointer to a pointer
    std::string_view pointee = trim(name.substr(0, name.size() - 1));
    auto t = pointee.empty() || pointee.back() == '*' ? std::nullopt : scalar_by_name(pointee);
    if (!t) return std::nullopt;
    return Type::pointer(*t);
  }
  if (auto t = char_seq_type(name)) return t;
  if (auto t = datetime_type(name)) return t;
  for (std::string_view prefix : {std::string_view("Enum<"), std::string_view("IntEnum<")}) {
    // numba's EnumMember / IntEnumMember: "Enum<int64>(pkg.mod.Color)" (the value's type, then the class)
    if (!name.starts_with(prefix) || name.back() != ')') continue;
    const std::size_t close = name.find(">(", prefix.size());
    if (close == std::string_view::npos) return std::nullopt;
    auto value = parse_type_name(name.substr(prefix.size(), close - prefix.size()));
    std::string_view cls = trim(name.substr(close + 2, name.size() - close - 3));
    const bool int_enum = prefix.front() == 'I';
    if (!value || !enum_class_name(cls) || !(value->is_scalar() || value->is_tuple()) || (int_enum && !value->is_int()))
      return std::nullopt;
    return Type::enum_member(std::string(cls), *value, int_enum);
  }
  if (name.back() == ']' || name.starts_with("array(")) return array_type(name, false);
  auto parse_args = [&parse_type_name](std::string_view inner) -> std::optional<std::vector<Type>> {
    std::vector<Type> elems;
    for (std::string_view part : split_commas(inner)) {
      if (part.empty()) continue;  // "(int32,)"
      auto t = parse_type_name(part);
      if (!t || !tuple_element(*t)) return std::nullopt;
      elems.push_back(*t);
    }
    return elems;
  };
  if (name.starts_with("NamedTuple(") && name.back() == ')') {  // NamedTuple(Point, x=int64, y=float64)
    std::vector<std::string_view> parts = split_commas(name.substr(11, name.size() - 12));
    if (parts.empty() || !identifier(trim(parts[0]))) return std::nullopt;
    std::vector<std::string> fields;
    std::vector<Type> elements;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      std::string_view part = parts[i];
      std::size_t eq = part.find('=');
      if (eq == std::string_view::npos || !identifier(trim(part.substr(0, eq)))) return std::nullopt;
      auto t = parse_type_name(part.substr(eq + 1));
      if (!t || !tuple_element(*t)) return std::nullopt;
      fields.emplace_back(trim(part.substr(0, eq)));
      elements.push_back(*t);
    }
    std::size_t leaves = 0;
    for (const Type& e : elements) leaves += e.leaf_count();
    if (leaves > kMaxTupleLeaves) return std::nullopt;
    return Type::named_tuple(std::string(trim(parts[0])), std::move(fields), std::move(elements));
  }
  if (name.starts_with("UniTuple(") && name.back() == ')') {
    std::string_view inner = name.substr(9, name.size() - 10);
    std::size_t x = inner.rfind(" x ");
    std::size_t comma = inner.rfind(',');
    std::size_t cut = x != std::string_view::npos ? x : comma;
    if (cut == std::string_view::npos) return std::nullopt;
    auto elem = parse_type_name(inner.substr(0, cut));
    std::string_view count = trim(inner.substr(cut + (x != std::string_view::npos ? 3 : 1)));
    int n = 0;
    for (char c : count) {
      if (c < '0' || c > '9' || n > 1000) return std::nullopt;
      n = n * 10 + (c - '0');
    }
    if (!elem || !tuple_element(*elem) || count.empty() || n < 1)
      return std::nullopt;
    return checked_tuple({*elem}, static_cast<std::size_t>(n), name);
  }
  if (name.starts_with("Tuple(") && name.back() == ')') {
    auto e = parse_args(name.substr(6, name.size() - 7));
    if (!e) return std::nullopt;
    if (e->empty()) return Type::tuple({});  // numba's Tuple(), the type of ()
    return checked_tuple(std::move(*e), 1, name);
  }
  if (name.front() == '(' && name.back() == ')') {
    auto e = parse_args(name.substr(1, name.size() - 2));
    if (!e) return std::nullopt;
    if (e->empty()) return Type::tuple({});
    return checked_tuple(std::move(*e), 1, name);
  }
  return std::nullopt;
}

}  // namespace

namespace {

// The part of `name` that names no type: the element of an array or pointer, without prefixes and
// suffixes; `name` itself when the structure around a known element is what is wrong.
std::string_view culprit(std::string_view name) {
  name = trim(name);
  for (std::string_view prefix : {std::string_view("unaligned "), std::string_view("const "), std::string_view("readonly ")})
    if (name.starts_with(prefix)) {
      std::string_view inner = name.substr(prefix.size());
      return parse_type_name(inner) ? name : culprit(inner);  // "const int32": the prefix is what is wrong
    }
  if (!name.empty() && name.back() == '*') {
    std::string_view pointee = trim(name.substr(0, name.size() - 1));
    if (pointee.empty() || (pointee.back() != '*' && !scalar_by_name(pointee))) return pointee;
    return name;
  }
  if (name.starts_with("Record(") && name.ends_with(")")) return name;
  std::optional<ArraySpelling> array = parse_array_spelling(name);  // its own complaint, when malformed
  if (array && !parse_type_name(array->element)) return culprit(array->element);
  return name;
}

}  // namespace

std::string type_spelling_error(std::string_view name) {
  using spelling_text::quoted;
  std::string_view s = trim(name);
  if (s.ends_with("*") && trim(s.substr(0, s.size() - 1)).ends_with("*"))
    return quoted(s) + " is a pointer to a pointer; pass such an address as a uint64 scalar";
  try {
    const std::string_view part = culprit(s);
    if (part.starts_with("Record("))
      return quoted(part) + " is not a record in Numba's spelling, e.g. "
             "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False), or in ours, e.g. Record(x=float32, y=int32)";
    return quoted(part) + " is not a type; accepted: " + accepted_type_names();
  } catch (const std::invalid_argument& e) {  // a malformed array spelling says what is wrong with it
    return e.what();
  }
}

}  // namespace cubridge
