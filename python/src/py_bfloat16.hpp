// Internal: whether a Python dtype object is ml_dtypes.bfloat16, the one dtype NumPy and CuPy give bfloat16
// arrays. Their typestr is '<V2' (opaque bytes), so the dtype object is what says bfloat16, as numba-cuda's
// typing reads it (numpy_support.FROM_DTYPE[np.dtype(ml_dtypes.bfloat16)] = bfloat16). A bare CAI '<V2'
// without such a dtype stays opaque bytes.
#pragma once

#include <nanobind/nanobind.h>

#include <cstring>

namespace cubridge::python {

namespace nb = nanobind;

/// True when `dtype` (a numpy.dtype, or null) is np.dtype(ml_dtypes.bfloat16): its scalar type is the class
/// `bfloat16` of module `ml_dtypes`. Only asked for 2-byte 'V' dtypes, so no cache; raises what reading the
/// attributes raised.
inline bool is_ml_dtypes_bfloat16(PyObject* dtype) {
  if (dtype == nullptr) return false;
  nb::object type = nb::steal(PyObject_GetAttrString(dtype, "type"));
  if (!type.is_valid()) {
    PyErr_Clear();  // not a NumPy dtype: no scalar type to ask
    return false;
  }
  if (!PyType_Check(type.ptr())) return false;
  auto text_is = [&type](const char* attribute, const char* expected) {
    nb::object value = nb::steal(PyObject_GetAttrString(type.ptr(), attribute));
    if (!value.is_valid()) throw nb::python_error();
    if (!PyUnicode_Check(value.ptr())) return false;
    const char* text = PyUnicode_AsUTF8(value.ptr());
    if (text == nullptr) throw nb::python_error();
    return std::strcmp(text, expected) == 0;
  };
  return text_is("__module__", "ml_dtypes") && text_is("__name__", "bfloat16");
}

}  // namespace cubridge::python
