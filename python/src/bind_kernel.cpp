// Internal: bindings of the kernel layer (only .def lines and tiny lambdas; the work lives in
// src/kernel/ and its Python glue python/src/py_kernel.hpp, py_arguments.hpp).
#include <algorithm>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "py_direct_op.hpp"
#include "py_dispatch.hpp"
#include "py_launch.hpp"
#include "cubridge/kernel/launch_config_error.hpp"

namespace cubridge::python {

namespace {

using namespace kernel_glue;

PyObject* g_kernel_raised = nullptr;  // cubridge.KernelRaised
// The class a refused launch configuration raises: cubridge.LaunchConfigError, or the subclass drop-in use sets
// (_set_launch_config_error: also numba-cuda's driver error class).
PyObject* g_launch_config_error = nullptr;

/// The C++ base of `self`, refused (TypeError) where `self` is no cubridge.Dispatcher or a subclass's __init__ has
/// not called super().__init__() yet (nanobind would call either an argument mismatch). The private entry points of
/// the dispatcher's Python methods name themselves (`who`); its attributes name the attribute (`attribute`), which
/// super().__init__() must come before. The words are made only for a refusal: attributes are read at launches.
DispatchCache& dispatcher_base(nb::handle self, const char* who, const char* attribute = nullptr) {
  if (nb::isinstance<DispatchCache>(self) && nb::inst_ready(self)) return *nb::inst_ptr<DispatchCache>(self);
  const std::string name = attribute != nullptr ? std::string("Dispatcher.") + attribute : std::string(who);
  if (!nb::isinstance<DispatchCache>(self))
    throw nb::type_error((name + ": expected a cubridge.Dispatcher, got " + py_type_name(self)).c_str());
  const std::string must = attribute != nullptr
                               ? std::string("call super().__init__() before it reads or sets ") + attribute
                               : std::string("call super().__init__()");
  throw nb::type_error((name + ": the dispatcher was not initialized yet (a subclass's __init__ must " + must + ")").c_str());
}

/// dispatcher_base for the attribute `name`.
DispatchCache& attribute_base(nb::handle self, const char* name) { return dispatcher_base(self, nullptr, name); }

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const ArgumentTypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const LaunchConfigError& e) {
    PyErr_SetString(g_launch_config_error, e.what());
  } catch (const KernelRaised& e) {
    // The raise site's status and the thread, for the dispatcher to turn into the user's exception.
    nb::object exc = nb::steal(PyObject_CallOneArg(g_kernel_raised, nb::str(e.what()).ptr()));
    if (!exc.is_valid()) return;
    exc.attr("code") = e.code();
    exc.attr("tid") = nb::make_tuple(e.tid()[0], e.tid()[1], e.tid()[2]);
    exc.attr("ctaid") = nb::make_tuple(e.ctaid()[0], e.ctaid()[1], e.ctaid()[2]);
    PyErr_SetObject(g_kernel_raised, exc.ptr());
  }
}

std::int64_t block_threads(nb::handle blockdim) {
  if (PyTuple_Check(blockdim.ptr())) {
    std::int64_t n = 1;
    for (nb::handle d : nb::borrow<nb::tuple>(blockdim)) n *= nb::cast<std::int64_t>(d);
    return n;
  }
  return nb::cast<std::int64_t>(blockdim);
}

}  // namespace

