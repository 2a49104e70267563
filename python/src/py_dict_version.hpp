// Internal (Python glue): whether a dict changed since it was last read, by its version tag (PEP 509). CPython
// gives a dict a new tag at its creation and at every change of it (an item set, deleted or cleared), each drawn
// from one counter, so a tag seen again is the same dict, unchanged, holding the same value objects. Readers of
// dicts they see again and again (a prebuilt __cuda_array_interface__ dict, numba's array instance dicts) keep
// what they read by it. Where the tag does not follow every change, dict_version answers 0 and callers read the
// dict: Python 3.14 removed the tag, and from 3.13 an object's instance dict that shares the object's inline
// values (ma_values set) is changed by attribute stores that leave its tag as it was (checked on 3.11.7, 3.12.1
// and 3.13.0: on 3.11 and 3.12 every store, specialized or not, changes it).
#pragma once

#include <Python.h>

#include <cstdint>

namespace cubridge::python {

/// `d`'s version tag (`d` a dict), or 0 where this Python keeps none.
inline std::uint64_t dict_version(PyObject* d) noexcept {
#if PY_VERSION_HEX < 0x030E0000
  // Deprecated in 3.12 (no longer for extensions to read), still kept by CPython through 3.13.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
  const auto* dict = reinterpret_cast<PyDictObject*>(d);
#if PY_VERSION_HEX >= 0x030D0000
  if (dict->ma_values != nullptr) return 0;
#endif
  return dict->ma_version_tag;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#else
  (void)d;
  return 0;
#endif
}

}  // namespace cubridge::python
