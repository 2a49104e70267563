// Internal: the typestr grammar, its canonical spellings, and the DLPack dtype mapping, all read off the
// scalar-type table (cubridge/types/scalar_type.hpp).
#include "cubridge/array/dtype.hpp"

#include <array>
#include <bit>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <stdexcept>

#include "cubridge/types/datetime_unit.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

// The kinds that have rows ("biufc"), each once, in the table's order.
constexpr auto kKindChars = [] {
  std::array<char, kScalarTypes.size() + 1> kinds{};
  std::size_t n = 0;
  for (const ScalarTypeInfo& row : kScalarTypes)
    if (row.numpy() && std::string_view(kinds.data(), n).find(row.kind) == std::string_view::npos) kinds[n++] = row.kind;
  return kinds;
}();
constexpr std::string_view kKinds(kKindChars.data());

// Every row's typestr in each byte order ('<', '>', '|'), made at compile time, so that exporting
// allocates nothing.
constexpr char kOrders[3] = {'<', '>', '|'};
using Spelling = std::array<char, 5>;  // order, kind, up to two digits, NUL
constexpr auto kSpellings = [] {
  std::array<std::array<Spelling, 3>, kScalarTypes.size()> text{};
  for (std::size_t r = 0; r < kScalarTypes.size(); ++r)
    for (std::size_t o = 0; o < 3; ++o) {
      const std::string_view body = kScalarTypes[r].short_typestr();
      text[r][o][0] = kOrders[o];
      for (std::size_t i = 0; i < body.size(); ++i) text[r][o][i + 1] = body[i];
    }
  return text;
}();
static_assert([] {
  for (const ScalarTypeInfo& row : kScalarTypes)
    if (row.short_typestr().size() + 2 > Spelling().size()) return false;
  return true;
}());

std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      out += hex[static_cast<unsigned char>(c) & 0xf];
    } else {
      out += c;
    }
  }
  return out + "'";
}

[[noreturn]] void reject(std::string_view what, std::string_view typestr, const std::string& why) {
  throw cubridge::InvalidArgument(std::string(what) + ": " + quoted(typestr) + " is not a valid typestr (" +
                              why + ")");
}

std::string accepted_kinds() {
  std::string s;
  for (char kind : kKinds) {
    s += kind;
    s += ", ";
  }
  return s + "V, S, U, M, m";
}

bool datetime_kind(char kind) { return kind == 'M' || kind == 'm'; }

// bfloat16's DType kind: ml_dtypes' dtype char, a letter no typestr kind uses.
constexpr char kBFloat16Kind = 'E';
constexpr const char* kBFloat16Typestr = kNativeByteOrder == '<' ? "<V2" : ">V2";

// "<M8[D]", "<m8" (generic), interned like the opaque spellings.
const char* datetime_typestr(char kind, char byteorder, std::uint8_t unit) {
  static std::mutex mutex;
  static std::map<std::tuple<char, char, std::uint8_t>, std::unique_ptr<std::string>> interned;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = interned[{kind, byteorder, unit}];
  if (!slot) {
    const std::string_view name = datetime_unit_name(unit);
    slot = std::make_unique<std::string>(std::string{byteorder, kind, '8'} +
                                         (name.empty() ? std::string() : "[" + std::string(name) + "]"));
  }
  return slot->c_str();
}

// A datetime typestr's tail after the kind: "8[D]", "8" (the generic unit); the unit's code.
std::uint8_t datetime_unit_of(std::string_view whole, std::string_view what) {
  std::string_view rest = whole.substr(2);
  if (rest.empty() || rest.front() != '8')
    reject(what, whole, "a datetime64/timedelta64 is 8 bytes: write " + std::string(whole.substr(0, 2)) + "8[unit]");
  rest.remove_prefix(1);
  if (rest.empty()) return kGenericDatetimeUnit;
  std::optional<std::uint8_t> unit;
  if (rest.size() >= 3 && rest.front() == '[' && rest.back() == ']') unit = datetime_unit_named(rest.substr(1, rest.size() - 2));
  if (!unit || *unit == kGenericDatetimeUnit)
    reject(what, whole, "the unit " + quoted(rest) + " is not one of [" + std::string(kDatetimeUnitList) +
                            "] (NumPy's units; multiples such as [10s] are not supported)");
  return *unit;
}