void bind_kernel(nb::module_& m) {
  nb::register_exception_translator(translate);
  g_performance_warning = PyErr_NewExceptionWithDoc(
      "cubridge.PerformanceWarning",
      "A launch had to copy host (NumPy) arrays to the device and back; pass device arrays instead.",
      PyExc_UserWarning, nullptr);
  m.attr("PerformanceWarning") = nb::handle(g_performance_warning);
  m.def("_set_performance_warning", [base = g_performance_warning](nb::handle category, nb::handle gate) {
    if (!PyType_Check(category.ptr()) || PyObject_IsSubclass(category.ptr(), base) != 1)
      throw nb::type_error("_set_performance_warning: the category must be a subclass of "
                           "cubridge.PerformanceWarning");
    if (!gate.is_none() && !PyCallable_Check(gate.ptr()))
      throw nb::type_error("_set_performance_warning: gate must be None or a callable returning whether to warn");
    g_performance_warning = category.inc_ref().ptr();  // kept for the process, as the class it replaces
    g_performance_warning_gate = gate.is_none() ? nullptr : gate.inc_ref().ptr();
  }, nb::arg("category"), nb::arg("gate") = nb::none(),
     "The class of the host-array copy warning (numba's subclass in drop-in use), and `gate`: None (always "
     "warn) or a callable asked before each warning (numba's configuration in drop-in use)");
  g_launch_config_error = PyErr_NewExceptionWithDoc(
      "cubridge.LaunchConfigError",
      "A launch configuration the device or the kernel cannot run (extents, threads per block, shared memory), "
      "refused before the launch; .driver_error names the driver error the launch would have met.",
      error_bases(m, PyExc_ValueError).ptr(), nullptr);
  nb::handle(g_launch_config_error).attr("driver_error") = LaunchConfigError::driver_error;
  m.attr("LaunchConfigError") = nb::handle(g_launch_config_error);
  m.def("_set_launch_config_error", [base = g_launch_config_error](nb::handle cls) {
    if (!PyType_Check(cls.ptr()) || PyObject_IsSubclass(cls.ptr(), base) != 1)
      throw nb::type_error("_set_launch_config_error: the class must be a subclass of cubridge.LaunchConfigError");
    g_launch_config_error = cls.inc_ref().ptr();  // kept for the process, as the class it replaces
  }, nb::arg("cls"), "The class a refused launch configuration raises (drop-in use: also numba-cuda's).");
  g_kernel_raised = PyErr_NewExceptionWithDoc(
      "cubridge.KernelRaised",
      "A kernel compiled with debug=True raised: .code is the raise site's status, .tid and .ctaid the raising "
      "thread's threadIdx and blockIdx (x, y, z). @cubridge.jit kernels re-raise it as the kernel's exception.",
      PyExc_RuntimeError, nullptr);
  m.attr("KernelRaised") = nb::handle(g_kernel_raised);

  nb::class_<KernelSignature>(m, "KernelSignature",
      "A kernel's parameters in Numba's spelling, flattened to the Numba ABI's PTX parameters.")
      .def("__init__", [](KernelSignature* s, const std::string& text) { new (s) KernelSignature(KernelSignature::parse(text)); },
           nb::arg("text"))
      .def("__init__", [](KernelSignature* s, const Signature& sig) { new (s) KernelSignature(KernelSignature::of(sig)); },
           nb::arg("signature"))
      .def_prop_ro("params", &params_of, "Each parameter as text ('const float32[:, ::1]', 'int64').")
      .def_prop_ro("slots", &slots_of, "(byte offset, size) of every PTX parameter in the packed buffer.")
      .def("slot_range", [](const KernelSignature& s, std::size_t i) {
             if (i >= s.size()) throw nb::index_error(("parameter " + std::to_string(i) + " of " + std::to_string(s.size())).c_str());
             return std::make_pair(s.first_slot(i), s.slot_count(i)); },
           nb::arg("index"), "(first slot, slot count) of parameter `index`.")
      .def_prop_ro("buffer_size", &KernelSignature::buffer_size)
      .def("written", [](const KernelSignature& s, std::size_t i) { return i < s.size() && s[i].written; }, nb::arg("index"))
      .def("pack", &pack_for_inspection, "The packed parameter buffer for these arguments, without launching.")
      .def("__len__", &KernelSignature::size)
      .def("__eq__", [](const KernelSignature& a, nb::handle b) { return nb::isinstance<KernelSignature>(b) && a == nb::cast<const KernelSignature&>(b); })
      .def("__str__", &KernelSignature::to_string)
      .def("__repr__", [](const KernelSignature& s) { return "cubridge.KernelSignature('" + s.to_string() + "')"; });

  nb::class_<Module>(m, "Module", "A loaded code image (PTX, cubin or fatbin), bound to its context.")
      .def_prop_ro("entry_names", &Module::entry_names)
      .def_prop_ro("format", [](const Module& mod) { return format_name(mod.format()); })
      .def_prop_ro("info_log", &Module::info_log)
      .def_prop_ro("valid", &Module::valid)
      .def_prop_ro("context", [](const Module& mod) { return mod.context(); })
      .def("__repr__", [](const Module& mod) { return std::string("<cubridge.Module ") + format_name(mod.format()) + (mod.valid() ? "" : " closed") + ">"; });

  register_launch_type(m);

  nb::class_<PyKernel>(m, "Kernel",
      "A loaded kernel with its signature: kernel[griddim, blockdim, stream, sharedmem](*args), kernel.forall(n)(*args).",
      nb::type_slots(kernel_slots))
      .def("__init__", [](PyKernel* k, nb::handle code, nb::handle name, nb::handle signature, nb::handle device, bool cache) {
             new (k) PyKernel(load(code, name, signature, device, cache)); },
           nb::arg("code"), nb::arg("name").none(), nb::arg("signature"), nb::kw_only(), nb::arg("device").none() = nb::none(),
           nb::arg("cache") = true, "Same as cubridge.load_kernel (signature as text or a KernelSignature).")
      .def_rw("python_name", &PyKernel::python_name,
              "The Python function's name, which messages use (set by @cubridge.jit); empty: the entry's name.")
      .def("forall", [](nb::handle self, std::int64_t n, nb::handle stream, std::int64_t sharedmem) {
             bool nothing_to_do = false;
             LaunchConfig c = forall_config(nb::cast<PyKernel&>(self), n, stream, sharedmem, nothing_to_do);
             return make_launch(self, c, stream, nothing_to_do); },
           nb::arg("ntasks"), nb::arg("stream").none() = nb::none(), nb::arg("sharedmem") = 0,
           nb::sig("def forall(self, ntasks: int, stream: object | None = None, sharedmem: int = 0) -> KernelLaunch"))
      .def("__call__", [](const PyKernel& k, nb::args) {
             throw nb::type_error(("kernel '" + k.kernel->name() + "' needs a launch configuration: "
                                   "kernel[griddim, blockdim](*args) or kernel.forall(n)(*args)").c_str()); })
      .def_prop_ro("name", [](const PyKernel& k) { return k.kernel->name(); })
      .def_prop_ro("signature", [](const PyKernel& k) { return k.signature; })
      .def_prop_ro("image", [](const PyKernel& k) { return nb::bytes(k.image.data(), k.image.size()); },
                   "The code image (PTX text, cubin or fatbin bytes) the kernel was loaded from.")
      .def_prop_ro("module", [](const PyKernel& k) { return std::const_pointer_cast<Module>(k.kernel->module()); })
      .def_prop_ro("max_threads_per_block", [](const PyKernel& k) { return k.kernel->attributes().max_threads_per_block; })
      .def_prop_ro("registers", [](const PyKernel& k) { return k.kernel->attributes().num_regs; })
      .def_prop_ro("shared_memory", [](const PyKernel& k) { return k.kernel->attributes().static_shared; },
                   "Static shared memory per block, in bytes.")
      .def_prop_ro("local_memory", [](const PyKernel& k) { return k.kernel->attributes().local_bytes; })
      .def_prop_ro("const_memory", [](const PyKernel& k) { return k.kernel->attributes().const_bytes; })
      .def_prop_ro("max_dynamic_shared_memory", [](const PyKernel& k) { return k.kernel->attributes().max_dynamic_shared; })
      .def_prop_ro("ptx_version", [](const PyKernel& k) { return k.kernel->attributes().ptx_version; })
      .def_prop_ro("binary_version", [](const PyKernel& k) { return k.kernel->attributes().binary_version; })
      .def("set_max_dynamic_shared_memory", [](PyKernel& k, std::int64_t bytes) { k.kernel->set_max_dynamic_shared_memory(bytes); },
           nb::arg("nbytes"), "Opt in to more than 48 KiB of dynamic shared memory (launches do it when needed).")
      .def_prop_rw("cooperative", [](const PyKernel& k) { return k.kernel->cooperative(); },
                   [](PyKernel& k, bool on) { k.kernel->set_cooperative(on); },
                   "Launched cooperatively (the kernel synchronises its grid with cuda.cg); set by @cubridge.jit.")
      .def("max_cooperative_grid_blocks",
           [](const PyKernel& k, nb::handle blockdim, std::int64_t smem) {
             return k.kernel->max_cooperative_grid_blocks(block_threads(blockdim), smem); },
           nb::arg("blockdim"), nb::arg("dynsmemsize") = 0,
           "The most blocks a cooperative launch of this kernel can have for `blockdim` (an int or a tuple) "
           "and `dynsmemsize` bytes of dynamic shared memory (numba-cuda's max_cooperative_grid_blocks).")
      .def("set_shared_memory_carveout",
           [](PyKernel& k, int percent) { k.kernel->set_shared_memory_carveout(percent); },
           nb::arg("percent"),
           "The preferred share of the unified L1/shared memory used as shared memory, 0 to 100, or -1 for the "
           "driver's default (numba-cuda's shared_memory_carveout)")
      .def("suggested_block_size", [](const PyKernel& k, std::int64_t smem) { return k.kernel->suggested_block_size(smem); },
           nb::arg("sharedmem") = 0)
      .def("__repr__", [](const PyKernel& k) { return "<cubridge.Kernel " + k.kernel->name() + " " + k.signature->to_string() + ">"; });

  nb::class_<DispatchCache>(m, "_DispatchCache", nb::type_slots(dispatcher_slots),
      "The C++ base of cubridge.Dispatcher: dispatcher[griddim, blockdim] is a lazy KernelLaunch, whose call finds "
      "the specialization by the argument types and layouts and the device (a cache of loaded kernels).")
      .def(nb::init<>())
      .def_prop_ro("_launch_cache_stats", [](const DispatchCache& c) { return nb::make_tuple(c.hits, c.misses, c.entries.size()); },
                   "(hits, misses, entries) of the lazy-launch cache.")
      .def("_launch_cache_clear", [](DispatchCache& c) { c.clear(); })
      .def_prop_rw("_numba_launch",
                   [](nb::handle self) { return attribute_base(self, "_numba_launch").numba_launch; },
                   [](nb::handle self, bool value) { attribute_base(self, "_numba_launch").numba_launch = value; },
                   "Whether this is a numba-cuda program's kernel (its subscripts take numba's checks).")
      .def_prop_rw("extensions",
                   [](nb::handle self) {
                     const DispatchCache& c = attribute_base(self, "extensions");
                     return c.extensions.is_valid() ? c.extensions : nb::none();
                   },
                   [](nb::handle self, nb::object value) { attribute_base(self, "extensions").extensions = std::move(value); },
                   nb::arg("value").none(),
                   "numba-cuda's launch-argument extensions (objects with prepare_args), which users append to.");
  m.def("_lazy_subscript", [](nb::handle dispatcher, nb::handle key) {
          dispatcher_base(dispatcher, "_lazy_subscript");
          PyObject* launch = lazy_subscript(dispatcher.ptr(), key.ptr());
          if (launch == nullptr) throw nb::python_error();
          return nb::steal(launch); },
        nb::arg("dispatcher"), nb::arg("key"),
        "dispatcher[key] without the dispatcher's hooks: the C++ lazy KernelLaunch (for _hooked_subscript).");
  m.def("_lazy_forall", [](nb::handle dispatcher, nb::handle ntasks, nb::handle stream, nb::handle sharedmem, nb::tuple args) {
          return lazy_forall(dispatcher_base(dispatcher, "_lazy_forall"), dispatcher, ntasks, stream, sharedmem, items_of(args)); },
        nb::arg("dispatcher"), nb::arg("ntasks"), nb::arg("stream").none(), nb::arg("sharedmem"), nb::arg("args"),
        "dispatcher.forall(ntasks, stream, sharedmem)(*args) by the C++ lazy launch; False (nothing launched) when "
        "the dispatcher's general path must type the arguments.");
  nb::class_<DirectOp>(m, "_DirectOp",
      "A framework operator's direct call (cubridge.torch.Op): the checks that decide whether the framework's "
      "dispatcher would only call the op's implementation (NotImplemented where it must take the call), and "
      "that implementation's common case, in one call.")
      .def("__init__", [](DirectOp* op, nb::object implementation,
                          std::vector<nb::object> falsy_guards, std::vector<nb::object> none_guards,
                          std::size_t count, nb::object tensor_type, std::vector<std::size_t> tensors,
                          std::vector<std::pair<std::size_t, std::vector<nb::object>>> scalars,
                          bool fast, std::size_t results, std::vector<std::size_t> likes,
                          std::vector<std::size_t> contiguous, std::vector<std::size_t> order,
                          nb::object empty_like, nb::object contiguous_format, nb::object raw_stream,
                          nb::object kernel, nb::object kernels, nb::object signature, nb::object kernel_for,
                          nb::object ntasks, nb::object griddim,
                          nb::object blockdim, std::int64_t sharedmem, bool single, std::string qualname,
                          nb::object native) {
             if (!PyType_Check(tensor_type.ptr())) throw nb::type_error("_DirectOp: tensor_type must be a type");
             if (!nb::isinstance<PyKernel>(kernel) && !nb::isinstance<DispatchCache>(kernel))
               throw nb::type_error("_DirectOp: kernel must be a cubridge.Kernel or a @cubridge.jit dispatcher");
             for (std::size_t slot : order)
               if (slot >= count + results)
                 throw nb::value_error("_DirectOp: a parameter's slot is past the inputs and results");
             auto* made = new (op) DirectOp();
             made->implementation = std::move(implementation);
             made->falsy_guards = std::move(falsy_guards);
             made->none_guards = std::move(none_guards);
             made->count = count;
             made->tensor_type = std::move(tensor_type);
             made->tensors = std::move(tensors);
             for (auto& [n, types] : scalars) {
               std::vector<PyTypeObject*> exact;
               for (nb::object& t : types) {
                 if (!PyType_Check(t.ptr())) throw nb::type_error("_DirectOp: a scalar's exact types must be types");
                 exact.push_back(reinterpret_cast<PyTypeObject*>(t.ptr()));  // builtin types: never freed
               }
               made->scalars.emplace_back(n, std::move(exact));
             }
             made->fast = fast;
             if (fast && likes.size() != results)
               throw nb::value_error("_DirectOp: a fast op allocates every result like an input");
             made->results = results;
             made->likes = std::move(likes);
             made->contiguous = std::move(contiguous);
             // The exchange table reads every tensor's device and layout where each `contiguous` input is a tensor.
             const bool all_tensors = std::ranges::all_of(made->contiguous, [&](std::size_t n) {
               return std::ranges::find(made->tensors, n) != made->tensors.end(); });
             try {
               const CubridgeDLPackExchangeAPI* table =
                   exchange_api_of(reinterpret_cast<PyTypeObject*>(made->tensor_type.ptr()));
               if (all_tensors && table != nullptr && table->dltensor_from_py_object_no_sync != nullptr)
                 made->tensor_table = table;
             } catch (const std::invalid_argument&) {  // a malformed table: the attributes are asked instead
             }
             if (!native.is_none()) {
               auto* t = static_cast<const FrameworkTable*>(PyCapsule_GetPointer(native.ptr(), kFrameworkTableCapsule));
               if (t == nullptr) {
                 PyErr_Clear();
                 throw nb::type_error(("_DirectOp: native must be a capsule named '" + std::string(kFrameworkTableCapsule) +
                                       "', got " + py_type_name(native)).c_str());
               }
               if (t->version != kFrameworkTableVersion)
                 throw nb::value_error(("_DirectOp: native is a framework table of version " + std::to_string(t->version) +
                                        "; this cubridge reads version " + std::to_string(kFrameworkTableVersion)).c_str());
               if (all_tensors) {  // each `contiguous` input is a tensor the table describes
                 made->native = t;
                 made->native_owner = native;
               }
             }
             for (std::size_t n : made->tensors)
               made->tensor_wants_c.push_back(std::ranges::find(made->contiguous, n) != made->contiguous.end());
             made->order = std::move(order);
             made->raw_stream = std::move(raw_stream);
             made->kernel = std::move(kernel);
             if (!kernel_for.is_none() && !PyDict_Check(kernels.ptr()))
               throw nb::type_error("_DirectOp: kernels must be the dispatcher's dict of loaded kernels");
             made->kernels = std::move(kernels);
             made->signature = std::move(signature);
             made->kernel_for = std::move(kernel_for);
             made->empty_like = std::move(empty_like);
             made->contiguous_format = std::move(contiguous_format);
             made->ntasks = std::move(ntasks);
             made->griddim = std::move(griddim);
             made->blockdim = std::move(blockdim);
             made->sharedmem = sharedmem;
             made->single = single;
             made->qualname = std::move(qualname); },
           nb::arg("implementation"), nb::arg("falsy_guards"), nb::arg("none_guards"), nb::arg("count"), nb::arg("tensor_type"),
           nb::arg("tensors"), nb::arg("scalars"), nb::arg("fast"), nb::arg("results"),
           nb::arg("likes"), nb::arg("contiguous"), nb::arg("order"), nb::arg("empty_like"),
           nb::arg("contiguous_format"), nb::arg("raw_stream"), nb::arg("kernel"), nb::arg("kernels").none(),
           nb::arg("signature").none(), nb::arg("kernel_for").none(), nb::arg("ntasks").none(), nb::arg("griddim").none(),
           nb::arg("blockdim").none(), nb::arg("sharedmem"), nb::arg("single"), nb::arg("qualname"),
           nb::arg("native").none() = nb::none())
      .def("__call__", [](DirectOp& op, nb::args args) { return direct_call(op, items_of(args)); });
  m.def("_array_param", &array_param_of, nb::arg("obj"),
        "@jit's typeof of a GPU array argument ('const float32[:, ::1]'), or None (no GPU array, or records).");
  m.def("_load_kernel", &load, nb::arg("code"), nb::arg("name").none(), nb::arg("signature"), nb::arg("device").none(),
        nb::arg("cache") = true);
  m.def("ptx_entry_names", [](const std::string& ptx) { return ptx_entry_names(ptx); }, nb::arg("ptx"),
        "The .entry names of PTX text, in order (e.g. numba-cuda's mangled kernel names).");
  m.def("clear_kernel_cache", &clear_module_cache, "Drops the loaded-module cache; returns how many modules it held.");
  m.def("kernel_cache_size", &module_cache_size);
}

}  // namespace cubridge::python
