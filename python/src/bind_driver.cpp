// Internal: bindings of the driver layer: errors, Device, Context, Stream, Event.
#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstdlib>
#include <cstring>

#include "bindings.hpp"
#include "py_gil.hpp"
#include "cubridge/driver.hpp"
#include "driver/driver_api.hpp"
#include "py_stream.hpp"

namespace cubridge::python {

namespace {

PyObject* g_cuda_error = nullptr;
PyObject* g_driver_unavailable = nullptr;

void raise_cuda_error(PyObject* type, const CudaError& e) {
  PyObject* exc = PyObject_CallFunction(type, "s", e.what());
  if (exc == nullptr) return;
  PyObject_SetAttrString(exc, "code", nb::int_(e.code()).ptr());
  PyObject_SetAttrString(exc, "name", nb::str(e.name().c_str()).ptr());
  PyObject_SetAttrString(exc, "call", nb::str(e.call().c_str()).ptr());
  PyObject_SetAttrString(exc, "description", nb::str(e.description().c_str()).ptr());
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const DriverUnavailable& e) {
    raise_cuda_error(g_driver_unavailable, e);
  } catch (const CudaError& e) {
    raise_cuda_error(g_cuda_error, e);
  }
}

PyStream make_default(CUstream which) { return PyStream{nullptr, which, nb::none()}; }

std::string stream_repr(const PyStream& s) {
  if (s.owned) return "<cubridge.Stream " + std::to_string(reinterpret_cast<std::uintptr_t>(s.handle)) + ">";
  if (s.handle == CU_STREAM_LEGACY) return "<cubridge.Stream legacy default>";
  if (s.handle == CU_STREAM_PER_THREAD) return "<cubridge.Stream per-thread default>";
  return "<cubridge.Stream external " + std::to_string(reinterpret_cast<std::uintptr_t>(s.handle)) + ">";
}

}  // namespace

