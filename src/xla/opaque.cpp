// Internal: the opaque-bytes format (see cubridge/xla/opaque.hpp). Every read is bounds-checked
// before it happens, so no input can read past the buffer.
#include "cubridge/xla/opaque.hpp"

#include <cstring>
#include <stdexcept>

#include "support/spelling_text.hpp"
#include "cubridge/error.hpp"

namespace cubridge::xla {
namespace {

using spelling_text::quoted;  // names are bytes: shown with non-UTF-8 bytes escaped

constexpr char kMagic[4] = {'C', 'B', 'X', 'O'};
constexpr std::size_t kHeaderSize = 8;

void put_u8(std::string& out, std::uint8_t v) { out.push_back(static_cast<char>(v)); }
void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
std::uint64_t get_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}


[[noreturn]] void malformed(std::size_t offset, const std::string& what) {
  throw cubridge::InvalidArgument("opaque: malformed at byte " + std::to_string(offset) + ": " + what);
}

// A cursor that refuses to move past the end, naming what it was reading.
struct Cursor {
  std::string_view data;
  std::size_t pos = 0;
  std::string_view take(std::size_t n, const char* what) {
    if (n > data.size() - pos) {
      malformed(pos, std::string(what) + " needs " + std::to_string(n) + " bytes but only " +
                         std::to_string(data.size() - pos) + " remain");
    }
    std::string_view s = data.substr(pos, n);
    pos += n;
    return s;
  }
  std::uint64_t le(int bytes, const char* what) { return get_le(take(bytes, what).data(), bytes); }
};

void check_shape(const Shape& s, std::string_view name) {
  if (s.dims.size() > kOpaqueMaxRank) {
    throw cubridge::InvalidArgument("opaque entry " + quoted(name) + ": rank " +
                                std::to_string(s.dims.size()) + " is over the limit of " +
                                std::to_string(kOpaqueMaxRank));
  }
  for (std::int64_t d : s.dims) {
    if (d < 0) {
      throw cubridge::InvalidArgument("opaque entry " + quoted(name) + ": dimension " +
                                  std::to_string(d) + " is negative (dimensions are ≥ 0)");
    }
  }
  if (!is_element_type_code(static_cast<std::uint8_t>(s.type))) {
    throw cubridge::InvalidArgument("opaque entry " + quoted(name) + ": element type code " +
                                std::to_string(int(s.type)) + " is not known");
  }
}

}  // namespace

const char* opaque_kind_name(OpaqueKind kind) noexcept {
  switch (kind) {
    case OpaqueKind::int64: return "int64";
    case OpaqueKind::float64: return "float64";
    case OpaqueKind::bytes: return "bytes";
    case OpaqueKind::int64_list: return "int64 list";
    case OpaqueKind::shape: return "shape";
  }
  return "unknown";
}

OpaqueWriter& OpaqueWriter::add(std::string_view name, OpaqueValue value) {
  if (name.empty() || name.size() > 255) {
    throw cubridge::InvalidArgument("opaque entry name " + quoted(name) + " has " +
                                std::to_string(name.size()) + " bytes: names have 1 to 255 bytes");
  }
  for (const auto& e : entries_) {
    if (e.first == name) {
      throw cubridge::InvalidArgument("opaque entry " + quoted(name) + " is given twice: names are unique");
    }
  }
  if (entries_.size() == 0xffff) {
    throw cubridge::InvalidArgument("opaque: more than 65535 entries");
  }
  if (const Shape* s = std::get_if<Shape>(&value)) check_shape(*s, name);
  if (const std::string* b = std::get_if<std::string>(&value); b && b->size() > 0xffffffffu) {
    throw cubridge::InvalidArgument("opaque entry " + quoted(name) + ": bytes over 4 GiB");
  }
  entries_.emplace_back(std::string(name), std::move(value));
  return *this;
}

