// Internal (Python glue of the kernel face): cubridge.KernelLaunch, `kernel[griddim, blockdim, stream,
// sharedmem]`, as a plain CPython type whose call is a vectorcall: the arguments are read where the caller
// left them, with no *args tuple per launch (a tuple per call was ~10% of a host-side launch and fed the
// GC). Errors raised in C++ are handed to nanobind's translators, so a launch raises what it raised as a
// nanobind method. Included only by python/src/bind_kernel.cpp.
#pragma once

#include <exception>
#include <new>
#include <span>

#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>  // the member flags' names before Python 3.12
#define Py_T_PYSSIZET T_PYSSIZET
#define Py_READONLY READONLY
#endif

#include "py_dispatch.hpp"

namespace cubridge::python::kernel_glue {

/// A KernelLaunch instance: a loaded kernel's (`owner` the cubridge.Kernel, `kernel` its PyKernel) or a lazy
/// @jit dispatcher's (`owner` the cubridge.Dispatcher, `kernel` null, `lazy_key` the configuration as it was read:
/// launch_detail::kept_key; the kernel the arguments select validates it at each call). `owner`, `stream_keepalive` and
/// `lazy_key` are strong references, shown to the GC: a dispatcher keeps its last lazy launch
/// (DispatchCache::last_launch), and a user may keep a launch in the dispatcher's own attributes. The type
/// has no tp_clear (a launch is immutable: the dispatcher's side of such a cycle is cleared), so a launch
/// reachable from a finalizer still has its owner.
struct LaunchObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* owner;
  PyKernel* kernel;
  PyObject* stream_keepalive;  // a foreign stream object named in the configuration, or null
  PyObject* lazy_key;          // a lazy launch's kernel[...] key, else null
  LaunchConfig config;
  bool nothing_to_do;  // forall(0)
};

namespace launch_detail {

inline PyTypeObject* g_type = nullptr;
inline PyObject* g_reraise = nullptr;             // a nanobind function that rethrows `pending`
inline thread_local std::exception_ptr pending;  // set just before g_reraise is called

/// Sets the Python error for the C++ exception being handled, exactly as a nanobind binding would.
inline void raise_current() noexcept {
  pending = std::current_exception();
  PyObject* r = PyObject_CallNoArgs(g_reraise);  // always fails, with the translated error set
  Py_XDECREF(r);
  pending = nullptr;
}

inline PyObject* call(PyObject* self, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) noexcept {
  auto* l = reinterpret_cast<LaunchObject*>(self);
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) != 0) {
    PyErr_Format(PyExc_TypeError, "kernel '%s' takes its arguments by position only, got keyword '%U'",
                 l->kernel->display_name().c_str(), PyTuple_GET_ITEM(kwnames, 0));
    return nullptr;
  }
  const std::span<PyObject* const> argv(args, static_cast<std::size_t>(PyVectorcall_NARGS(nargsf)));
  try {
    if (l->nothing_to_do) check_count(*l->kernel, argv);
    else launch_with(*l->kernel, l->config, argv);
  } catch (...) {
    raise_current();
    return nullptr;
  }
  Py_RETURN_NONE;
}

/// A lazy @jit launch's call: the C++ dispatch where it knows the arguments, else the dispatcher's general path.
inline PyObject* lazy_call(PyObject* self, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) noexcept {
  auto* l = reinterpret_cast<LaunchObject*>(self);
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) != 0) {
    PyObject* name = PyObject_GetAttrString(l->owner, "__name__");
    if (name == nullptr) return nullptr;
    PyErr_Format(PyExc_TypeError, "kernel '%S' takes its arguments by position only, got keyword '%U'", name,
                 PyTuple_GET_ITEM(kwnames, 0));
    Py_DECREF(name);
    return nullptr;
  }
  const std::span<PyObject* const> argv(args, static_cast<std::size_t>(PyVectorcall_NARGS(nargsf)));
  try {
    DispatchCache& cache = *nb::inst_ptr<DispatchCache>(l->owner);
    if (!lazy_launch(cache, l->owner, l->config, argv)) general_launch(l->owner, false, l->lazy_key, argv);
  } catch (...) {
    raise_current();
    return nullptr;
  }
  Py_RETURN_NONE;
}

inline void dealloc(PyObject* self) {
  auto* l = reinterpret_cast<LaunchObject*>(self);
  PyTypeObject* tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  l->config.~LaunchConfig();
  Py_XDECREF(l->lazy_key);
  Py_XDECREF(l->stream_keepalive);
  Py_XDECREF(l->owner);
  tp->tp_free(self);
  Py_DECREF(tp);  // a heap type's instances hold a reference to it
}

