// Internal (Python glue): the fixed table of a cache that finds what it remembers of an object by the object's
// address (the import memo, the CAI dict memo, the numba reader's instance dicts). Entries lie in sets of a few
// ways, the set chosen by the object's mixed address (address_mix); a new entry replaces the object's own, else a
// free way, else the way written longest ago. Guarded by the GIL, as every cache of the glue.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "py_common.hpp"

namespace cubridge::python {

/// Sets of `Ways` entries (4 by default: a launch's 16 arrays spread over single slots would meet two to a slot in
/// most runs and evict each other at every launch). `Entry` has a `stamp` member, which way_for reads and the
/// caller writes (next_stamp) with each entry it keeps.
template <class Entry, std::size_t Ways = 4, std::size_t Sets = 64>
class AddressSets {
  static_assert(Sets != 0 && (Sets & (Sets - 1)) == 0, "the set count is a power of two");

 public:
  static constexpr std::size_t kWays = Ways;

  /// The set `object`'s entry may be in.
  std::span<Entry, Ways> set_of(const void* object) noexcept {
    return std::span<Entry, Ways>(entries_.data() + (address_mix(object) & (Sets - 1)) * Ways, Ways);
  }

  /// The way to write `object`'s entry in, among those `usable` lets be replaced: the one `owns` says is the
  /// object's, else one `is_free` says holds nothing, else the one with the oldest stamp; null where none is usable.
  template <class Owns, class IsFree, class Usable>
  Entry* way_for(const void* object, Owns owns, IsFree is_free, Usable usable) noexcept {
    Entry* free = nullptr;
    Entry* oldest = nullptr;
    for (Entry& e : set_of(object)) {
      if (!usable(e)) continue;
      if (owns(e)) return &e;
      if (is_free(e)) {
        if (free == nullptr) free = &e;
      } else if (oldest == nullptr || e.stamp < oldest->stamp) {
        oldest = &e;
      }
    }
    return free != nullptr ? free : oldest;
  }

  /// A stamp for an entry written now: later than every stamp given before.
  std::uint64_t next_stamp() noexcept { return ++stamp_; }

 private:
  std::array<Entry, Ways * Sets> entries_{};
  std::uint64_t stamp_ = 0;
};

}  // namespace cubridge::python
