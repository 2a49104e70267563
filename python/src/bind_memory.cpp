// Internal: bindings of the memory layer (only .def lines and tiny lambdas; the work lives in src/memory/).
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <limits>

#include "bindings.hpp"
#include "cubridge/memory.hpp"
#include "py_memory_manager.hpp"
#include "support/hex_text.hpp"
#include "py_stream.hpp"
#include "py_text.hpp"
#include "cubridge/error.hpp"

namespace cubridge::python {

namespace {

PyObject* g_out_of_memory = nullptr;

/// `pointer`, when [pointer, pointer + size) lies inside the 64-bit address space: a region that wraps
/// would make every view past the wrap an address at the bottom of memory (MemoryPointer.view checks
/// only against the size).
std::uintptr_t region_start(const char* who, const char* name, std::uintptr_t pointer, std::size_t size) {
  if (size > std::numeric_limits<std::uintptr_t>::max() - pointer)
    throw nb::value_error((std::string(who) + ": " + name + " " + support::hex(pointer) + " + size " +
                           std::to_string(size) + " passes the end of the 64-bit address space (2**64); "
                           "the region [pointer, pointer + size) must lie inside it").c_str());
  return pointer;
}

void translate_oom(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const OutOfMemory& e) {
    PyObject* exc = PyObject_CallFunction(g_out_of_memory, "s", e.what());
    if (exc == nullptr) return;
    nb::handle h(exc);
    h.attr("code") = e.code();
    h.attr("name") = e.name();
    h.attr("call") = e.call();
    h.attr("description") = e.description();
    h.attr("requested") = e.requested();
    h.attr("free") = e.free_bytes();
    h.attr("total") = e.total_bytes();
    PyErr_SetObject(g_out_of_memory, exc);
    Py_DECREF(exc);
  }
}

/// `obj` as a T (None: null), or a TypeError naming `what`, the value and what is accepted (nb::cast
/// would throw std::bad_cast, which reaches Python as "RuntimeError: std::bad_cast").
template <typename T>
std::shared_ptr<T> optional_arg(nb::handle obj, const char* what, const char* accepted) {
  std::shared_ptr<T> out;
  if (obj.is_none()) return out;
  if (!nb::try_cast(obj, out))
    throw nb::type_error((std::string(what) + " must be None or " + accepted + ", got " +
                          py_repr(obj) + " (" + py_type_name(obj) + ")").c_str());
  return out;
}

std::shared_ptr<Context> context_of(nb::handle obj) {
  return optional_arg<Context>(obj, "context", "a cubridge Context");
}

memory::IpcHandle::Bytes handle_bytes(nb::bytes b) {
  if (b.size() != memory::IpcHandle::kHandleSize)
    throw cubridge::InvalidArgument("IpcHandle: handle is " + std::to_string(b.size()) + " bytes; a CUipcMemHandle is 64 bytes");
  memory::IpcHandle::Bytes out{};
  std::memcpy(out.data(), b.c_str(), out.size());
  return out;
}

std::optional<memory::IpcHandle::Uuid> uuid_bytes(nb::handle b) {
  if (b.is_none()) return std::nullopt;
  if (!nb::isinstance<nb::bytes>(b))
    throw nb::type_error(("IpcHandle: source_info must be None or the 16 bytes of a device UUID, got " +
                          py_repr(b) + " (" + py_type_name(b) + ")").c_str());
  auto bytes = nb::borrow<nb::bytes>(b);
  if (bytes.size() != 16)
    throw cubridge::InvalidArgument("IpcHandle: source_info is " + std::to_string(bytes.size()) + " bytes; a device UUID is 16 bytes");
  memory::IpcHandle::Uuid out{};
  std::memcpy(out.data(), bytes.c_str(), 16);
  return out;
}

nb::bytes to_bytes(const std::vector<unsigned char>& v) { return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size()); }

struct DeferGuard {
  std::shared_ptr<void> guard;
};

const char* kind_name(memory::MemoryKind k) {
  return k == memory::MemoryKind::device ? "device" : k == memory::MemoryKind::mapped ? "mapped" : "pinned";
}

}  // namespace

