// Internal: the typestr grammar, its canonical spellings, and the DLPack dtype mapping.
#include "cubridge/array/dtype.hpp"

#include <bit>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace cubridge {

namespace {

constexpr char kNativeOrder = std::endian::native == std::endian::little ? '<' : '>';
constexpr std::string_view kKinds = "biufc";

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
  throw std::invalid_argument(std::string(what) + ": " + quoted(typestr) + " is not a valid typestr (" +
                              why + ")");
}

const char* allowed_sizes(char kind) {
  switch (kind) {
    case 'b': return "1";
    case 'i': case 'u': return "1, 2, 4, 8";
    case 'f': return "2, 4, 8";
    case 'c': return "8, 16";
    default: return "any positive size";
  }
}

bool size_ok(char kind, std::uint32_t n) {
  switch (kind) {
    case 'b': return n == 1;
    case 'i': case 'u': return n == 1 || n == 2 || n == 4 || n == 8;
    case 'f': return n == 2 || n == 4 || n == 8;
    case 'c': return n == 8 || n == 16;
    case 'V': return n >= 1;
    default: return false;
  }
}

// Canonical spellings of every numeric dtype, built once: 5 kinds x 5 sizes x 3 orders.
struct TypestrTable {
  char text[5][5][3][4] = {};
  TypestrTable() {
    const char orders[3] = {'<', '>', '|'};
    for (int k = 0; k < 5; ++k)
      for (int s = 0; s < 5; ++s)
        for (int o = 0; o < 3; ++o) {
          unsigned size = 1u << s;
          char* t = text[k][s][o];
          t[0] = orders[o];
          t[1] = kKinds[k];
          t[2] = size == 16 ? '1' : static_cast<char>('0' + size);
          t[3] = '\0';
        }
  }
};

const char* void_typestr(std::uint32_t itemsize) {
  static std::mutex mutex;
  static std::map<std::uint32_t, std::unique_ptr<std::string>> interned;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = interned[itemsize];
  if (!slot) slot = std::make_unique<std::string>("|V" + std::to_string(itemsize));
  return slot->c_str();
}

}  // namespace

const char* DType::typestr() const noexcept {
  static const TypestrTable table;
  if (kind == 'V') {
    try {
      return void_typestr(itemsize);
    } catch (...) {
      return "|V";  // only on allocation failure
    }
  }
  std::size_t k = kKinds.find(kind);
  int s = std::countr_zero(itemsize);
  int o = byteorder == '<' ? 0 : byteorder == '>' ? 1 : 2;
  if (k == std::string_view::npos || s > 4) return "|V0";
  if (itemsize == 16) {
    // Two-digit size: spelled out separately because the table holds 3 characters.
    static const char* c16[3] = {"<c16", ">c16", "|c16"};
    return c16[o];
  }
  return table.text[k][s][o];
}

bool DType::native() const noexcept { return byteorder == '|' || byteorder == kNativeOrder; }

std::uint32_t DType::alignment() const noexcept {
  if (kind == 'V' || itemsize == 0) return 1;
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
  if (kKinds.find(kind) == std::string_view::npos && kind != 'V') {
    std::string name;
    switch (kind) {
      case 'O': name = " (Python objects cannot live in GPU memory)"; break;
      case 'M': name = " (datetime)"; break;
      case 'm': name = " (timedelta)"; break;
      case 'S': case 'a': name = " (byte strings)"; break;
      case 'U': name = " (unicode strings)"; break;
      case 't': name = " (bit fields)"; break;
      default: break;
    }
    reject(what, s, "kind " + quoted(s.substr(1, 1)) + name +
                        " is not supported on the GPU; accepted kinds: b, i, u, f, c, V");
  }
  std::uint64_t size = 0;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9') reject(what, s, "the size " + quoted(s.substr(2)) + " is not a decimal number of bytes");
    size = size * 10 + static_cast<unsigned>(c - '0');
    if (size > (1u << 30)) reject(what, s, "the itemsize is larger than 2**30 bytes");
  }
  auto n = static_cast<std::uint32_t>(size);
  if (!size_ok(kind, n))
    reject(what, s, "itemsize " + std::to_string(n) + " is not one of " + allowed_sizes(kind) +
                        " for kind " + quoted(s.substr(1, 1)));
  DType d;
  d.kind = kind;
  d.itemsize = n;
  if (n == 1 || kind == 'V')
    d.byteorder = '|';
  else if (order == '=' || order == '|')
    d.byteorder = kNativeOrder;  // NumPy reads '|' on a multi-byte type as "native", so do we
  else
    d.byteorder = order;
  return d;
}

std::optional<CubridgeDLDataType> to_dlpack_dtype(const DType& d) noexcept {
  if (!d.native()) return std::nullopt;
  CubridgeDLDataType t{0, static_cast<std::uint8_t>(d.itemsize * 8), 1};
  switch (d.kind) {
    case 'b': t.code = CUBRIDGE_DL_BOOL; break;
    case 'i': t.code = CUBRIDGE_DL_INT; break;
    case 'u': t.code = CUBRIDGE_DL_UINT; break;
    case 'f': t.code = CUBRIDGE_DL_FLOAT; break;
    case 'c': t.code = CUBRIDGE_DL_COMPLEX; break;
    default: return std::nullopt;
  }
  return t;
}

DType from_dlpack_dtype(CubridgeDLDataType t) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("DLPack dtype (code " + std::to_string(t.code) + ", bits " +
                                std::to_string(t.bits) + ", lanes " + std::to_string(t.lanes) +
                                ") has no NumPy typestr: " + why);
  };
  if (t.lanes != 1) fail("only lanes == 1 is supported");
  if (t.bits % 8 != 0) fail("sub-byte types are not supported");
  char kind = 0;
  switch (t.code) {
    case CUBRIDGE_DL_BOOL: kind = 'b'; break;
    case CUBRIDGE_DL_INT: kind = 'i'; break;
    case CUBRIDGE_DL_UINT: kind = 'u'; break;
    case CUBRIDGE_DL_FLOAT: kind = 'f'; break;
    case CUBRIDGE_DL_COMPLEX: kind = 'c'; break;
    case CUBRIDGE_DL_BFLOAT: fail("bfloat16 is not a NumPy type"); break;
    default: fail("accepted codes are bool (6), int (0), uint (1), float (2), complex (5)"); break;
  }
  std::uint32_t n = t.bits / 8;
  if (!size_ok(kind, n))
    fail(std::to_string(t.bits) + " bits is not a supported width for this code");
  DType d;
  d.kind = kind;
  d.itemsize = n;
  d.byteorder = n == 1 ? '|' : kNativeOrder;
  return d;
}

}  // namespace cubridge
