// Internal: Type names, type-name parsing and signature parsing (include/cubridge/types/type.hpp).
#include "cubridge/types/type.hpp"

#include <stdexcept>
#include <utility>

#include "support/spelling_text.hpp"
#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "types/record_spelling.hpp"

namespace cubridge {

Type Type::tuple(std::vector<Type> elements) {
  Type t(TypeKind::Tuple, 0, false);
  t.elements_ = std::move(elements);
  return t;
}

Type Type::array(const Type& dtype, int ndim, char layout, bool readonly) {
  Type t(TypeKind::Array, ndim, false);
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
  t.ints_ = std::move(offsets);
  t.size_ = size;
  t.readonly_ = aligned;
  return t;
}

Type Type::nested_array(const Type& dtype, std::vector<std::int64_t> shape) {
  Type t(TypeKind::NestedArray, static_cast<int>(shape.size()), false);
  t.elements_ = {dtype};
  t.ints_ = std::move(shape);
  t.layout_ = 'C';
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
    case TypeKind::Complex: return bits_ / 8;
    case TypeKind::Record: return size_;
    case TypeKind::NestedArray: {
      std::int64_t n = elements_[0].storage_size();
      for (std::int64_t d : ints_) n *= d;
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

std::string Type::name() const {
  switch (kind_) {
    case TypeKind::Unknown: return "unknown";
    case TypeKind::None: return "none";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return (signed_ ? "int" : "uint") + std::to_string(bits_);
    case TypeKind::Float: return "float" + std::to_string(bits_);
    case TypeKind::Complex: return "complex" + std::to_string(bits_);
    case TypeKind::Tuple: {
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
             elements_[0].name() + ", " + std::to_string(bits_) + "d, " + std::string(1, layout_) + ")";
    case TypeKind::Record: {
      std::string s = "Record(";
      for (std::size_t i = 0; i < names_.size(); ++i)
        s += (i ? "," : "") + names_[i] + "[type=" + elements_[i].name() + ";offset=" + std::to_string(ints_[i]) + "]";
      return s + ";" + std::to_string(size_) + ";" + (readonly_ ? "True" : "False") + ")";
    }
    case TypeKind::NestedArray: {
      std::string s = "nestedarray(" + elements_[0].name() + ", (";
      for (std::size_t i = 0; i < ints_.size(); ++i) s += (i ? ", " : "") + std::to_string(ints_[i]);
      return s + (ints_.size() == 1 ? ",))" : "))");
    }
    case TypeKind::Optional: return "OptionalType(" + elements_[0].name() + ")";
  }
  return "?";
}

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

// The compiler's number types: the rows that NumPy has (every one but bfloat16).
Type number_type(const ScalarTypeInfo& row) {
  const int bits = 8 * row.itemsize;
  switch (row.kind) {
    case 'b': return Type::boolean();
    case 'i': return Type::integer(bits, true);
    case 'u': return Type::integer(bits, false);
    case 'f': return Type::floating(bits);
    default: return Type::complex(bits);
  }
}

// Names of the language beyond the table's spellings: Python's builtins (int, float, complex denote the
// types Python's values have), NumPy's aliases of them (int_, float_; byte), and C's double.
constexpr std::pair<std::string_view, ScalarType> kPythonNames[] = {
    {"int", ScalarType::Int64},     {"int_", ScalarType::Int64},   {"byte", ScalarType::UInt8},
    {"float", ScalarType::Float64}, {"float_", ScalarType::Float64}, {"double", ScalarType::Float64},
    {"complex", ScalarType::Complex128},
};

std::optional<Type> scalar_by_name(std::string_view n) {
  if (n == "none" || n == "void") return Type::none();
  if (const ScalarTypeInfo* row = scalar_type_spelled(n); row != nullptr && row->numpy()) return number_type(*row);
  for (const auto& [name, type] : kPythonNames)
    if (name == n) return number_type(scalar_type_info(type));
  return std::nullopt;
}

}  // namespace

std::string accepted_type_names() {
  return "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, "
         "complex64, complex128 (aliases: intp, uintp, i1..i8, u1..u8, f2, f4, f8, c8, c16, double, half), "
         "UniTuple(T x N), Tuple(T, ...), arrays T[:], T[:, ::1] (C), T[::1, :] (F), array(T, 2d, C), "
         "optionally 'const ' (read-only)";
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
  if (!spelling || spelling->ndim < 1) return std::nullopt;
  auto dtype = parse_type_name(spelling->element);
  if (!dtype || !(dtype->is_scalar() || dtype->is_record())) return std::nullopt;
  return Type::array(*dtype, spelling->ndim, spelling->layout, readonly);
}

}  // namespace

std::size_t Type::leaf_count() const noexcept {
  if (kind_ != TypeKind::Tuple) return 1;
  std::size_t n = 0;
  for (const Type& e : elements_) n += e.leaf_count();
  return n;
}

namespace {

std::optional<Type> parse_type_name_at(std::string_view name, int depth);

// Tuples built from a spelling: at most kMaxTupleLeaves values in all, checked before one is built (a
// 62-character spelling of nested UniTuples asks for 10**9 of them).
Type checked_tuple(std::vector<Type> elements, std::size_t copies, std::string_view name) {
  std::size_t leaves = 0;
  for (const Type& e : elements) leaves += e.leaf_count();
  if (leaves * copies > kMaxTupleLeaves)
    throw std::invalid_argument("type " + spelling_text::quoted(name.size() > 80 ? name.substr(0, 77) : name) +
                                (name.size() > 80 ? "...: " : ": ") + "a tuple of " +
                                std::to_string(leaves * copies) + " values; tuples hold at most " +
                                std::to_string(kMaxTupleLeaves));
  if (copies == 1) return Type::tuple(std::move(elements));
  return Type::tuple(std::vector<Type>(copies, elements.front()));
}

}  // namespace

std::optional<Type> parse_type_name(std::string_view name) { return parse_type_name_at(name, 0); }

namespace {

std::optional<Type> parse_type_name_at(std::string_view name, int depth) {
  if (depth > kMaxTypeNesting)
    throw std::invalid_argument("type " + spelling_text::quoted(name.substr(0, 40)) + "...: types nest at most " +
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
      if (!t || !t->is_array()) return std::nullopt;
      return t->with_array(t->ndim(), t->layout(), true);
    }
  if (name.back() == ']' || name.starts_with("array(")) return array_type(name, false);
  auto parse_args = [&parse_type_name](std::string_view inner) -> std::optional<std::vector<Type>> {
    std::vector<Type> elems;
    for (std::string_view part : split_commas(inner)) {
      if (part.empty()) continue;  // "(int32,)"
      auto t = parse_type_name(part);
      if (!t || t->is_array() || t->is_record()) return std::nullopt;  // tuples hold numbers (and tuples of them)
      elems.push_back(*t);
    }
    return elems;
  };
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
    if (!elem || elem->is_array() || elem->is_record() || count.empty() || n < 1) return std::nullopt;
    return checked_tuple({*elem}, static_cast<std::size_t>(n), name);
  }
  if (name.starts_with("Tuple(") && name.back() == ')') {
    auto e = parse_args(name.substr(6, name.size() - 7));
    if (!e || e->empty()) return std::nullopt;
    return checked_tuple(std::move(*e), 1, name);
  }
  if (name.front() == '(' && name.back() == ')') {
    auto e = parse_args(name.substr(1, name.size() - 2));
    if (!e || e->empty()) return std::nullopt;
    return checked_tuple(std::move(*e), 1, name);
  }
  return std::nullopt;
}

}  // namespace

std::string Signature::str() const {
  std::string s = result ? result->name() : std::string();
  s += "(";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].name();
  return s + ")";
}