// Kinds whose elements are bytes the GPU holds as they are, with no row of the scalar table: records
// ('V') and NumPy's fixed-width strings ('S' bytes, 'U' UTF-32 code points: Numba's CharSeq and
// UnicodeCharSeq).
bool opaque_kind(char kind) { return kind == 'V' || kind == 'S' || kind == 'U'; }

// "1, 2, 4, 8": the itemsizes of the kind's rows.
std::string allowed_sizes(char kind) {
  if (opaque_kind(kind)) return "any positive size";
  std::string sizes;
  for (const ScalarTypeInfo& row : kScalarTypes)
    if (row.kind == kind) {
      if (!sizes.empty()) sizes += ", ";
      sizes += std::to_string(row.itemsize);
    }
  return sizes;
}

bool size_ok(char kind, std::uint32_t n) {
  return opaque_kind(kind) ? n >= 1 : scalar_type_of_numpy(kind, n) != nullptr;
}

// "|V12", "|S12", "<U12" (NumPy counts a 'U' typestr's size in code points, 4 bytes each), interned.
const char* opaque_typestr(char kind, char byteorder, std::uint32_t itemsize) {
  static std::mutex mutex;
  static std::map<std::tuple<char, char, std::uint32_t>, std::unique_ptr<std::string>> interned;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = interned[{kind, byteorder, itemsize}];
  if (!slot)
    slot = std::make_unique<std::string>(std::string{byteorder, kind} + std::to_string(kind == 'U' ? itemsize / 4 : itemsize));
  return slot->c_str();
}

}  // namespace

DType bfloat16_dtype() noexcept {
  DType d;
  d.kind = kBFloat16Kind;
  d.byteorder = kNativeByteOrder;
  d.itemsize = 2;
  return d;
}

const char* DType::typestr() const noexcept {
  if (kind == kBFloat16Kind) return kBFloat16Typestr;  // as NumPy spells an ml_dtypes.bfloat16 array
  if (datetime_kind(kind)) {
    try {
      return datetime_typestr(kind, byteorder, unit);
    } catch (...) {
      return "|V8";  // only on allocation failure
    }
  }
  if (opaque_kind(kind)) {
    try {
      return opaque_typestr(kind, byteorder, itemsize);
    } catch (...) {
      return "|V";  // only on allocation failure
    }
  }
  const ScalarTypeInfo* row = scalar_type_of_numpy(kind, itemsize);
  if (row == nullptr) return "|V0";
  const std::size_t o = byteorder == '<' ? 0 : byteorder == '>' ? 1 : 2;
  return kSpellings[static_cast<std::size_t>(row->type)][o].data();
}

std::uint32_t DType::alignment() const noexcept {
  if (kind == 'U') return 4;
  if (opaque_kind(kind) || itemsize == 0) return 1;
  return kind == 'c' ? itemsize / 2 : itemsize;
}

DType parse_typestr(std::string_view s, std::string_view what) {
  if (s.size() < 3)
    reject(what, s, "expected a byte order '<', '>', '|' or '=', a kind, and a size in bytes, e.g. '<f4'");
  char order = s[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    reject(what, s, std::string("byte order ") + quoted(s.substr(0, 1)) +
                        " is not one of '<', '>', '|', '='");
  char kind = s[1];
  if (datetime_kind(kind)) {
    DType d;
    d.kind = kind;
    d.itemsize = 8;
    d.unit = datetime_unit_of(s, what);
    d.byteorder = order == '=' || order == '|' ? kNativeByteOrder : order;
    return d;
  }
  if (kKinds.find(kind) == std::string_view::npos && !opaque_kind(kind)) {
    std::string name;
    switch (kind) {
      case 'O': name = " (Python objects cannot live in GPU memory)"; break;
      case 'a': name = " (NumPy's old spelling of byte strings: write 'S')"; break;
      case 't': name = " (bit fields)"; break;
      default: break;
    }
    reject(what, s, "kind " + quoted(s.substr(1, 1)) + name +
                        " is not supported on the GPU; accepted kinds: " + accepted_kinds());
  }
  std::uint64_t size = 0;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9') reject(what, s, "the size " + quoted(s.substr(2)) + " is not a decimal number of bytes");
    size = size * 10 + static_cast<unsigned>(c - '0');
    if (size > (1u << 30)) reject(what, s, "the itemsize is larger than 2**30 bytes");
  }
  if (kind == 'U' && size > (1u << 28)) reject(what, s, "the itemsize is larger than 2**30 bytes");
  auto n = static_cast<std::uint32_t>(kind == 'U' ? size * 4 : size);  // 'U' counts code points
  if (!size_ok(kind, n))
    reject(what, s, "itemsize " + std::to_string(n) + " is not one of " + allowed_sizes(kind) +
                        " for kind " + quoted(s.substr(1, 1)));
  DType d;
  d.kind = kind;
  d.itemsize = n;
  if (n == 1 || kind == 'V' || kind == 'S')
    d.byteorder = '|';
  else if (order == '=' || order == '|')
    d.byteorder = kNativeByteOrder;  // NumPy reads '|' on a multi-byte type as "native", so do we
  else
    d.byteorder = order;
  return d;
}