inline int traverse(PyObject* self, visitproc visit, void* arg) {
  auto* l = reinterpret_cast<LaunchObject*>(self);
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(l->owner);
  Py_VISIT(l->stream_keepalive);
  Py_VISIT(l->lazy_key);
  return 0;
}

inline PyObject* extent_tuple(const Extent3& e) { return Py_BuildValue("(LLL)", static_cast<long long>(e.x), static_cast<long long>(e.y), static_cast<long long>(e.z)); }
inline PyObject* griddim(PyObject* self, void*) { return extent_tuple(reinterpret_cast<LaunchObject*>(self)->config.grid); }
inline PyObject* blockdim(PyObject* self, void*) { return extent_tuple(reinterpret_cast<LaunchObject*>(self)->config.block); }
inline PyObject* sharedmem(PyObject* self, void*) { return PyLong_FromLongLong(reinterpret_cast<LaunchObject*>(self)->config.shared_mem); }

/// pickle: a @jit dispatcher's launch as `dispatcher[key]` again (the dispatcher pickles itself, as numba-cuda's
/// configured launches carry theirs); a loaded Kernel's launch does not pickle (a Kernel is loaded code).
inline PyObject* reduce(PyObject* self, PyObject*) {
  auto* l = reinterpret_cast<LaunchObject*>(self);
  if (l->lazy_key == nullptr) {
    PyErr_SetString(PyExc_TypeError, "cannot pickle a launch of a loaded cubridge.Kernel (loaded code is tied to "
                                     "this process); pickle the @cubridge.jit kernel's launch, kernel[griddim, "
                                     "blockdim], or the kernel itself");
    return nullptr;
  }
  PyObject* op = PyImport_ImportModule("operator");
  if (op == nullptr) return nullptr;
  PyObject* getitem = PyObject_GetAttrString(op, "getitem");
  Py_DECREF(op);
  if (getitem == nullptr) return nullptr;
  PyObject* r = Py_BuildValue("(N(OO))", getitem, l->owner, l->lazy_key);
  return r;
}

/// Whether `key` is a tuple of exact ints and tuples of exact ints: a configuration whose values cannot change.
inline bool immutable_ints(PyObject* key) noexcept {
  if (!PyTuple_CheckExact(key)) return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); ++i)
    if (PyObject* item = PyTuple_GET_ITEM(key, i); !PyLong_CheckExact(item) && !is_exact_int_tuple(item)) return false;
  return true;
}

/// One extent as a configuration gives it: an int for rank 1, else a tuple of 2 or 3 ints.
inline nb::object extent_value(const Extent3& e) {
  PyObject* v = e.rank == 1   ? PyLong_FromLongLong(e.x)
                : e.rank == 2 ? Py_BuildValue("(LL)", static_cast<long long>(e.x), static_cast<long long>(e.y))
                              : Py_BuildValue("(LLL)", static_cast<long long>(e.x), static_cast<long long>(e.y),
                                              static_cast<long long>(e.z));
  if (v == nullptr) throw nb::python_error();
  return nb::steal(v);
}

/// The key a lazy launch keeps, which its general path and its pickle read again: `key` itself where its values
/// cannot change, else the configuration as it was read (a list or an __index__ object in the key may change
/// after the subscript). The stream, where one is named, is kept as the object given: its handle is read again
/// there (the stream objects of CuPy, numba, PyTorch and cubridge never change theirs). `key` passed config_of.
inline nb::object kept_key(PyObject* key, const LaunchConfig& c) {
  if (immutable_ints(key)) return nb::borrow(key);
  const Py_ssize_t n = PyTuple_GET_SIZE(key);
  nb::object out = nb::steal(PyTuple_New(n));
  if (!out.is_valid()) throw nb::python_error();
  PyTuple_SET_ITEM(out.ptr(), 0, extent_value(c.grid).release().ptr());
  PyTuple_SET_ITEM(out.ptr(), 1, extent_value(c.block).release().ptr());
  if (n > 2) PyTuple_SET_ITEM(out.ptr(), 2, nb::borrow(PyTuple_GET_ITEM(key, 2)).release().ptr());
  if (n > 3) {
    PyObject* smem = PyLong_FromLongLong(c.shared_mem);
    if (smem == nullptr) throw nb::python_error();
    PyTuple_SET_ITEM(out.ptr(), 3, smem);
  }
  return out;
}