void bind_memory(nb::module_& m) {
  using memory::MemoryPointer;
  nb::object cuda_error = m.attr("CudaError");
  nb::object bases = nb::make_tuple(cuda_error, nb::handle(PyExc_MemoryError));
  g_out_of_memory = PyErr_NewExceptionWithDoc("cubridge.OutOfMemory",
      "A memory manager could not allocate (after flushing pending frees and retrying once). "
      "Attributes: requested, free, total (bytes), plus CudaError's code/name/call/description.",
      bases.ptr(), nullptr);
  m.attr("OutOfMemory") = nb::handle(g_out_of_memory);
  nb::register_exception_translator(translate_oom);

  nb::class_<MemoryPointer>(m, "MemoryPointer")
      .def(nb::new_([](nb::handle ctx, std::uintptr_t pointer, std::size_t size, nb::handle owner, nb::handle finalizer) {
             return std::make_shared<MemoryPointer>(context_of(ctx), region_start("MemoryPointer", "pointer", pointer, size), size, keep_python(owner), python_finalizer(finalizer));
           }), nb::arg("context").none(), nb::arg("pointer"), nb::arg("size"), nb::arg("owner").none() = nb::none(),
           nb::arg("finalizer").none() = nb::none())
      .def_prop_ro("context", &MemoryPointer::context)
      .def_prop_ro("device_pointer", &MemoryPointer::device_pointer)
      .def_prop_ro("handle", &MemoryPointer::handle)
      .def_prop_ro("size", &MemoryPointer::size)
      .def_prop_ro("nbytes", &MemoryPointer::size)
      .def_prop_ro("host_pointer", &MemoryPointer::host_pointer)
      .def_prop_ro("kind", [](const MemoryPointer& p) { return kind_name(p.kind()); })
      .def_prop_ro("owner", [](const MemoryPointer& p) { return python_of(p.owner()); })
      .def_prop_ro("refct", &MemoryPointer::refct)
      .def_prop_ro("freed", &MemoryPointer::freed)
      .def("incref", &MemoryPointer::incref)
      .def("decref", &MemoryPointer::decref)
      .def("free", &MemoryPointer::free, "Gives the memory back now (the finalizer runs once).")
      .def("view", [](std::shared_ptr<MemoryPointer> self, std::size_t start, std::optional<std::size_t> stop) {
             return MemoryPointer::view(self, start, stop.value_or(MemoryPointer::npos)); },
           nb::arg("start"), nb::arg("stop").none() = nb::none())
      .def("__int__", &MemoryPointer::device_pointer)
      .def("__repr__", [](const MemoryPointer& p) {
        return std::string("<cubridge.") + (p.kind() == memory::MemoryKind::device ? "MemoryPointer" : p.kind() == memory::MemoryKind::mapped ? "MappedMemory" : "PinnedMemory") +
               " " + std::to_string(p.size()) + " bytes at " + std::to_string(p.kind() == memory::MemoryKind::pinned ? p.host_pointer() : p.device_pointer()) + ">"; });
  nb::class_<memory::AutoFreePointer, MemoryPointer>(m, "AutoFreePointer")
      .def(nb::new_([](nb::handle ctx, std::uintptr_t pointer, std::size_t size, nb::handle owner, nb::handle finalizer) {
             return std::make_shared<memory::AutoFreePointer>(context_of(ctx), region_start("AutoFreePointer", "pointer", pointer, size), size, keep_python(owner), python_finalizer(finalizer));
           }), nb::arg("context").none(), nb::arg("pointer"), nb::arg("size"), nb::arg("owner").none() = nb::none(),
           nb::arg("finalizer").none() = nb::none());
  nb::class_<memory::MappedMemory, memory::AutoFreePointer>(m, "MappedMemory")
      .def(nb::new_([](nb::handle ctx, std::uintptr_t host, std::uintptr_t dev, std::size_t size, nb::handle owner, nb::handle finalizer) {
             return std::make_shared<memory::MappedMemory>(context_of(ctx), region_start("MappedMemory", "host_pointer", host, size),
                                                          region_start("MappedMemory", "device_pointer", dev, size), size, keep_python(owner), python_finalizer(finalizer));
           }), nb::arg("context").none(), nb::arg("host_pointer"), nb::arg("device_pointer"), nb::arg("size"),
           nb::arg("owner").none() = nb::none(), nb::arg("finalizer").none() = nb::none());
  nb::class_<memory::PinnedMemory, memory::AutoFreePointer>(m, "PinnedMemory")
      .def(nb::new_([](nb::handle ctx, std::uintptr_t host, std::size_t size, nb::handle owner, nb::handle finalizer) {
             return std::make_shared<memory::PinnedMemory>(context_of(ctx), region_start("PinnedMemory", "pointer", host, size), size, keep_python(owner), python_finalizer(finalizer));
           }), nb::arg("context").none(), nb::arg("pointer"), nb::arg("size"), nb::arg("owner").none() = nb::none(),
           nb::arg("finalizer").none() = nb::none());

  nb::class_<memory::IpcHandle>(m, "IpcHandle")
      .def(nb::new_([](nb::handle base, nb::bytes handle, std::size_t size, nb::handle source_info, std::size_t offset) {
             auto b = optional_arg<MemoryPointer>(base, "IpcHandle: base", "the MemoryPointer it was exported from");
             return memory::IpcHandle(b, handle_bytes(handle), size, uuid_bytes(source_info), offset);
           }), nb::arg("base").none(), nb::arg("handle"), nb::arg("size"), nb::arg("source_info").none() = nb::none(),
           nb::arg("offset") = 0)
      .def_prop_ro("base", &memory::IpcHandle::base)
      .def_prop_ro("handle", [](const memory::IpcHandle& h) { return nb::bytes(reinterpret_cast<const char*>(h.handle().data()), 64); })
      .def_prop_ro("size", &memory::IpcHandle::size)
      .def_prop_ro("offset", &memory::IpcHandle::offset)
      .def_prop_ro("source_info", [](const memory::IpcHandle& h) -> nb::object {
        if (!h.source_info()) return nb::none();
        return nb::bytes(reinterpret_cast<const char*>(h.source_info()->data()), 16); })
      .def("to_bytes", [](const memory::IpcHandle& h) { return to_bytes(h.serialize()); },
           "The documented 120-byte layout (include/cubridge/memory/ipc_handle.hpp).")
      .def_static("from_bytes", [](nb::bytes b) {
        return memory::IpcHandle::deserialize({reinterpret_cast<const unsigned char*>(b.c_str()), b.size()}); }, nb::arg("data"))
      .def("open", [](const memory::IpcHandle& h, nb::handle ctx) {
        return h.open(ctx.is_none() ? Context::current() : nb::cast<std::shared_ptr<Context>>(ctx)); },
           nb::arg("context").none() = nb::none(), "Opens the handle in this process (closed when the result dies).")
      .def("__getstate__", [](const memory::IpcHandle& h) { return to_bytes(h.serialize()); })
      .def("__setstate__", [](memory::IpcHandle& h, nb::bytes b) {
        new (&h) memory::IpcHandle(memory::IpcHandle::deserialize({reinterpret_cast<const unsigned char*>(b.c_str()), b.size()})); });

  nb::class_<DeferGuard>(m, "_DeferGuard").def("release", [](DeferGuard& g) { g.guard.reset(); });
  nb::class_<HostOnlyBase>(m, "_HostOnlyBase")
      .def(nb::new_([](nb::handle ctx) { return std::make_shared<HostOnlyBase>(context_of(ctx)); }), nb::arg("context").none())
      .def("memhostalloc", [](HostOnlyBase& b, std::size_t size, bool mapped, bool portable, bool wc) {
             ScopedContext s(b.require_context()); return b.memhostalloc(size, mapped, portable, wc); },
           nb::arg("size"), nb::arg("mapped") = false, nb::arg("portable") = false, nb::arg("wc") = false)
      .def("mempin", [](HostOnlyBase& b, nb::handle owner, std::uintptr_t pointer, std::size_t size, bool mapped) {
             ScopedContext s(b.require_context()); return b.mempin(keep_python(owner), pointer, size, mapped); },
           nb::arg("owner").none(), nb::arg("pointer"), nb::arg("size"), nb::arg("mapped") = false)
      .def("reset", &HostOnlyBase::reset)
      .def("defer_cleanup", [](HostOnlyBase& b) { return DeferGuard{b.defer_cleanup()}; })
      .def_prop_ro("deferred", &HostOnlyBase::deferred)
      .def("pending", [](const HostOnlyBase& b) { auto s = b.pending(); return nb::make_tuple(s.count, s.bytes); });

  m.def("memalloc", [](std::size_t size, nb::handle stream) {
          return memory::allocate(Context::current(), size, to_stream_ref(stream, StreamRef::legacy())); },
        nb::arg("size"), nb::arg("stream").none() = nb::none(),
        "`size` bytes of device memory from the current context's memory manager (stream-ordered when it can).");
  m.def("memhostalloc", [](std::size_t size, bool mapped, bool portable, bool wc) {
          auto ctx = Context::current(); ScopedContext s(*ctx); return memory::manager_for(ctx)->memhostalloc(size, mapped, portable, wc); },
        nb::arg("size"), nb::arg("mapped") = false, nb::arg("portable") = false, nb::arg("wc") = false);
  m.def("mempin", [](nb::handle owner, std::uintptr_t pointer, std::size_t size, bool mapped) {
          auto ctx = Context::current(); ScopedContext s(*ctx); return memory::manager_for(ctx)->mempin(keep_python(owner), pointer, size, mapped); },
        nb::arg("owner").none(), nb::arg("pointer"), nb::arg("size"), nb::arg("mapped") = false);
  m.def("get_ipc_handle", [](std::shared_ptr<MemoryPointer> p) {
          auto ctx = p->context() ? p->context() : Context::current(); return memory::manager_for(ctx)->get_ipc_handle(p); },
        nb::arg("memory"));
  m.def("_ipc_handle_for", &memory::ipc_handle_for, nb::arg("memory"));
  m.def("_memory_info", [] {
          auto ctx = Context::current(); ScopedContext s(*ctx); auto i = memory::manager_for(ctx)->get_memory_info();
          return nb::make_tuple(i.free, i.total); });
  m.def("_memory_reset", [] { auto ctx = Context::current(); ScopedContext s(*ctx); memory::manager_for(ctx)->reset(); });
  m.def("_defer_cleanup", [] { return DeferGuard{memory::manager_for(Context::current())->defer_cleanup()}; });
  m.def("_manager_name", [] { return memory::manager_for(Context::current())->name(); });
  m.def("_set_builtin_manager", [](const std::string& name, bool from_env) {
          return memory::set_memory_manager(memory::builtin_manager(name), name, from_env); },
        nb::arg("name"), nb::arg("from_environment") = false);
  m.def("_set_library_manager", [](const std::string& path, bool from_env) {
          return memory::set_memory_manager(memory::load_plugin_library(path), path, from_env); },
        nb::arg("path"), nb::arg("from_environment") = false);
  m.def("_set_python_manager", [](nb::object factory, std::string description, bool from_env) {
          auto held = keep_python(factory);
          memory::ManagerFactory make = [held, description](std::shared_ptr<Context> ctx) -> std::shared_ptr<memory::MemoryManager> {
            GilAcquired gil;
            nb::object inst = nb::handle(static_cast<PyObject*>(held.get()))(ctx);
            bool stream_aware = nb::hasattr(inst, "_cubridge_stream_aware") && nb::cast<bool>(inst.attr("_cubridge_stream_aware"));
            return std::make_shared<PyMemoryManager>(ctx, inst, stream_aware, description);
          };
          return memory::set_memory_manager(make, description, from_env); },
        nb::arg("factory"), nb::arg("description"), nb::arg("from_environment") = false);
  m.def("_python_manager_instance", [](nb::handle ctx) -> nb::object {
          auto mgr = memory::manager_for(ctx.is_none() ? Context::current() : nb::cast<std::shared_ptr<Context>>(ctx));
          auto* py = dynamic_cast<PyMemoryManager*>(mgr.get());
          return py ? nb::borrow(py->self()) : nb::none(); }, nb::arg("context").none() = nb::none());
  m.def("memory_manager_description", &memory::memory_manager_description);
  m.def("_manager_env_locked", &memory::memory_manager_set_by_environment);
  m.def("_memory_stats", [] {
          nb::list out;
          for (auto& s : memory::memory_stats()) {
            nb::dict d;
            d["device"] = s.device;
            d["manager"] = s.manager;
            d["bytes_in_use"] = s.counts.bytes_in_use;
            d["peak_bytes"] = s.counts.peak_bytes;
            d["allocations"] = s.counts.live_allocations;
            d["total_allocations"] = s.counts.total_allocations;
            d["pending_frees"] = s.pending.count;
            d["pending_bytes"] = s.pending.bytes;
            out.append(d);
          }
          return out; });
}

}  // namespace cubridge::python
