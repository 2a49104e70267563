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
//
// A launch borrows the views it finds here (no reference count per array): while a MemoPins lives, the
// entries handed out are pinned, and a later import in the same launch (another argument, or Python code a
// producer runs) keeps its view elsewhere or not at all instead of replacing them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "cubridge/array/array_view.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "py_address_sets.hpp"
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
  /// Or the tuples the reader reads shape and strides from (numba's), compared by identity: the entry holds them,
  /// and a tuple is immutable, so the same object has the same values. A lookup by them needs no spans; storing
  /// needs both.
  PyObject* shape_object = nullptr;
  PyObject* strides_object = nullptr;
};

namespace memo_detail {

inline constexpr std::size_t kMaxDims = 8;  // more dimensions are not kept

/// One remembered view. What a lookup compares comes first, in the entry's first cache line (entries are aligned to
/// one): a way of the set that is another object's costs that line only, and a hit one more. A lookup on the H100
/// host runs with the driver's call of the launch before it out of the caches, where each line is ~10-20 ns.
struct alignas(64) Entry {
  PyObject* object = nullptr;        // first: the field that tells the ways of a set apart
  const void* reader = nullptr;
  std::uintptr_t address = 0;
  std::uint64_t generation = 0;
  PyObject* dtype_object = nullptr;  // a strong reference while the entry holds it
  std::uint64_t dtype_value = 0;
  PyObject* shape_object = nullptr;  // strong references while the entry holds them (ImportKey's)
  PyObject* strides_object = nullptr;
  std::int64_t producer = 0;
  std::uintptr_t stream = 0;
  std::uint64_t pinned = 0;  // the pin epoch of the launch that last borrowed the view (see MemoPins)
  std::uint32_t ndim = 0;
  bool sync = true, check_pointer = true;
  bool kept = false;         // `view` holds a view (what a lookup asks before it reads the view's line)
  std::uint64_t stamp = 0;   // when the entry was written: the oldest way of a set is replaced
  std::array<std::int64_t, 2 * kMaxDims> dims{};  // shape, then strides
  std::optional<ArrayView> view;  // borrowed by launches; never changed while pinned

  bool matches(const ImportKey& k, std::uint64_t gen) const noexcept {
    if (object != k.object || !kept || address != k.address || generation != gen || reader != k.reader ||
        producer != k.producer || stream != k.stream || sync != k.sync || check_pointer != k.check_pointer ||
        dtype_object != k.dtype_object || dtype_value != k.dtype_value)
      return false;
    if (k.shape_object != nullptr) return shape_object == k.shape_object && strides_object == k.strides_object;
    if (shape_object != nullptr || ndim != k.shape.size() || k.strides.size() != ndim) return false;
    for (std::size_t i = 0; i < ndim; ++i)
      if (dims[i] != k.shape[i] || dims[ndim + i] != k.strides[i]) return false;
    return true;
  }
};

// 256 entries in sets of 4 (py_address_sets.hpp). Two ways were not enough: 3 of a launch's 16 arrays met in one
// pair in about one run in eight, and replaced each other at every launch. A namespace-scope object: no guard per use.
inline AddressSets<Entry> g_entries;

/// How often a lookup found its view, and how often a view was kept (tests and benches read them).
struct Counts {
  std::uint64_t hits = 0, kept = 0;
};

inline Counts g_counts;  // guarded by the GIL

inline Counts& counts() noexcept { return g_counts; }

/// The pins (guarded by the GIL): an entry is pinned while some MemoPins lives and its `pinned` is the epoch,
/// which moves on each time the outermost MemoPins begins.
struct Pins {
  std::uint64_t epoch = 0;
  std::uint32_t depth = 0;
};

inline Pins g_pins;

inline bool is_pinned(const Entry& e) noexcept { return g_pins.depth > 0 && e.pinned == g_pins.epoch; }

/// Marks `e` as borrowed by the live MemoPins, if any.
inline void pin(Entry& e) noexcept {
  if (g_pins.depth > 0) e.pinned = g_pins.epoch;
}

/// Where `object`'s new entry goes, among the unpinned ways of its set: its old entry, else a free way, else
/// the oldest; null when every way is pinned.
inline Entry* slot_for(PyObject* object) noexcept {
  return g_entries.way_for(
      object, [object](const Entry& e) { return e.object == object; }, [](const Entry& e) { return !e.kept; },
      [](const Entry& e) { return !is_pinned(e); });
}

}  // namespace memo_detail

/// While one lives (a launch, from its arguments' imports to the driver's call), the views the memo hands out
/// stay where they are. Nested ones (a producer's Python code that launches) share the outermost one's pins.
class MemoPins {
 public:
  MemoPins() noexcept {
    if (memo_detail::g_pins.depth++ == 0) ++memo_detail::g_pins.epoch;
  }
  ~MemoPins() { --memo_detail::g_pins.depth; }
  MemoPins(const MemoPins&) = delete;
  MemoPins& operator=(const MemoPins&) = delete;
};

/// The view made from `key` before, or null. Valid while a MemoPins lives (it is pinned), else only until the
/// next remember_view: a caller without pins copies it at once.
inline const ArrayView* remembered_view(const ImportKey& key) noexcept {
  const std::uint64_t gen = pointer_cache_generation();
  for (memo_detail::Entry& e : memo_detail::g_entries.set_of(key.object)) {
    if (!e.matches(key, gen)) continue;
    ++memo_detail::counts().hits;
    memo_detail::pin(e);
    return &*e.view;
  }
  return nullptr;
}

/// Keeps `view` as the one made from `key`, in the object's set (replacing its old entry or the set's oldest
/// unpinned one), when it can be made again from the key alone: no owner, no mask, few enough dimensions.
/// Returns the kept view (as remembered_view does), or null with `view` left as it was.
inline const ArrayView* remember_view(const ImportKey& key, ArrayView&& view) {
  if (key.shape.size() > memo_detail::kMaxDims || key.strides.size() != key.shape.size() || view.owner() ||
      view.mask())
    return nullptr;
  memo_detail::Entry* slot = memo_detail::slot_for(key.object);
  if (slot == nullptr) return nullptr;  // every way is borrowed by the launch under way
  memo_detail::Entry& e = *slot;
  e.kept = false;  // a half-written entry never matches
  e.view.reset();
  PyObject* const released[] = {e.dtype_object, e.shape_object, e.strides_object};
  Py_XINCREF(key.dtype_object);
  Py_XINCREF(key.shape_object);
  Py_XINCREF(key.strides_object);
  e.shape_object = key.shape_object;
  e.strides_object = key.strides_object;
  e.reader = key.reader;
  e.object = key.object;
  e.dtype_object = key.dtype_object;
  e.dtype_value = key.dtype_value;
  e.address = key.address;
  e.ndim = static_cast<std::uint32_t>(key.shape.size());
  for (std::size_t i = 0; i < e.ndim; ++i) {
    e.dims[i] = key.shape[i];
    e.dims[e.ndim + i] = key.strides[i];
  }
  e.producer = key.producer;
  e.stream = key.stream;
  e.sync = key.sync;
  e.check_pointer = key.check_pointer;
  e.generation = pointer_cache_generation();
  ++memo_detail::counts().kept;
  e.stamp = memo_detail::g_entries.next_stamp();
  e.view.emplace(std::move(view));
  e.kept = true;
  memo_detail::pin(e);
  for (PyObject* o : released) Py_XDECREF(o);  // last: a dtype's or a tuple's release runs no Python code
  return &*e.view;
}

}  // namespace cubridge::python
