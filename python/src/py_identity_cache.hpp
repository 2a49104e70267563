// Internal (Python glue): the facts a reader parsed from a few Python objects it sees again and again (a CAI
// dict's typestr str, a NumPy dtype), found again by the object's identity. Each object is held by a strong
// reference while its entry lives, so its address can never be another object's; entries are replaced round
// robin. Guarded by the GIL.
#pragma once

#include <Python.h>

#include <array>
#include <cstddef>

namespace cubridge::python {

/// Up to N objects' `Facts`, by identity. Only immutable objects belong here (a str, a NumPy dtype): the facts are
/// never read again from the object.
template <class Facts, std::size_t N>
class IdentityCache {
 public:
  /// The facts kept for `object`, or null.
  const Facts* find(PyObject* object) const noexcept {
    for (const Entry& e : entries_)
      if (e.object == object) return &e.facts;
    return nullptr;
  }

  /// Keeps `facts` for `object` (a new strong reference), replacing the oldest entry; returns them (a copy: the
  /// entry may be replaced by Python code the release of the replaced object runs).
  Facts keep(PyObject* object, const Facts& facts) {
    Entry& slot = entries_[next_++ % N];
    PyObject* old = slot.object;
    slot.object = nullptr;  // free before its object may go: no later find sees a freed object's address
    Py_XDECREF(old);        // may run Python code, which may keep other entries
    Py_INCREF(object);
    PyObject* displaced = slot.object;  // a nested keep's, had it come round to this slot meanwhile
    slot.object = object;
    slot.facts = facts;
    Py_XDECREF(displaced);
    return facts;
  }

 private:
  struct Entry {
    PyObject* object = nullptr;
    Facts facts{};
  };
  std::array<Entry, N> entries_{};
  std::size_t next_ = 0;
};

}  // namespace cubridge::python
