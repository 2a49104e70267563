// Internal (Python glue of the array face): the views of recently imported foreign arrays, found again by
// everything they were made from. A launch imports the same few arrays call after call; where a reader has
// the producer's facts without running Python code (CuPy's fields, py_cupy_layout.hpp), building and
// checking the view again (~400-1,500 instructions an array) is the larger part of the import.
//
// Why a hit is the view the import would make: an entry's key is every input of the view's construction:
// the address, the dtype object, shape and strides, the producer's stream facts, the request's sync and
// pointer-check switches, and the generation of the pointer-range cache the device came from (py_import.hpp's
// readers derive everything else from these). The entry holds a reference to the dtype object, so the same
// address is the same (immutable) dtype. The array object's identity only picks the slot; it is never
// dereferenced, so an object freed and another made at its address is a hit only with the same facts, i.e.
// the same view. A view that has an owner (an owned export) or a mask is never kept.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "cubridge/array/array_view.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "py_common.hpp"

namespace cubridge::python {

/// What a view was made from (see the file's comment). The spans are the reader's: valid while the key is
/// used, copied into an entry when stored.
struct ImportKey {
  const void* reader = nullptr;      // who read the facts: keys of two readers never match
  PyObject* object = nullptr;        // picks the slot only
  PyObject* dtype_object = nullptr;  // a dtype object (NumPy's, for CuPy), compared by identity; or null and
  std::uint64_t dtype_value = 0;     // a dtype given by value (DLPack's code, bits, lanes and device type)
  std::uintptr_t address = 0;
  std::span<const std::int64_t> shape, strides;  // as the reader has them (bytes for CuPy, elements for DLPack)
  std::int64_t producer = 0;  // the producer's own facts: CuPy's export version, a DLPack device's ordinal
  std::uintptr_t stream = 0;  // the producer's stream
  bool sync = true, check_pointer = true;
};

namespace memo_detail {

// 256 slots in sets of 4: an object's view is in one of the 4 slots of its set. Two ways were not enough: 3 of a
// launch's 16 arrays met in one pair in about one run in eight, and replaced each other at every launch.
inline constexpr std::size_t kWays = 4;
inline constexpr std::size_t kSets = 64;
inline constexpr std::size_t kSlots = kWays * kSets;
inline constexpr std::size_t kMaxDims = 8;  // more dimensions are not kept

struct Entry {
  const void* reader = nullptr;
  PyObject* object = nullptr;
  PyObject* dtype_object = nullptr;  // a strong reference while the entry holds it
  std::uint64_t dtype_value = 0;
  std::uintptr_t address = 0;
  std::size_t ndim = 0;
  std::array<std::int64_t, 2 * kMaxDims> dims{};  // shape, then strides
  std::int64_t producer = 0;
  std::uintptr_t stream = 0;
  bool sync = true, check_pointer = true;
  std::uint64_t generation = 0;
  std::uint64_t stamp = 0;  // when the entry was written: the oldest way of a set is replaced
  std::shared_ptr<const ArrayView> view;  // shared with the launches that use it; never changed

  bool matches(const ImportKey& k, std::uint64_t gen) const noexcept {
    if (!view || object != k.object || address != k.address || ndim != k.shape.size() || k.strides.size() != ndim ||
        generation != gen || reader != k.reader || producer != k.producer || stream != k.stream || sync != k.sync ||
        check_pointer != k.check_pointer || dtype_object != k.dtype_object || dtype_value != k.dtype_value)
      return false;
    for (std::size_t i = 0; i < ndim; ++i)
      if (dims[i] != k.shape[i] || dims[ndim + i] != k.strides[i]) return false;
    return true;
  }
};

inline std::array<Entry, kSlots> g_slots;  // guarded by the GIL; a namespace-scope object: no guard per use

inline std::array<Entry, kSlots>& slots() noexcept { return g_slots; }

/// How often a lookup found its view, and how often a view was kept (tests and benches read them).
struct Counts {
  std::uint64_t hits = 0, kept = 0;
};

inline Counts g_counts;  // guarded by the GIL

inline Counts& counts() noexcept { return g_counts; }

/// The object's set: its address through a 64-bit mixer (splitmix64's finalizer). Objects lie at regular
/// spacings (a pool's 1 KiB, a list's 144 bytes), which a plain modulo or a multiplicative hash maps onto a few sets.
inline Entry* set_of(PyObject* object) noexcept {
  std::uint64_t x = reinterpret_cast<std::uint64_t>(object);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return slots().data() + (x & (kSets - 1)) * kWays;
}

/// The entry of `object`, or null.
inline const Entry* entry_of(PyObject* object) noexcept {
  const Entry* set = set_of(object);
  for (std::size_t w = 0; w < kWays; ++w)
    if (set[w].object == object) return &set[w];
  return nullptr;
}

/// Where `object`'s new entry goes: its old entry, else a free slot of its set, else the set's oldest entry.
inline Entry& slot_for(PyObject* object) noexcept {
  Entry* set = set_of(object);
  Entry* pick = set;
  for (std::size_t w = 0; w < kWays; ++w) {
    if (set[w].object == object) return set[w];
    if (pick->view != nullptr && (set[w].view == nullptr || set[w].stamp < pick->stamp)) pick = &set[w];
  }
  return *pick;
}

}  // namespace memo_detail

/// The view made from `key` before, or null.
inline std::shared_ptr<const ArrayView> remembered_view(const ImportKey& key) noexcept {
  const memo_detail::Entry* e = memo_detail::entry_of(key.object);
  if (e == nullptr || !e->matches(key, pointer_cache_generation())) return nullptr;
  ++memo_detail::counts().hits;
  return e->view;
}

/// Keeps `view` as the one made from `key`, in the object's set (replacing its old entry or the set's oldest), when it can be
/// made again from the key alone: no owner, no mask, few enough dimensions. Returns the kept view, or null.
inline std::shared_ptr<const ArrayView> remember_view(const ImportKey& key, ArrayView&& view) {
  if (key.shape.size() > memo_detail::kMaxDims || key.strides.size() != key.shape.size() || view.owner() ||
      view.mask())
    return nullptr;
  auto kept = std::make_shared<const ArrayView>(std::move(view));
  memo_detail::Entry& e = memo_detail::slot_for(key.object);
  std::shared_ptr<const ArrayView> replaced = std::move(e.view);  // a half-written entry never matches
  PyObject* released = e.dtype_object;
  Py_XINCREF(key.dtype_object);
  e.reader = key.reader;
  e.object = key.object;
  e.dtype_object = key.dtype_object;
  e.dtype_value = key.dtype_value;
  e.address = key.address;
  e.ndim = key.shape.size();
  for (std::size_t i = 0; i < e.ndim; ++i) {
    e.dims[i] = key.shape[i];
    e.dims[e.ndim + i] = key.strides[i];
  }
  e.producer = key.producer;
  e.stream = key.stream;
  e.sync = key.sync;
  e.check_pointer = key.check_pointer;
  e.generation = pointer_cache_generation();
  e.stamp = ++memo_detail::counts().kept;
  e.view = kept;
  Py_XDECREF(released);  // last: a dtype's release runs no Python code, but the entry is whole by then
  return kept;
}

}  // namespace cubridge::python