Signature parse_signature(std::string_view text) {
  std::string_view s = trim(text);
  Signature sig;
  std::string_view args = s;
  // "resty(args)": the result is everything before the first top-level '(' when the text ends in ')'.
  std::size_t open = s.find('(');
  if (!s.empty() && s.back() == ')' && open != std::string_view::npos) {
    std::string_view head = trim(s.substr(0, open));
    // "UniTuple(int32 x 2)(int32)" or "Tuple(...)(...)": find the matching ')' of the head's own '('.
    if (head == "UniTuple" || head == "Tuple" || head == "Record") {
      int depth = 0;
      std::size_t i = open;
      for (; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        if (s[i] == ')' && --depth == 0) break;
      }
      head = trim(s.substr(0, i + 1));
      open = s.find('(', i + 1);
      if (open == std::string_view::npos)
        throw std::invalid_argument("signature " + spelling_text::quoted(text) + " has no argument list after its return type");
    }
    if (!head.empty()) {
      auto r = parse_type_name(head);
      if (!r)
        throw std::invalid_argument("signature " + spelling_text::quoted(text) + ": unknown return type " +
                                    spelling_text::quoted(head) + "; accepted: " + accepted_type_names());
      sig.result = *r;
    }
    args = s.substr(open + 1, s.size() - open - 2);
  }
  for (std::string_view part : split_commas(args)) {
    if (part.empty()) continue;
    auto t = parse_type_name(part);
    if (!t || t->is_none())
      throw std::invalid_argument("signature " + spelling_text::quoted(text) + ": unknown argument type " +
                                  spelling_text::quoted(part) + "; accepted: " + accepted_type_names());
    sig.args.push_back(*t);
  }
  return sig;
}

}  // namespace cubridge