void bind_driver(nb::module_& m) {
  g_cuda_error = PyErr_NewExceptionWithDoc(
      "cubridge.CudaError",
      "A CUDA driver call failed. Attributes: code (CUresult), name, description, call.",
      error_bases(m, PyExc_RuntimeError).ptr(), nullptr);
  g_driver_unavailable = PyErr_NewExceptionWithDoc(
      "cubridge.DriverUnavailable",
      "No usable CUDA driver or device; raised by the first GPU operation.", g_cuda_error, nullptr);
  m.attr("CudaError") = nb::handle(g_cuda_error);
  m.attr("DriverUnavailable") = nb::handle(g_driver_unavailable);
  nb::register_exception_translator(translate);

  m.def("driver_available", &driver::available, "True when a CUDA driver and device are usable.");
  m.def("driver_version", [] { return driver::api().driver_version; });
  m.def("device_count", &Device::count);

  nb::class_<Device>(m, "Device")
      .def(nb::init<int>(), nb::arg("ordinal"))
      .def_prop_ro("id", &Device::ordinal)
      .def_prop_ro("name", &Device::name)
      .def_prop_ro("compute_capability", &Device::compute_capability)
      .def_prop_ro("uuid", &Device::uuid_string)
      .def_prop_ro("uuid_bytes", [](const Device& d) { auto u = d.uuid(); return nb::bytes(u.data(), u.size()); })
      .def_prop_ro("pci_bus_id", &Device::pci_bus_id)
      .def_prop_ro("total_memory", &Device::total_memory)
      .def_prop_ro("multiprocessor_count", &Device::multiprocessor_count)
      .def("attribute", &Device::attribute, nb::arg("cu_device_attribute"))
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def("__hash__", [](const Device& d) { return d.ordinal(); })
      .def("__repr__", [](const Device& d) { return "<cubridge.Device " + std::to_string(d.ordinal()) + ">"; });

  nb::class_<Context>(m, "Context")
      .def_prop_ro("device", &Context::device)
      .def_prop_ro("handle", [](const Context& c) { return reinterpret_cast<std::uintptr_t>(c.handle()); })
      .def_prop_ro("valid", &Context::valid)
      .def("synchronize", &Context::synchronize, nb::call_guard<GilReleased>())
      .def("__repr__", [](const Context& c) { return "<cubridge.Context device " + std::to_string(c.device().ordinal()) + (c.valid() ? "" : " closed") + ">"; });
  m.def("current_context", &Context::current);
  m.def("_current_device", [] { return Context::current()->device().ordinal(); },
        "The ordinal of the current context's device (cheap: @jit keys its loaded kernels by it).");
  m.def("primary_context", [](int ordinal) { return Context::primary(Device(ordinal)); }, nb::arg("device") = 0);
  m.def("close", &Context::close_all,
        "Destroys every context cubridge opened; objects bound to them become invalid and say so.");

  nb::class_<PyStream>(m, "Stream")
      .def_prop_ro("handle", [](const PyStream& s) { return reinterpret_cast<std::uintptr_t>(s.ref().handle()); })
      .def_prop_ro("ptr", [](const PyStream& s) { return reinterpret_cast<std::uintptr_t>(s.ref().handle()); })
      .def_prop_ro("cai_value", [](const PyStream& s) { return s.ref().cai_value(); },
                   "This stream as CAI v3 names it: 1 legacy default, 2 per-thread default, else the handle.")
      .def_prop_ro("is_default", [](const PyStream& s) { auto r = s.ref(); return r.is_legacy_default() || r.is_per_thread_default(); })
      .def_prop_ro("external", [](const PyStream& s) { return !s.owned && s.handle != CU_STREAM_LEGACY && s.handle != CU_STREAM_PER_THREAD; })
      .def("synchronize", [](const PyStream& s) { s.ref().synchronize(); }, nb::call_guard<GilReleased>())
      .def("query", [](const PyStream& s) { return s.ref().query(); })
      .def("wait_event", [](const PyStream& s, const Event& e) { s.ref().wait(e.ref()); }, nb::arg("event"))
      .def("__cuda_stream__", [](const PyStream& s) { return nb::make_tuple(0, reinterpret_cast<std::uintptr_t>(s.ref().handle())); })
      .def("__int__", [](const PyStream& s) { return reinterpret_cast<std::uintptr_t>(s.ref().handle()); })
      .def("__eq__", [](const PyStream& a, nb::handle b) {
        return nb::isinstance<PyStream>(b) && nb::cast<const PyStream&>(b).handle == a.handle; })
      .def("__hash__", [](const PyStream& s) { return reinterpret_cast<std::uintptr_t>(s.handle); })
      .def("__repr__", &stream_repr);

  m.def("stream", [](bool non_blocking, int priority) {
        auto s = std::make_shared<Stream>(Context::current(), Stream::Options{non_blocking, priority});
        CUstream h = s->handle();
        return PyStream{std::move(s), h, nb::none()};
      }, nb::arg("non_blocking") = true, nb::arg("priority") = 0, "A new stream on the current device.");
  m.def("legacy_default_stream", [] { return make_default(CU_STREAM_LEGACY); });
  m.def("per_thread_default_stream", [] { return make_default(CU_STREAM_PER_THREAD); });
  m.def("default_stream", [] { return make_default(StreamRef::process_default().handle()); },
        "The legacy default stream, or the per-thread one when CUBRIDGE_PER_THREAD_DEFAULT_STREAM=1.");
  m.def("external_stream", [](nb::object obj) {
        std::uintptr_t h = stream_handle_of(obj, "external_stream");
        if (h == 0) throw nb::value_error("external_stream: handle 0 is the legacy default stream's null handle; use legacy_default_stream()");
        return PyStream{nullptr, reinterpret_cast<CUstream>(h), PyLong_Check(obj.ptr()) ? nb::none() : obj};
      }, nb::arg("stream"),
      "Wraps a stream owned elsewhere (int handle, CuPy/PyTorch/Numba/cuda.core stream); never destroys it.");

  nb::class_<Event>(m, "Event")
      .def_prop_ro("handle", [](const Event& e) { return reinterpret_cast<std::uintptr_t>(e.handle()); })
      .def("record", [](const Event& e, nb::handle stream) { e.record(to_stream_ref(stream, StreamRef::legacy())); },
           nb::arg("stream") = nb::none())
      .def("wait", [](const Event& e, nb::handle stream) { to_stream_ref(stream, StreamRef::legacy()).wait(e.ref()); },
           nb::arg("stream") = nb::none(), "Makes `stream` wait for this event on the GPU.")
      .def("query", &Event::query)
      .def("synchronize", &Event::synchronize, nb::call_guard<GilReleased>())
      .def("elapsed_time", [](const Event& start, const Event& end) { return Event::elapsed_ms(start, end); },
           nb::arg("end"), "Milliseconds from this event to `end` (both created with timing=True).");
  m.def("event", [](bool timing) { return Event(Context::current(), Event::Options{timing, false, false}); },
        nb::arg("timing") = false);
}

}  // namespace cubridge::python
