// Internal: parsing Numba's signature spelling and flattening it to PTX parameter slots.
#include "cubridge/kernel/kernel_signature.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>

#include "support/spelling_text.hpp"
#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/type.hpp"

namespace cubridge {

namespace {

constexpr const char* kAccepted =
    "bool, int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128 (or i4, f8, "
    "...), optionally followed by [:] dimensions, e.g. float32[:, ::1], or by * for a pointer, e.g. "
    "const float32* (void* takes any dtype)";

using spelling_text::quoted;
using spelling_text::trim;

[[noreturn]] void fail(std::string_view whole, const std::string& why) {
  throw std::invalid_argument("kernel signature " + quoted(whole) + ": " + why);
}

// A Numba name, its alias or a short typestr ("float32", "intp", "f4") of a type that NumPy has.
ScalarType scalar_named(std::string_view whole, std::string_view name) {
  const ScalarTypeInfo* row = scalar_type_spelled(name);
  if (row != nullptr && row->numpy()) return row->type;
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
  auto record = parse_type_name(text);
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

const char* scalar_type_name(ScalarType t) noexcept { return scalar_type_info(t).name.data(); }

std::uint32_t scalar_type_size(ScalarType t) noexcept { return scalar_type_info(t).itemsize; }

DType scalar_type_dtype(ScalarType t) noexcept {
  const ScalarTypeInfo& row = scalar_type_info(t);
  DType d;
  d.itemsize = row.itemsize;
  d.kind = row.numpy() ? row.kind : 'V';  // bfloat16, which no parameter takes: its bytes only
  d.byteorder = d.itemsize == 1 || !row.numpy() ? '|' : (std::endian::native == std::endian::little ? '<' : '>');
  return d;
}

std::optional<ScalarType> scalar_type_of(const DType& dtype) noexcept {
  if (!dtype.native()) return std::nullopt;
  const ScalarTypeInfo* row = scalar_type_of_numpy(dtype.kind, dtype.itemsize);  // O(1): asked on every launch
  if (row == nullptr) return std::nullopt;
  return row->type;
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
    const bool typed = !(p.is_record() || !p.record.empty() || (p.is_pointer() && p.any_pointee));
    if (typed && !scalar_type_info(p.type).numpy())
      throw std::invalid_argument("kernel signature: parameter " + std::to_string(i) + " has type " +
                                  scalar_type_name(p.type) + ", which NumPy lacks; accepted: " + kAccepted);
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
