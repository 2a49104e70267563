// Internal (Python glue of the kernel face): cubridge.Kernel (a loaded kernel with its signature and
// a reusable argument buffer), the configured launch `kernel[griddim, blockdim, stream, sharedmem]`
// and its call. Header-only, included only by python/src/bind_kernel.cpp.
// Implements: DESIGN.md "kernel/" launch from Python (numba-cuda's spelling, CAI v3 stream rules).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "driver/driver_api.hpp"
#include "py_arguments.hpp"
#include "py_tuple_arguments.hpp"

namespace cubridge::python::kernel_glue {

/// cubridge.PerformanceWarning (set by bind_kernel; a subclass that is also numba's where numba is imported:
/// cubridge._core._set_performance_warning).
inline PyObject* g_performance_warning = nullptr;
/// Null, or a callable saying whether the warning is on now (numba-cuda's CUDA_WARN_ON_IMPLICIT_COPY and
/// DISABLE_PERFORMANCE_WARNINGS in drop-in use); asked once per staged host array.
inline PyObject* g_performance_warning_gate = nullptr;

inline bool implicit_copy_warning_on() {
  if (g_performance_warning_gate == nullptr) return true;
  PyObject* r = PyObject_CallNoArgs(g_performance_warning_gate);
  if (r == nullptr) throw nb::python_error();
  const int on = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (on < 0) throw nb::python_error();
  return on != 0;
}

struct PyKernel {
  std::shared_ptr<Kernel> kernel;
  std::shared_ptr<KernelSignature> signature;
  std::string image;  // the code it was loaded from: cubridge.jax.kernel_call loads it on every device
  std::unique_ptr<ArgumentPack> pack;  // reused by every launch unless one is already filling it
  bool busy = false;
  int forall_block = 0;  // the occupancy-suggested block size, found on the first forall()
  std::string python_name;  // the Python function's name (@cubridge.jit), for messages; else the entry's
  const std::string& display_name() const { return python_name.empty() ? kernel->name() : python_name; }
};

/// The positional arguments of a launch, where the caller keeps them (a vectorcall's stack or a tuple).
using Args = std::span<PyObject* const>;

/// A tuple's items as launch arguments.
inline Args items_of(nb::handle tuple) {
  return {&PyTuple_GET_ITEM(tuple.ptr(), 0), static_cast<std::size_t>(PyTuple_GET_SIZE(tuple.ptr()))};
}

inline std::string parameter_text(const KernelSignature& sig, std::size_t i) {
  return sig[i].to_string() + " (signature " + sig.to_string() + ")";
}

[[noreturn]] inline void throw_not_an_array(nb::handle obj, std::size_t i, const KernelSignature& sig) {
  throw ArgumentTypeError(sig.parameter_name(i) + ": " + py_repr(obj) + " (" + py_type_name(obj) +
                          ") is not an array, but the signature says " + parameter_text(sig, i) +
                          "; accepted: cubridge.DeviceArray, objects with __cuda_array_interface__ or "
                          "__dlpack__ (CuPy, PyTorch, Numba, JAX), NumPy arrays" +
                          (sig[i].is_pointer() ? ", or an int device address" : ""));
}

/// A Python int given for a pointer parameter: the raw device address it names.
inline std::optional<std::uint64_t> address_of(PyObject* o, std::size_t i) {
  if (!PyLong_Check(o) || PyBool_Check(o)) return std::nullopt;
  // User-space addresses fit in a signed 64-bit value, whose conversion is the fast one; the unsigned
  // conversion (a byte-array walk) is for the rest.
  int overflow = 0;
  long long sv = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow == 0 && sv >= 0) return static_cast<std::uint64_t>(sv);
  if (PyErr_Occurred()) PyErr_Clear();
  unsigned long long v = PyLong_AsUnsignedLongLong(o);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw nb::value_error((arg_name(i) + ": " + py_repr(o) +
                           " is not a device address; an int address is 0 to 2**64 - 1").c_str());
  }
  return static_cast<std::uint64_t>(v);
}

/// Views of a launch's arguments that the caller already imported (the lazy @jit launch, which imports
/// them to find the specialization), by position; empty, or an empty slot: import here. The caller holds them
/// until the launch returns: the pack borrows them.
using Imported = std::span<ImportedView>;