/// Whether a launch made with `a` does what one made with `b` does (a configuration without a stream: its
/// default stream is read at each subscript, as the process's setting may change).
inline bool same_config(const LaunchConfig& a, const LaunchConfig& b) noexcept {
  return a.grid == b.grid && a.block == b.block && a.shared_mem == b.shared_mem && !a.stream && !b.stream &&
         a.default_stream == b.default_stream;
}

}  // namespace launch_detail

/// Creates cubridge.KernelLaunch in `m` (once, from bind_kernel).
inline void register_launch_type(nb::module_& m) {
  using namespace launch_detail;
  static PyGetSetDef getset[] = {
      // Each doc is "type: text", which scripts/gen_api_docs.py reads as the attribute's type and doc.
      {"griddim", griddim, nullptr, "tuple: the grid's (x, y, z) extents, in blocks", nullptr},
      {"blockdim", blockdim, nullptr, "tuple: the block's (x, y, z) extents, in threads", nullptr},
      {"sharedmem", sharedmem, nullptr, "int: dynamic shared memory per block, in bytes", nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static PyMethodDef methods[] = {
      {"__reduce__", reduce, METH_NOARGS, "pickle: a @cubridge.jit kernel's launch pickles as kernel[config]"},
      {nullptr, nullptr, 0, nullptr}};
  static PyMemberDef members[] = {
      {"__vectorcalloffset__", Py_T_PYSSIZET, static_cast<Py_ssize_t>(offsetof(LaunchObject, vectorcall)), Py_READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(traverse)},
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_getset, getset},
      {Py_tp_methods, methods},
      {Py_tp_members, members},
      {Py_tp_doc, const_cast<char*>("A kernel with its launch configuration; call it with the arguments.")},
      {0, nullptr}};
  static PyType_Spec spec = {"cubridge._core.KernelLaunch", sizeof(LaunchObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                                 Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                             slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw nb::python_error();
  g_type = reinterpret_cast<PyTypeObject*>(type);  // kept for the process, as nanobind keeps its types
  g_reraise = nb::cpp_function([] { std::rethrow_exception(pending); }).release().ptr();
  m.attr("KernelLaunch") = nb::handle(type);
}

/// A new KernelLaunch of `kernel` (the cubridge.Kernel `owner`) with a validated configuration.
inline nb::object make_launch(nb::handle owner, const LaunchConfig& config, nb::handle stream_keepalive,
                              bool nothing_to_do) {
  PyObject* o = launch_detail::g_type->tp_alloc(launch_detail::g_type, 0);
  if (o == nullptr) throw nb::python_error();
  auto* l = reinterpret_cast<LaunchObject*>(o);
  l->vectorcall = launch_detail::call;
  l->owner = nb::borrow(owner).release().ptr();
  l->kernel = nb::inst_ptr<PyKernel>(owner);
  l->stream_keepalive = stream_keepalive.is_valid() ? nb::borrow(stream_keepalive).release().ptr() : nullptr;
  l->lazy_key = nullptr;
  new (&l->config) LaunchConfig(config);
  l->nothing_to_do = nothing_to_do;
  return nb::steal(o);
}

/// `kernel[griddim, blockdim, stream, sharedmem]`: the Kernel type's mp_subscript slot, called by CPython
/// directly (numba-style code writes `k[1, 32](...)` at every launch, so the configuration is on the hot
/// path too). A bad configuration fails here, before any launch.
inline PyObject* subscript(PyObject* self, PyObject* key) noexcept {
  try {
    nb::object keepalive;
    LaunchConfig c = configure(*nb::inst_ptr<PyKernel>(self), key, keepalive);
    return make_launch(self, c, keepalive, false).release().ptr();
  } catch (...) {
    launch_detail::raise_current();
    return nullptr;
  }
}

/// The Kernel type's slots (nb::type_slots).
inline PyType_Slot kernel_slots[] = {{Py_mp_subscript, reinterpret_cast<void*>(subscript)}, {0, nullptr}};

/// `dispatcher[griddim, blockdim, stream, sharedmem]` of a @jit dispatcher (the mp_subscript slot of its C++
/// base): a lazy KernelLaunch. The configuration is read now (a bad one fails here, as a loaded kernel's);
/// what depends on the kernel (block size limits, dynamic shared memory) is checked by the kernel each
/// call selects.
inline PyObject* lazy_subscript(PyObject* self, PyObject* key) noexcept {
  try {
    DispatchCache& cache = *nb::inst_ptr<DispatchCache>(self);
    // `k[1, 32]` passes the code's constant tuple: the very key of the last launch, which cannot have changed.
    if (cache.last_launch.is_valid() && reinterpret_cast<LaunchObject*>(cache.last_launch.ptr())->lazy_key == key &&
        launch_detail::immutable_ints(key))
      return nb::object(cache.last_launch).release().ptr();
    nb::object keepalive;
    const LaunchConfig c = config_of(key, keepalive);
    if (!keepalive.is_valid() && cache.last_launch.is_valid() &&
        launch_detail::same_config(reinterpret_cast<LaunchObject*>(cache.last_launch.ptr())->config, c))
      return nb::object(cache.last_launch).release().ptr();
    nb::object launch = make_launch(self, c, keepalive, false);
    auto* l = reinterpret_cast<LaunchObject*>(launch.ptr());
    l->kernel = nullptr;  // make_launch took the owner for a Kernel: a lazy launch has none until called
    l->lazy_key = launch_detail::kept_key(key, c).release().ptr();
    l->vectorcall = launch_detail::lazy_call;
    if (!keepalive.is_valid()) cache.last_launch = launch;  // the old one released last: it may hold the dispatcher
    return launch.release().ptr();
  } catch (...) {
    launch_detail::raise_current();
    return nullptr;
  }
}

namespace launch_detail {
/// Whether a subscript of this dispatcher goes through its Python `_hooked_subscript`: a kernel of a numba-cuda
/// program served by cubridge (`_numba_launch`: numba's configuration checks and warnings) or one with
/// launch-argument extensions (`extensions`, which users append to at any time, so asked at every subscript).
inline bool wants_hooks(PyObject* self) {
  if (!nb::inst_ready(self))
    throw nb::type_error("kernel[...]: the dispatcher was not initialized (a subclass's __init__ must call "
                         "super().__init__())");
  const DispatchCache& c = *nb::inst_ptr<DispatchCache>(self);
  if (c.numba_launch) return true;
  PyObject* list = c.extensions.ptr();
  if (list == nullptr) return false;
  if (PyList_CheckExact(list)) return PyList_GET_SIZE(list) != 0;
  const nb::object held = c.extensions;  // its __bool__ may assign another container
  const int truth = PyObject_IsTrue(held.ptr());  // another container a user assigned: its own truth
  if (truth < 0) throw nb::python_error();
  return truth != 0;
}

/// The dispatcher type's GC slots: the extensions (objects of the user's, which may refer back to the
/// dispatcher) and the loaded kernels are references the collector must see.
inline int dispatcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  const DispatchCache& c = *nb::inst_ptr<DispatchCache>(self);
  Py_VISIT(c.extensions.ptr());
  Py_VISIT(c.last_launch.ptr());
  for (const DispatchCache::Entry& e : c.entries) Py_VISIT(e.kernel.ptr());
  return 0;
}

inline int dispatcher_clear(PyObject* self) {
  if (!nb::inst_ready(self)) return 0;
  DispatchCache& c = *nb::inst_ptr<DispatchCache>(self);
  // Each reference moved out before it is released: releasing may run a finalizer that reads the dispatcher.
  nb::object extensions = std::move(c.extensions);
  nb::object last_launch = std::move(c.last_launch);
  c.clear();
  return 0;
}
}  // namespace launch_detail

/// `dispatcher[...]`: the lazy KernelLaunch, or the dispatcher's `_hooked_subscript(key)` where it has hooks.
inline PyObject* dispatcher_subscript(PyObject* self, PyObject* key) noexcept {
  try {
    if (launch_detail::wants_hooks(self)) {
      static PyObject* const hooked = PyUnicode_InternFromString("_hooked_subscript");
      return PyObject_CallMethodOneArg(self, hooked, key);
    }
  } catch (...) {
    launch_detail::raise_current();
    return nullptr;
  }
  return lazy_subscript(self, key);
}

/// The dispatcher base type's slots (nb::type_slots).
inline PyType_Slot dispatcher_slots[] = {{Py_mp_subscript, reinterpret_cast<void*>(dispatcher_subscript)},
                                         {Py_tp_traverse, reinterpret_cast<void*>(launch_detail::dispatcher_traverse)},
                                         {Py_tp_clear, reinterpret_cast<void*>(launch_detail::dispatcher_clear)},
                                         {0, nullptr}};

}  // namespace cubridge::python::kernel_glue
