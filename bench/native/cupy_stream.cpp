#include "cupy_stream.hpp"

#include <Python.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace cubridge::bench {

double cupy_current_stream_ns(int repeat, const std::string& module_name) {
  PyObject* module = PyImport_ImportModule(module_name.c_str());
  PyObject* table = module != nullptr ? PyObject_GetAttrString(module, "__pyx_capi__") : nullptr;
  PyObject* capsule = table != nullptr && PyDict_Check(table) ? PyDict_GetItemString(table, "get_current_stream_ptr") : nullptr;
  const char* signature = "intptr_t (void)";
  auto* current = capsule != nullptr && PyCapsule_IsValid(capsule, signature)
                      ? reinterpret_cast<std::intptr_t (*)()>(PyCapsule_GetPointer(capsule, signature))
                      : nullptr;
  Py_XDECREF(table);
  Py_XDECREF(module);
  PyErr_Clear();
  if (current == nullptr || repeat <= 0) return -1;
  volatile std::intptr_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeat; ++i) sink = sink + current();
  const auto t1 = std::chrono::steady_clock::now();
  PyErr_Clear();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / repeat;
}

}  // namespace cubridge::bench
