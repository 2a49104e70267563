// Internal: parsing Numba's signature spelling and flattening it to PTX parameter slots.
#include "cubridge/kernel/kernel_signature.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>

#include "array/spelling_text.hpp"
#include "cubridge/array/array_spelling.hpp"
#include "cubridge/compiler/types.hpp"

namespace cubridge {

namespace {

struct TypeName {
  const char* name;
  ScalarType type;
};

// Numba's names first (they are what to_string prints), then NumPy's short typestr spellings.
constexpr TypeName kTypeNames[] = {
    {"bool", ScalarType::Bool},         {"int8", ScalarType::Int8},
    {"int16", ScalarType::Int16},       {"int32", ScalarType::Int32},
    {"int64", ScalarType::Int64},       {"uint8", ScalarType::UInt8},
    {"uint16", ScalarType::UInt16},     {"uint32", ScalarType::UInt32},
    {"uint64", ScalarType::UInt64},     {"float16", ScalarType::Float16},
    {"float32", ScalarType::Float32},   {"float64", ScalarType::Float64},
    {"complex64", ScalarType::Complex64}, {"complex128", ScalarType::Complex128},
    {"boolean", ScalarType::Bool},      {"b1", ScalarType::Bool},
    {"i1", ScalarType::Int8},           {"i2", ScalarType::Int16},
    {"i4", ScalarType::Int32},          {"i8", ScalarType::Int64},
    {"intp", ScalarType::Int64},        {"u1", ScalarType::UInt8},
    {"u2", ScalarType::UInt16},         {"u4", ScalarType::UInt32},
    {"u8", ScalarType::UInt64},         {"uintp", ScalarType::UInt64},
    {"f2", ScalarType::Float16},        {"f4", ScalarType::Float32},
    {"f8", ScalarType::Float64},        {"c8", ScalarType::Complex64},
    {"c16", ScalarType::Complex128},    {"half", ScalarType::Float16},
};

constexpr const char* kAccepted =
    "bool, int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128 (or i4, f8, "
    "...), optionally followed by [:] dimensions, e.g. float32[:, ::1], or by * for a pointer, e.g. "
    "const float32* (void* takes any dtype)";

using spelling_text::quoted;
using spelling_text::trim;

[[noreturn]] void fail(std::string_view whole, const std::string& why) {
  throw std::invalid_argument("kernel signature '" + std::string(whole) + "': " + why);
}

std::optional<ScalarType> lookup(std::string_view name) {
  for (const auto& t : kTypeNames)
    if (name == t.name) return t.type;
  return std::nullopt;
}

ScalarType scalar_named(std::string_view whole, std::string_view name) {
  if (auto t = lookup(name)) return *t;
  fail(whole, quoted(name) + " is not a type; accepted: " + kAccepted);
}

// Splits at commas that are not inside brackets or parentheses.
std::vector<std::string_view> split_top(std::string_view whole, std::string_view s) {
  spelling_text::TopLevelFields f = spelling_text::split_top_level(s);
  if (!f.error.empty()) fail(whole, f.error);
  return std::move(f.parts);
}

// "float32[:, ::1]" or "array(float32, 2d, C)"; nullopt for anything else; malformed ones fail here.
std::optional<ArraySpelling> array_spelling(std::string_view whole, std::string_view s) {
  try {
    return parse_array_spelling(s);
  } catch (const std::invalid_argument& e) {
    fail(whole, e.what());
  }
}

// A record's spelling, read by the compiler's type parser (one spelling, one parser); only its item
// size matters to a launch.
void read_record(std::string_view whole, std::string_view text, ParamKind& p) {
  auto record = compiler::parse_type_name(text);
  if (!record || !record->is_record())
    fail(whole, quoted(text) + " is not a record in Numba's spelling, e.g. "
                "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)");
  p.record = record->name();
  p.record_size = static_cast<std::uint32_t>(record->record_size());
  p.type = ScalarType::UInt8;
}

ParamKind parse_param(std::string_view whole, std::string_view text) {
  ParamKind p;
  std::string_view s = trim(text);
  if (s.empty()) fail(whole, "an empty parameter");
  bool read_only = false;
  // Numba's str() of a packed record's array starts "unaligned " (before any "readonly "): no
  // difference to a launch.
  if (s.starts_with("unaligned ")) s = trim(s.substr(10));
  for (std::string_view prefix : {std::string_view("const "), std::string_view("readonly ")}) {
    if (s.substr(0, prefix.size()) == prefix) {
      read_only = true;
      s = trim(s.substr(prefix.size()));
    }
  }
  if (s.back() == '*') {
    // A C ABI pointer: "float32*", "const float32 *", "void*".
    p.kind = ParamKind::Kind::Pointer;
    std::string_view pointee = trim(s.substr(0, s.size() - 1));
    if (!pointee.empty() && pointee.back() == '*')
      fail(whole, quoted(s) + " is a pointer to a pointer; pass such an address as a uint64 scalar");
    if (pointee == "void") {
      p.any_pointee = true;
      p.type = ScalarType::UInt8;
    } else {
      p.type = scalar_named(whole, pointee);
    }
  } else if (s.starts_with("Record(") && s.back() == ')') {
    // One record, passed by address as numba-cuda passes a DeviceRecord.
    p.kind = ParamKind::Kind::Record;
    read_record(whole, s, p);
  } else if (std::optional<ArraySpelling> array = array_spelling(whole, s)) {
    p.kind = ParamKind::Kind::Array;
    if (array->element.starts_with("Record(")) {
      read_record(whole, array->element, p);
    } else {
      p.type = scalar_named(whole, array->element);
    }
    p.ndim = array->ndim;
    p.layout = array->layout;
  } else {
    p.type = scalar_named(whole, s);
  }
  p.written = p.takes_array() && !read_only;
  return p;
}

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

const char* scalar_type_name(ScalarType t) noexcept {
  for (const auto& n : kTypeNames)
    if (n.type == t) return n.name;
  return "?";
}

std::uint32_t scalar_type_size(ScalarType t) noexcept {
  switch (t) {
    case ScalarType::Bool: case ScalarType::Int8: case ScalarType::UInt8: return 1;
    case ScalarType::Int16: case ScalarType::UInt16: case ScalarType::Float16: return 2;
    case ScalarType::Int32: case ScalarType::UInt32: case ScalarType::Float32: return 4;
    case ScalarType::Int64: case ScalarType::UInt64: case ScalarType::Float64:
    case ScalarType::Complex64: return 8;
    case ScalarType::Complex128: return 16;
  }
  return 0;
}

DType scalar_type_dtype(ScalarType t) noexcept {
  DType d;
  d.itemsize = scalar_type_size(t);
  switch (t) {
    case ScalarType::Bool: d.kind = 'b'; break;
    case ScalarType::Int8: case ScalarType::Int16: case ScalarType::Int32: case ScalarType::Int64: d.kind = 'i'; break;
    case ScalarType::UInt8: case ScalarType::UInt16: case ScalarType::UInt32: case ScalarType::UInt64: d.kind = 'u'; break;
    case ScalarType::Float16: case ScalarType::Float32: case ScalarType::Float64: d.kind = 'f'; break;
    case ScalarType::Complex64: case ScalarType::Complex128: d.kind = 'c'; break;
  }
  d.byteorder = d.itemsize == 1 ? '|' : (std::endian::native == std::endian::little ? '<' : '>');
  return d;
}

std::optional<ScalarType> scalar_type_of(const DType& dtype) noexcept {
  if (!dtype.native()) return std::nullopt;  // on every launch: a switch, not a table walk
  switch (dtype.kind) {
    case 'b': return dtype.itemsize == 1 ? std::optional(ScalarType::Bool) : std::nullopt;
    case 'i':
      switch (dtype.itemsize) {
        case 1: return ScalarType::Int8;
        case 2: return ScalarType::Int16;
        case 4: return ScalarType::Int32;
        case 8: return ScalarType::Int64;
      }
      return std::nullopt;
    case 'u':
      switch (dtype.itemsize) {
        case 1: return ScalarType::UInt8;
        case 2: return ScalarType::UInt16;
        case 4: return ScalarType::UInt32;
        case 8: return ScalarType::UInt64;
      }
      return std::nullopt;
    case 'f':
      switch (dtype.itemsize) {
        case 2: return ScalarType::Float16;
        case 4: return ScalarType::Float32;
        case 8: return ScalarType::Float64;
      }
      return std::nullopt;
    case 'c':
      switch (dtype.itemsize) {
        case 8: return ScalarType::Complex64;
        case 16: return ScalarType::Complex128;
      }
      return std::nullopt;
  }
  return std::nullopt;
}

std::string ParamKind::to_string() const {
  std::string s = is_pointer() && any_pointee ? "void" : !record.empty() ? record : scalar_type_name(type);
  if (!takes_array()) return s;
  if (!written) s = "const " + s;
  if (is_pointer()) return s + '*';
  if (is_record()) return s;
  s += '[';
  for (int i = 0; i < ndim; ++i) {
    if (i) s += ", ";
    bool contiguous = (layout == 'C' && i == ndim - 1) || (layout == 'F' && i == 0);
    s += contiguous ? "::1" : ":";
  }
  return s + ']';
}

KernelSignature::KernelSignature(std::vector<ParamKind> params) : params_(std::move(params)) {
  first_slot_.reserve(params_.size() + 1);
  std::uint32_t offset = 0;
  auto add = [&](std::uint32_t size) {
    offset = align_up(offset, size);
    slots_.push_back({offset, size});
    offset += size;
  };
  for (std::size_t i = 0; i < params_.size(); ++i) {
    ParamKind& p = params_[i];
    first_slot_.push_back(static_cast<std::uint32_t>(slots_.size()));
    if (p.is_array()) {
      if (p.ndim < 1 || p.ndim > 32)
        throw std::invalid_argument("kernel signature: parameter " + std::to_string(i) + " has " +
                                    std::to_string(p.ndim) + " dimensions; arrays have 1 to 32");
      if (p.layout != 'C' && p.layout != 'F' && p.layout != 'A')
        throw std::invalid_argument("kernel signature: parameter " + std::to_string(i) + " has layout '" +
                                    std::string(1, p.layout) + "'; accepted: 'C', 'F', 'A'");
      if (p.ndim == 1 && p.layout == 'F') p.layout = 'C';  // one axis: both orders are the same
      ++array_count_;
      for (int k = 0; k < 5 + 2 * p.ndim; ++k) add(8);  // meminfo parent nitems itemsize data shape strides
    } else if (p.is_record()) {
      p.ndim = 0;
      p.layout = 'A';
      ++array_count_;
      add(8);  // the record's address
    } else if (p.is_pointer()) {
      p.ndim = 0;
      p.layout = 'A';
      if (p.any_pointee) p.type = ScalarType::UInt8;
      ++array_count_;
      add(8);  // the data pointer
    } else {
      p.ndim = 0;
      p.layout = 'A';
      p.written = false;
      p.any_pointee = false;
      std::uint32_t size = scalar_type_size(p.type);
      if (p.type == ScalarType::Complex64 || p.type == ScalarType::Complex128) {
        add(size / 2);  // real
        add(size / 2);  // imaginary
      } else {
        add(size);
      }
    }
  }
  first_slot_.push_back(static_cast<std::uint32_t>(slots_.size()));
  buffer_size_ = align_up(offset, 8);
}

KernelSignature KernelSignature::parse(std::string_view text) {
  std::string_view s = trim(text);
  if (auto open = s.find('('); open != std::string_view::npos && s.back() == ')' &&
                                s.substr(0, 6) != "array(" && s.find("array(") != 0) {
    std::string_view ret = trim(s.substr(0, open));
    bool starts_const = ret.substr(0, 6) == "const " || ret.substr(0, 9) == "readonly ";
    if (!starts_const && ret != "Record" && ret.find('[') == std::string_view::npos &&
        ret.find(',') == std::string_view::npos) {
      if (!ret.empty() && ret != "void" && ret != "none")
        fail(text, "a kernel returns void, but the signature says '" + std::string(ret) + "'");
      s = trim(s.substr(open + 1, s.size() - open - 2));
    }
  }
  std::vector<ParamKind> params;
  if (!s.empty())
    for (std::string_view part : split_top(text, s)) params.push_back(parse_param(text, part));
  return KernelSignature(std::move(params));
}

std::string KernelSignature::to_string() const {
  std::string s = "void(";
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (i) s += ", ";
    s += params_[i].to_string();
  }
  return s + ')';
}

}  // namespace cubridge