std::string OpaqueWriter::bytes() const {
  std::string out(kMagic, 4);
  put_u8(out, kOpaqueVersion);
  put_u8(out, 0);
  put_le(out, entries_.size(), 2);
  for (const auto& [name, value] : entries_) {
    put_u8(out, static_cast<std::uint8_t>(value.index() + 1));
    put_u8(out, static_cast<std::uint8_t>(name.size()));
    out += name;
    if (auto* i = std::get_if<std::int64_t>(&value)) {
      put_le(out, static_cast<std::uint64_t>(*i), 8);
    } else if (auto* f = std::get_if<double>(&value)) {
      std::uint64_t bits;
      std::memcpy(&bits, f, 8);
      put_le(out, bits, 8);
    } else if (auto* b = std::get_if<std::string>(&value)) {
      put_le(out, b->size(), 4);
      out += *b;
    } else if (auto* l = std::get_if<std::vector<std::int64_t>>(&value)) {
      put_le(out, l->size(), 4);
      for (std::int64_t v : *l) put_le(out, static_cast<std::uint64_t>(v), 8);
    } else if (auto* s = std::get_if<Shape>(&value)) {
      put_u8(out, static_cast<std::uint8_t>(s->type));
      put_u8(out, static_cast<std::uint8_t>(s->dims.size()));
      for (std::int64_t d : s->dims) put_le(out, static_cast<std::uint64_t>(d), 8);
    }
  }
  return out;
}

OpaqueReader::OpaqueReader(std::string_view bytes) {
  Cursor c{bytes};
  if (bytes.size() < kHeaderSize) {
    malformed(0, "the header needs 8 bytes but there are " + std::to_string(bytes.size()) +
                     " (was it encoded with cubridge.xla.encode_opaque?)");
  }
  if (std::memcmp(bytes.data(), kMagic, 4) != 0) {
    malformed(0, "the magic is not \"CBXO\" (was it encoded with cubridge.xla.encode_opaque?)");
  }
  c.pos = 4;
  std::uint8_t version = static_cast<std::uint8_t>(c.le(1, "the version"));
  if (version != kOpaqueVersion) {
    malformed(4, "version " + std::to_string(version) + " is not supported (this reader knows " +
                     std::to_string(kOpaqueVersion) + ")");
  }
  c.le(1, "the reserved byte");
  std::size_t count = c.le(2, "the entry count");
  entries_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t at = c.pos;
    std::uint8_t kind = static_cast<std::uint8_t>(c.le(1, "an entry's kind"));
    std::size_t name_len = c.le(1, "an entry's name length");
    if (name_len == 0) malformed(at + 1, "entry " + std::to_string(i) + " has an empty name");
    std::string_view name = c.take(name_len, "an entry's name");
    std::size_t payload_at = c.pos;
    switch (static_cast<OpaqueKind>(kind)) {
      case OpaqueKind::int64:
      case OpaqueKind::float64: c.take(8, "an 8-byte value"); break;
      case OpaqueKind::bytes: c.take(c.le(4, "a byte count"), "the bytes of an entry"); break;
      case OpaqueKind::int64_list: {
        std::uint64_t n = c.le(4, "a list length");
        c.take(n * 8, "the items of a list");
        break;
      }
      case OpaqueKind::shape: {
        std::uint8_t type = static_cast<std::uint8_t>(c.le(1, "an element type"));
        if (!is_element_type_code(type)) {
          malformed(payload_at, "entry " + quoted(name) + " has element type code " +
                                    std::to_string(type) + ", which is not known");
        }
        std::size_t rank = c.le(1, "a rank");
        if (rank > kOpaqueMaxRank) {
          malformed(payload_at + 1, "entry " + quoted(name) + " has rank " + std::to_string(rank) +
                                        " (at most " + std::to_string(kOpaqueMaxRank) + ")");
        }
        std::string_view dims = c.take(rank * 8, "the dimensions of a shape");
        for (std::size_t d = 0; d < rank; ++d) {
          if (static_cast<std::int64_t>(get_le(dims.data() + 8 * d, 8)) < 0) {
            malformed(payload_at + 2 + 8 * d, "entry " + quoted(name) + " has a negative dimension");
          }
        }
        break;
      }
      default:
        malformed(at, "entry " + std::to_string(i) + " has kind " + std::to_string(kind) +
                          ", which is not one of 1 (int64), 2 (float64), 3 (bytes), 4 (int64 list), "
                          "5 (shape)");
    }
    if (contains(name)) malformed(at, "entry " + quoted(name) + " appears twice");
    entries_.push_back({name, static_cast<OpaqueKind>(kind), bytes.substr(payload_at, c.pos - payload_at)});
  }
  if (c.pos != bytes.size()) {
    malformed(c.pos, std::to_string(bytes.size() - c.pos) + " bytes follow the last of " +
                         std::to_string(count) + " entries");
  }
}

