// Internal (Python glue of the memory face): a Python EMM plugin seen as a C++ MemoryManager, and the
// host-only base that Python's HostOnlyCUDAMemoryManager delegates to.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>

#include <mutex>
#include <string>

#include "cubridge/memory.hpp"
#include "py_common.hpp"
#include "cubridge/error.hpp"

namespace cubridge::python {
namespace nb = nanobind;

/// A Python callable as a finalizer: called with the GIL; an exception is reported as unraisable.
inline memory::MemoryPointer::Finalizer python_finalizer(nb::handle fn) {
  if (!fn.is_valid() || fn.is_none()) return nullptr;
  auto held = keep_python(fn);
  return [held] {
    if (!python_alive()) return;
    GilAcquired gil;
    PyObject* r = PyObject_CallNoArgs(static_cast<PyObject*>(held.get()));
    if (r == nullptr) PyErr_WriteUnraisable(static_cast<PyObject*>(held.get()));
    Py_XDECREF(r);
  };
}

/// Host memory through the driver for Python's HostOnlyCUDAMemoryManager (device memory is the subclass's).
class HostOnlyBase final : public memory::HostOnlyMemoryManager {
 public:
  using HostOnlyMemoryManager::HostOnlyMemoryManager;
  std::shared_ptr<memory::MemoryPointer> memalloc(std::size_t) override {
    throw cubridge::RuntimeError("HostOnlyCUDAMemoryManager.memalloc must be implemented by the subclass");
  }
  memory::MemoryInfo get_memory_info() override {
    throw cubridge::RuntimeError("HostOnlyCUDAMemoryManager.get_memory_info must be implemented by the subclass");
  }
  std::string name() const override { return "host-only"; }
  bool deferred() const noexcept { return host_frees_->deferred(); }
  /// The context, or a clear error for an instance made without one (context=None).
  const Context& require_context() const {
    if (!context())
      throw cubridge::InvalidArgument("HostOnlyCUDAMemoryManager: this instance was made with context=None, so it "
                                  "cannot allocate host memory; cubridge passes the context when it makes the manager");
    return *context();
  }
};

/// A Python plugin instance (a BaseCUDAMemoryManager subclass) behind the C++ interface.
class PyMemoryManager final : public memory::MemoryManager {
 public:
  PyMemoryManager(std::shared_ptr<Context> context, nb::object instance, bool stream_aware, std::string description)
      : MemoryManager(std::move(context)), stream_aware_(stream_aware), description_(std::move(description)) {
    GilAcquired gil;
    version_ = nb::cast<int>(instance.attr("interface_version"));
    instance_ = keep_python(instance);
  }
  using MemoryManager::memalloc;
  std::shared_ptr<memory::MemoryPointer> memalloc(std::size_t size) override {
    GilAcquired gil;
    return track(self().attr("memalloc")(size), "memalloc");
  }
  std::shared_ptr<memory::MemoryPointer> memalloc(std::size_t size, StreamRef stream) override {
    if (!stream_aware_) return memalloc(size);
    GilAcquired gil;
    return track(self().attr("memalloc")(size, nb::arg("stream") = reinterpret_cast<std::uintptr_t>(stream.handle())),
                 "memalloc");
  }
  bool stream_aware() const noexcept override { return stream_aware_; }
  std::shared_ptr<memory::MemoryPointer> memhostalloc(std::size_t size, bool mapped, bool portable, bool wc) override {
    GilAcquired gil;
    return pointer_from(self().attr("memhostalloc")(size, nb::arg("mapped") = mapped, nb::arg("portable") = portable,
                                                     nb::arg("wc") = wc), "memhostalloc");
  }
  std::shared_ptr<memory::MemoryPointer> mempin(std::shared_ptr<void> owner, std::uintptr_t pointer, std::size_t size,
                                                bool mapped) override {
    GilAcquired gil;
    return pointer_from(self().attr("mempin")(python_of(owner), pointer, size, nb::arg("mapped") = mapped), "mempin");
  }
  void initialize() override {
    GilAcquired gil;
    self().attr("initialize")();
  }
  memory::IpcHandle get_ipc_handle(const std::shared_ptr<memory::MemoryPointer>& memory) override {
    GilAcquired gil;
    nb::object r = self().attr("get_ipc_handle")(memory);
    if (!nb::isinstance<memory::IpcHandle>(r))
      throw nb::type_error(("get_ipc_handle of " + description_ + " returned " +
                            py_repr(r.type()) + "; expected a cubridge.IpcHandle").c_str());
    return nb::cast<memory::IpcHandle>(r);
  }
  memory::MemoryInfo get_memory_info() override {
    GilAcquired gil;
    nb::object r = self().attr("get_memory_info")();
    return {nb::cast<std::size_t>(r[0]), nb::cast<std::size_t>(r[1])};
  }
  void reset() override {
    GilAcquired gil;
    self().attr("reset")();
  }
  std::shared_ptr<void> defer_cleanup() override {
    GilAcquired gil;
    nb::object cm = self().attr("defer_cleanup")();
    cm.attr("__enter__")();
    auto held = keep_python(cm);
    return std::shared_ptr<void>(held.get(), [held](void*) {
      if (!python_alive()) return;
      GilAcquired gil;
      nb::handle c(static_cast<PyObject*>(held.get()));
      try {
        c.attr("__exit__")(nb::none(), nb::none(), nb::none());
      } catch (nb::python_error& e) {
        e.discard_as_unraisable("cubridge defer_cleanup __exit__");
      }
    });
  }
  int interface_version() const noexcept override { return version_; }
  std::string name() const override { return description_; }
  nb::handle self() const { return nb::handle(static_cast<PyObject*>(instance_.get())); }

 private:
  std::shared_ptr<memory::MemoryPointer> pointer_from(nb::handle r, const char* what) {
    if (!nb::isinstance<memory::MemoryPointer>(r))
      throw nb::type_error((std::string(what) + " of " + description_ + " returned " +
                            py_repr(r.type()) +
                            "; expected a cubridge.MemoryPointer (or MappedMemory/PinnedMemory)").c_str());
    return nb::cast<std::shared_ptr<memory::MemoryPointer>>(r);
  }
  // Device memory from Python: counted here, since the plugin's own finalizer is out of our sight.
  std::shared_ptr<memory::MemoryPointer> track(nb::handle r, const char* what) {
    auto p = pointer_from(r, what);
    std::size_t size = p->size();
    stats().record_alloc(size);
    auto counters = shared_stats();
    return std::make_shared<memory::MemoryPointer>(p->context(), p->device_pointer(), size, p,
                                                   [counters, size] { counters->record_free(size); });
  }
  std::shared_ptr<void> instance_;
  bool stream_aware_;
  std::string description_;
  int version_ = 0;
};

}  // namespace cubridge::python