/// Pass 1 of argument conversion: scalars, our arrays and CAI arrays go into `pack`; NumPy and
/// DLPack arrays wait in `deferred` until the launch stream is known.
inline void convert_immediate(ArgumentPack& pack, Args args, std::vector<std::size_t>& deferred,
                              Imported imported = {}) {
  const KernelSignature& sig = pack.signature();
  std::optional<ImportRequest> request;  // made for the first foreign array, shared by the others
  for (std::size_t i = 0; i < sig.size(); ++i) {
    PyObject* obj = args[i];
    if (sig[i].takes_array()) {
      if (i < imported.size() && imported[i]) {  // imported once, by the caller, with argument_request()
        pack.set_array_borrowed(i, imported[i].get());  // the caller's `imported` outlives the launch
        continue;
      }
      if (sig[i].is_pointer()) {
        if (auto address = address_of(obj, i)) {
          pack.set_address(i, *address);
          continue;
        }
      }
      if (route_of(Py_TYPE(obj)) == Route::ours) {  // import_array's first route, with no request to build
        pack.set_array_borrowed(i, nb::inst_ptr<PyDeviceArray>(obj)->view);  // the caller keeps it alive
        continue;
      }
      if (!request) request = argument_request();
      ImportedArray a = import_array(obj, *request);
      if (a.remembered) pack.set_array_borrowed(i, *a.remembered);  // pinned by launch_with's MemoPins
      else if (a.made) pack.set_array(i, std::move(a.made->view));
      else deferred.push_back(i);  // a host (NumPy) array or a DLPack-only producer, or no array at all
      continue;
    }
    // A Python int or float that the parameter takes as it is: no Scalar made (a launch's common scalars).
    if (PyTypeObject* tp = Py_TYPE(obj); tp == &PyLong_Type) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);  // an exact int: no error but overflow
      if (overflow == 0 && pack.set_exact_int64(i, v)) continue;
    } else if (tp == &PyFloat_Type && pack.set_exact_float64(i, PyFloat_AS_DOUBLE(obj))) {
      continue;
    }
    if (auto s = scalar_of(obj, i, &sig)) {
      pack.set_scalar(i, *s);
      continue;
    }
    bool array_like = PyObject_HasAttr(obj, Keys::get().cai) || PyObject_HasAttr(obj, Keys::get().dlpack) ||
                      PyObject_HasAttrString(obj, "__array_interface__");
    throw ArgumentTypeError(sig.parameter_name(i) + ": " + (array_like ? "an array" : py_repr(obj) + " (" + py_type_name(obj) + ")") +
                            " was passed where the signature says " + parameter_text(sig, i) +
                            (array_like ? "" : "; expected a number"));
  }
}

inline void check_count(const PyKernel& k, Args args) {
  const std::size_t n = args.size();
  const std::size_t want = k.signature->argument_count();
  if (n != want)  // phrased as Python phrases a call with the wrong number of arguments
    throw nb::type_error((k.display_name() + "() takes " + std::to_string(want) + " positional argument" +
                          (want == 1 ? "" : "s") + " but " + std::to_string(n) + (n == 1 ? " was" : " were") +
                          " given (kernel signature " + k.signature->to_string() + ")")
                             .c_str());
}