bool OpaqueReader::contains(std::string_view name) const noexcept {
  for (const Entry& e : entries_) {
    if (e.name == name) return true;
  }
  return false;
}

std::vector<std::string_view> OpaqueReader::names() const {
  std::vector<std::string_view> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

const OpaqueReader::Entry& OpaqueReader::find_any(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return e;
  }
  std::string present;
  for (const Entry& e : entries_) present += (present.empty() ? "" : ", ") + quoted(e.name);
  throw std::out_of_range("opaque has no entry " + quoted(name) + " (entries: " +
                          (present.empty() ? "none" : present) + ")");
}

const OpaqueReader::Entry& OpaqueReader::find(std::string_view name, OpaqueKind expected) const {
  const Entry& e = find_any(name);
  if (e.kind != expected) {
    throw cubridge::InvalidArgument("opaque entry " + quoted(name) + " is of kind " + opaque_kind_name(e.kind) +
                                ", not " + opaque_kind_name(expected));
  }
  return e;
}

OpaqueKind OpaqueReader::kind(std::string_view name) const { return find_any(name).kind; }

std::int64_t OpaqueReader::get_int(std::string_view name) const {
  return static_cast<std::int64_t>(get_le(find(name, OpaqueKind::int64).payload.data(), 8));
}

double OpaqueReader::get_float(std::string_view name) const {
  std::uint64_t bits = get_le(find(name, OpaqueKind::float64).payload.data(), 8);
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

std::string_view OpaqueReader::get_bytes(std::string_view name) const {
  return find(name, OpaqueKind::bytes).payload.substr(4);
}

std::vector<std::int64_t> OpaqueReader::get_ints(std::string_view name) const {
  std::string_view p = find(name, OpaqueKind::int64_list).payload.substr(4);
  std::vector<std::int64_t> out(p.size() / 8);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(get_le(p.data() + 8 * i, 8));
  return out;
}

Shape OpaqueReader::get_shape(std::string_view name) const {
  std::string_view p = find(name, OpaqueKind::shape).payload;
  Shape s;
  s.type = static_cast<ElementType>(static_cast<unsigned char>(p[0]));
  std::size_t rank = static_cast<unsigned char>(p[1]);
  for (std::size_t d = 0; d < rank; ++d) s.dims.push_back(static_cast<std::int64_t>(get_le(p.data() + 2 + 8 * d, 8)));
  return s;
}

OpaqueValue OpaqueReader::get(std::string_view name) const {
  switch (kind(name)) {
    case OpaqueKind::int64: return get_int(name);
    case OpaqueKind::float64: return get_float(name);
    case OpaqueKind::bytes: return std::string(get_bytes(name));
    case OpaqueKind::int64_list: return get_ints(name);
    case OpaqueKind::shape: return get_shape(name);
  }
  throw std::logic_error("opaque: unreachable kind");
}

std::vector<std::pair<std::string, OpaqueValue>> decode_opaque(std::string_view bytes) {
  OpaqueReader reader(bytes);
  std::vector<std::pair<std::string, OpaqueValue>> out;
  for (std::string_view name : reader.names()) out.emplace_back(std::string(name), reader.get(name));
  return out;
}

}  // namespace cubridge::xla