std::optional<CubridgeDLDataType> to_dlpack_dtype(const DType& d) noexcept {
  if (!d.native()) return std::nullopt;
  if (d.kind == kBFloat16Kind) return scalar_type_info(ScalarType::BFloat16).dlpack;
  const ScalarTypeInfo* row = scalar_type_of_numpy(d.kind, d.itemsize);
  if (row == nullptr) return std::nullopt;
  return row->dlpack;
}

namespace {

/// A DLPack dtype as a NumPy one, by the scalar types' table; throws naming what is refused.
DType dlpack_dtype_slow(CubridgeDLDataType t) {
  auto fail = [&](const std::string& why) {
    throw cubridge::InvalidArgument("DLPack dtype (code " + std::to_string(t.code) + ", bits " +
                                std::to_string(t.bits) + ", lanes " + std::to_string(t.lanes) +
                                ") has no NumPy typestr: " + why);
  };
  if (t.lanes != 1) fail("only lanes == 1 is supported");
  if (t.bits % 8 != 0) fail("sub-byte types are not supported");
  if (t.code == CUBRIDGE_DL_BFLOAT) {
    if (t.bits != 16) fail("bfloat has 16 bits only");
    return bfloat16_dtype();
  }
  // The code gives the NumPy kind; the bits then pick the row.
  const ScalarTypeInfo* of_code =
      find_scalar_type([&t](const ScalarTypeInfo& row) { return row.numpy() && row.dlpack.code == t.code; });
  if (of_code == nullptr) {
    if (const ScalarTypeInfo* other = find_scalar_type([&t](const ScalarTypeInfo& row) { return row.dlpack.code == t.code; }))
      fail(std::string(other->name) + " is not a NumPy type");
    fail("accepted codes are bool (6), int (0), uint (1), float (2), complex (5), bfloat (4) of 16 bits");
  }
  std::uint32_t n = t.bits / 8;
  const ScalarTypeInfo* row = scalar_type_of_numpy(of_code->kind, n);
  if (row == nullptr)
    fail(std::to_string(t.bits) + " bits is not a supported width for this code");
  DType d;
  d.kind = row->kind;
  d.itemsize = n;
  d.byteorder = n == 1 ? '|' : kNativeByteOrder;
  return d;
}

/// from_dlpack_dtype's answer for each one-lane (code, bytes) a DLPack producer may send, made once: every
/// import asks it (a table lookup instead of two searches of kScalarTypes). Codes below kCodes, widths of 1
/// to kBytes bytes; the other pairs, and lanes != 1, are decided (and refused) by dlpack_dtype_slow.
struct DLPackDTypes {
  static constexpr std::size_t kCodes = 8, kBytes = 16;
  std::optional<DType> of[kCodes][kBytes + 1];
};

const DLPackDTypes& dlpack_dtypes() {
  static const DLPackDTypes table = [] {
    DLPackDTypes d;
    for (std::uint8_t code = 0; code < DLPackDTypes::kCodes; ++code)
      for (std::uint16_t bytes = 1; bytes <= DLPackDTypes::kBytes; ++bytes) {
        try {
          d.of[code][bytes] = dlpack_dtype_slow(CubridgeDLDataType{code, static_cast<std::uint8_t>(8 * bytes), 1});
        } catch (const cubridge::InvalidArgument&) {
          // refused: asked of dlpack_dtype_slow again, which says why
        }
      }
    return d;
  }();
  return table;
}

}  // namespace

DType from_dlpack_dtype(CubridgeDLDataType t) {
  if (t.lanes == 1 && t.code < DLPackDTypes::kCodes && t.bits % 8 == 0 && t.bits != 0 && t.bits / 8 <= DLPackDTypes::kBytes)
    if (const std::optional<DType>& d = dlpack_dtypes().of[t.code][t.bits / 8]) return *d;
  return dlpack_dtype_slow(t);
}

}  // namespace cubridge
