// Internal (Python glue of the array face): the views of recently read `__cuda_array_interface__` dicts, found
// again by the dict itself while it is unchanged. A producer that keeps its interface as a prebuilt dict (a
// plain attribute, as many wrappers of device memory do) hands the same dict at every import, and reading it
// again (its items, the tuples, the view's checks: ~0.4 µs) is most of such an import.
//
// Why a hit is the view the read would make: the entry is found by the dict's address and version tag
// (py_dict_version.hpp), which together name one dict in one state, holding the same value objects; only
// dicts whose values are all immutable (exact tuples of exact ints, an exact str, exact ints, bools and None)
// are kept, so those objects hold the same values; a descr list (mutable) is checked again at each hit; the
// request's switches and the pointer-range cache's generation are part of the entry, as in the import memo,
// and a view is kept only where its pointer check is one the range cache answers (pointer_check_cached).
// A dict with a mask is never kept. Nothing is kept where this Python gives the dict no version tag.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "cubridge/array/array_interface.hpp"
#include "cubridge/array/array_view.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "py_address_sets.hpp"
#include "py_common.hpp"
#include "py_dict_version.hpp"

namespace cubridge::python::cai_memo {

struct Entry {
  PyObject* dict = nullptr;     // compared by identity
  std::uint64_t version = 0;
  // The dict's descr list and typestr, borrowed: dereferenced only after the version matched, when the dict,
  // unchanged, still holds them. The descr is null where the dict has none (or None).
  PyObject* descr = nullptr;
  PyObject* typestr = nullptr;
  bool sync = true, check_pointer = true;
  std::uint64_t generation = 0;
  std::uint64_t stamp = 0;      // when written: the oldest way of a set is replaced
  std::optional<ArrayView> view;  // with no owner and no mask
};

/// Lookups that found their view (tests read it). Guarded by the GIL.
inline std::uint64_t g_hits = 0;

/// The entries, in sets of 4 as the import memo's (py_address_sets.hpp); never destroyed, as the other memos'.
inline AddressSets<Entry>& entries() noexcept {
  static auto* const table = new AddressSets<Entry>();
  return *table;
}

/// The view remembered for `dict` read with `options`, or null. `default_descr(descr, typestr)` says whether a
/// descr list still adds nothing to the typestr.
template <class DefaultDescr>
const ArrayView* find(PyObject* dict, const ImportOptions& options, DefaultDescr default_descr) noexcept {
  const std::uint64_t version = dict_version(dict);
  if (version == 0 || options.is_mask) return nullptr;
  for (const Entry& e : entries().set_of(dict)) {
    if (e.dict != dict || e.version != version || !e.view || e.sync != options.sync ||
        e.check_pointer != options.check_pointer || e.generation != pointer_cache_generation())
      continue;
    if (e.descr != nullptr && !default_descr(e.descr, e.typestr)) return nullptr;  // a list changed in place
    ++g_hits;
    return &*e.view;
  }
  return nullptr;
}

/// Remembers `view`, read from `dict` with `options`, where every value the view came from is immutable: `shape`,
/// `typestr`, `data`, `version`, `strides`, `stream` as the dict holds them (strides and stream may be null:
/// absent or None), `descr` a default descr list or null. `read_at`: the dict's version when its items were read
/// (a dict changed since, by code the read ran, is not kept).
inline void keep(PyObject* dict, std::uint64_t read_at, const ImportOptions& options, const ArrayView& view,
                 PyObject* shape, PyObject* typestr, PyObject* data, PyObject* version, PyObject* strides,
                 PyObject* stream, PyObject* descr) {
  const std::uint64_t tag = dict_version(dict);
  if (tag == 0 || tag != read_at || options.is_mask || !is_exact_int_tuple(shape) || !PyUnicode_CheckExact(typestr) ||
      !PyLong_CheckExact(version) || (strides != nullptr && !is_exact_int_tuple(strides)) ||
      (stream != nullptr && !PyLong_CheckExact(stream)) || !PyTuple_CheckExact(data) || PyTuple_GET_SIZE(data) != 2 ||
      !PyLong_CheckExact(PyTuple_GET_ITEM(data, 0)) || !PyBool_Check(PyTuple_GET_ITEM(data, 1)))
    return;
  if (options.check_pointer && !view.empty() && !pointer_check_cached(view.address())) return;
  Entry* slot = entries().way_for(
      dict, [dict](const Entry& e) { return e.dict == dict; }, [](const Entry& e) { return !e.view; },
      [](const Entry&) { return true; });
  *slot = Entry{dict, tag, descr, typestr, options.sync, options.check_pointer, pointer_cache_generation(),
                entries().next_stamp(), view};
}

}  // namespace cubridge::python::cai_memo
