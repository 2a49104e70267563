// The opaque bytes of a custom call: a compact, versioned, bounds-checked encoding of named attributes
// (integers, floats, byte strings, integer lists, shapes). Implements: XLA "Custom calls" `opaque` /
// `backend_config` (cubridge's format for it; malformed bytes are an error, never a crash).
//
// Format v1, little-endian: "CBXO" u8 version=1 u8 0 u16 entry_count, then per entry
// u8 kind, u8 name_len, name, payload: int64 (8 bytes) | float64 (8) | bytes (u32 n, n bytes)
// | int64 list (u32 n, 8n bytes) | shape (u8 element type, u8 rank ≤ 64, 8·rank dims ≥ 0).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cubridge/xla/shape.hpp"

namespace cubridge::xla {

enum class OpaqueKind : std::uint8_t { int64 = 1, float64 = 2, bytes = 3, int64_list = 4, shape = 5 };
const char* opaque_kind_name(OpaqueKind kind) noexcept;

inline constexpr std::uint8_t kOpaqueVersion = 1;
inline constexpr std::size_t kOpaqueMaxRank = 64;

/// A decoded value; `std::string` holds the raw bytes of a bytes entry.
using OpaqueValue = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, Shape>;

/// Builds opaque bytes. Throws std::invalid_argument for a name longer than 255 bytes, an empty or
/// duplicate name, more than 65535 entries, a rank over 64 or a negative dimension.
class OpaqueWriter {
 public:
  OpaqueWriter& add(std::string_view name, OpaqueValue value);
  OpaqueWriter& add_int(std::string_view name, std::int64_t v) { return add(name, v); }
  OpaqueWriter& add_float(std::string_view name, double v) { return add(name, v); }
  OpaqueWriter& add_bytes(std::string_view name, std::string_view v) { return add(name, std::string(v)); }
  /// The encoded bytes (may be called more than once).
  std::string bytes() const;

 private:
  std::vector<std::pair<std::string, OpaqueValue>> entries_;
};

/// Validates and indexes opaque bytes once; the lookups are then cheap. The reader keeps views into
/// `bytes`, which must outlive it (inside a custom call, the opaque pointer lives for the call).
class OpaqueReader {
 public:
  /// Throws std::invalid_argument naming the byte offset and what was expected when `bytes` is not a
  /// well-formed v1 encoding (bad magic, unknown version, truncation, unknown kind, trailing bytes,
  /// duplicate names, bad shapes).
  explicit OpaqueReader(std::string_view bytes);

  std::size_t size() const noexcept { return entries_.size(); }
  bool contains(std::string_view name) const noexcept;
  std::vector<std::string_view> names() const;
  OpaqueKind kind(std::string_view name) const;

  /// Each throws std::out_of_range when `name` is absent (listing the names present) and
  /// std::invalid_argument when the entry is of another kind (naming both kinds).
  std::int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  std::string_view get_bytes(std::string_view name) const;
  std::vector<std::int64_t> get_ints(std::string_view name) const;
  Shape get_shape(std::string_view name) const;
  /// Any entry, decoded.
  OpaqueValue get(std::string_view name) const;

 private:
  struct Entry {
    std::string_view name;
    OpaqueKind kind;
    std::string_view payload;
  };
  const Entry& find(std::string_view name, OpaqueKind expected) const;
  const Entry& find_any(std::string_view name) const;
  std::vector<Entry> entries_;
};

/// Every entry of `bytes`, decoded, in order (for tools and Python); throws as OpaqueReader does.
std::vector<std::pair<std::string, OpaqueValue>> decode_opaque(std::string_view bytes);

}  // namespace cubridge::xla