inline void launch_with(PyKernel& k, const LaunchConfig& config, Args given, Imported imported = {}) {
  check_count(k, given);
  std::vector<PyObject*> leaves;
  const Args args = flatten_tuples(*k.signature, given, leaves);  // tuples: their elements, as the kernel takes them
  // The lazy launch's imported views are indexed by the arguments as given; it declines tuple arguments, so where
  // flattening moved positions there are none to use.
  if (args.size() != given.size()) imported = {};
  std::unique_ptr<ArgumentPack> own;
  ArgumentPack* pack = k.pack.get();
  const bool reuse = !k.busy;  // a CAI getter may run Python that launches this kernel again
  if (!reuse) {
    own = std::make_unique<ArgumentPack>(k.signature);
    pack = own.get();
  }
  k.busy = true;
  struct Reset {
    ArgumentPack* pack;
    PyKernel& k;
    bool reuse;
    ~Reset() {
      pack->clear();
      if (reuse) k.busy = false;
    }
  } reset{pack, k, reuse};

  MemoPins pins;  // the import memo's views the pack borrows stay until the launch returns
  std::vector<std::size_t> deferred;
  convert_immediate(*pack, args, deferred, imported);
  std::vector<StagedArray> staged;
  // Chosen once, before the deferred arrays are produced for it; launch() then uses this stream.
  std::optional<StreamRef> stream;
  if (!deferred.empty()) {
    stream = launch_stream(config, *pack);
    for (std::size_t i : deferred) {
      nb::handle obj = args[i];
      if (auto host = host_view_of(obj, i)) {
        pack->set_array(i, host->view);  // every check before anything is copied
        refuse_staging_during_capture(*stream, k.signature->parameter_name(i), *k.kernel->module()->context());
        if (implicit_copy_warning_on() && PyErr_WarnEx(g_performance_warning,
                         ("Host array used in CUDA kernel will incur copy overhead to/from device: " + k.signature->parameter_name(i) +
                          " is copied to the device before the launch and back after it; pass a device array "
                          "to avoid the copies").c_str(), 1) != 0)
          throw nb::python_error();
        staged.push_back(stage_host_array(obj, *host, i, (*k.signature)[i].written,
                                          k.kernel->module()->context(), *stream));
        pack->set_array(i, staged.back().device);
      } else if (ImportedArray a = dlpack_argument(obj, *stream)) {
        pack->set_array(i, std::move(a.get().view));
      } else {
        throw_not_an_array(obj, i, *k.signature);
      }
    }
  }
  const StreamRef used = launch(*k.kernel, config, *pack, stream);
  if (!staged.empty()) {
    for (const StagedArray& s : staged)
      if (s.copy_back) copy_extent_to_host(s.device, s.host_first, s.bytes, used);
    // The device copies are freed on return: the kernel must be done with them. A default stream is
    // the one of the kernel's context, which need not be current on this thread.
    ScopedContext scope(*k.kernel->module()->context());
    used.synchronize();
  }
}

/// The validated configuration of kernel.forall(n): one thread per task, blocks of the occupancy
/// calculator's suggested size; `nothing_to_do` for no tasks (the launch then only checks its arguments' count).
inline LaunchConfig forall_config(PyKernel& k, std::int64_t n, nb::handle stream, std::int64_t sharedmem,
                                  bool& nothing_to_do) {
  if (n < 0)
    throw nb::value_error(("forall: " + std::to_string(n) + " tasks; the count must be 0 or more").c_str());
  LaunchConfig c;
  c.default_stream = StreamRef::process_default();
  c.stream = stream_of(stream);
  c.shared_mem = sharedmem;
  nothing_to_do = n == 0;
  if (nothing_to_do) return c;
  int block = sharedmem == 0 && k.forall_block > 0 ? k.forall_block : k.kernel->suggested_block_size(sharedmem);
  if (sharedmem == 0) k.forall_block = block;
  c.block.x = std::min<std::int64_t>(block, n);
  c.grid.x = blocks_for(n, c.block.x);
  k.kernel->validate(c);
  return c;
}

/// The validated configuration of kernel[griddim, blockdim, stream, sharedmem]: a bad one fails here,
/// before any launch.
inline LaunchConfig configure(PyKernel& k, nb::handle key, nb::object& stream_keepalive) {
  LaunchConfig c = config_of(key, stream_keepalive);
  k.kernel->validate(c);
  return c;
}

inline std::shared_ptr<KernelSignature> signature_of(nb::handle signature) {
  if (nb::isinstance<KernelSignature>(signature)) return nb::cast<std::shared_ptr<KernelSignature>>(signature);
  if (nb::isinstance<Signature>(signature))
    return std::make_shared<KernelSignature>(KernelSignature::of(nb::cast<const Signature&>(signature)));
  if (PyUnicode_Check(signature.ptr()))
    return std::make_shared<KernelSignature>(KernelSignature::parse(nb::cast<std::string>(signature)));
  throw nb::type_error(("signature: " + py_repr(signature) + " (" + py_type_name(signature) +
                        ") is neither a str such as 'void(float32[:], int64)' nor a cubridge.KernelSignature (nor a "
                        "cubridge.Signature)")
                           .c_str());
}

inline PyKernel load(nb::handle code, nb::handle name, nb::handle signature, nb::handle device, bool cache) {
  std::string text;
  std::span<const std::byte> image;
  Py_buffer view{};
  bool have_view = false;
  if (PyUnicode_Check(code.ptr())) {
    text = nb::cast<std::string>(code);
    image = std::as_bytes(std::span(text.data(), text.size()));
  } else if (PyObject_GetBuffer(code.ptr(), &view, PyBUF_CONTIG_RO) == 0) {
    have_view = true;
    image = std::span(static_cast<const std::byte*>(view.buf), static_cast<std::size_t>(view.len));
  } else {
    PyErr_Clear();
    throw nb::type_error(("load_kernel: code must be PTX text (str) or a cubin/fatbin/PTX image (bytes), got " +
                          py_type_name(code)).c_str());
  }
  struct Release {
    Py_buffer* v;
    bool on;
    ~Release() { if (on) PyBuffer_Release(v); }
  } release{&view, have_view};

  auto sig = signature_of(signature);
  detect_image_format(image);  // a bad image is reported without touching the driver
  std::shared_ptr<Context> context;
  if (device.is_none()) {
    context = Context::current();
  } else if (nb::isinstance<Device>(device)) {
    context = Context::primary(nb::cast<const Device&>(device));
  } else {
    auto ordinal = as_int64(device.ptr(), "device");
    if (!ordinal) throw nb::type_error(("load_kernel: device=" + py_repr(device) + " is not an int ordinal, a cubridge.Device or None").c_str());
    context = Context::primary(Device(static_cast<int>(*ordinal)));
  }
  auto module = cache ? Module::cached(context, image) : Module::load(context, image);
  std::string entry;
  if (name.is_none()) {
    const auto& names = module->entry_names();
    if (names.size() != 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw nb::value_error(("load_kernel: name=None needs a module with exactly one kernel; this one has " +
                             std::to_string(names.size()) + (names.empty() ? "" : " (" + list + ")") +
                             "; pass name=").c_str());
    }
    entry = names[0];
  } else {
    entry = nb::cast<std::string>(name);
  }
  PyKernel k;
  k.kernel = module->function(entry);
  k.signature = std::move(sig);
  k.pack = std::make_unique<ArgumentPack>(k.signature);
  // A signature the kernel lays out otherwise is refused at load; the pack keeps the answer for the launches.
  (void)k.pack->packed_for(*k.kernel);
  k.image.assign(reinterpret_cast<const char*>(image.data()), image.size());
  return k;
}

inline const char* format_name(ImageFormat f) {
  return f == ImageFormat::Ptx ? "ptx" : f == ImageFormat::Cubin ? "cubin" : "fatbin";
}

inline std::vector<std::pair<std::uint32_t, std::uint32_t>> slots_of(const KernelSignature& s) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const ParamSlot& sl : s.slots()) out.emplace_back(sl.offset, sl.size);
  return out;
}

inline std::vector<std::string> params_of(const KernelSignature& s) {
  std::vector<std::string> out;
  for (const ParamKind& p : s.params()) out.push_back(p.to_string());
  return out;
}

/// The packed buffer for `args` without launching (tests and debugging): arrays must be device arrays
/// (or NumPy arrays, whose host pointers are packed as they are).
inline nb::bytes pack_for_inspection(const std::shared_ptr<KernelSignature>& sig, nb::args tuple) {
  const Args given = items_of(tuple);
  if (given.size() != sig->argument_count())
    throw nb::type_error(("pack: the signature " + sig->to_string() + " takes " + std::to_string(sig->argument_count()) +
                          " arguments, got " + std::to_string(given.size())).c_str());
  std::vector<PyObject*> leaves;
  const Args args = flatten_tuples(*sig, given, leaves);
  ArgumentPack pack(sig);
  std::vector<std::size_t> deferred;
  convert_immediate(pack, args, deferred);
  for (std::size_t i : deferred) {
    nb::handle obj = args[i];
    auto host = host_view_of(obj, i, /*staged=*/false);
    if (!host) throw_not_an_array(obj, i, *sig);
    pack.set_array(i, host->view);
  }
  auto b = pack.buffer();
  return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace cubridge::python::kernel_glue
