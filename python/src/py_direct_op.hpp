// Internal (Python glue of the kernel face): the direct call of a framework operator made from a cubridge
// kernel (python/cubridge/torch.py's Op), in one C++ call: the checks that decide whether the framework's
// dispatcher would do nothing but call the op's implementation, and that implementation's common case
// (results allocated like inputs, the launch on the framework's current stream). Everything else goes to
// the Python callables it was made with: the dispatcher's path, or the Python implementation. It knows no
// framework: the framework's functions (its mode and tracing queries, its allocator, its current stream)
// are given as Python callables. Included only by python/src/bind_kernel.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "py_dispatch.hpp"
#include "py_dlpack.hpp"
#include "py_framework_table.hpp"
#include "py_launch.hpp"

namespace cubridge::python::kernel_glue {

/// What a direct call checks and does; built once per op by python/cubridge/torch.py.
struct DirectOp {
  // The op's Python implementation (the general case). Where the framework's dispatcher must take the call,
  // the call answers NotImplemented and the caller calls the dispatcher.
  nb::object implementation;
  // Each is called with no arguments before a direct call: a truthy answer of a falsy guard (a mode, the
  // profiler), or an answer other than None of a none guard (a transform, a trace), sends the call to the
  // dispatcher.
  std::vector<nb::object> falsy_guards, none_guards;
  std::size_t count = 0;                // positional arguments of a direct call
  nb::object tensor_type;               // the exact type each tensor input must have
  std::vector<std::size_t> tensors;     // tensor inputs: CUDA, no gradient required, no conjugate or negative bit
  // The framework's compiled answers (the guards, the tensors' facts, the allocation and the stream without a
  // Python call), where it was made with them; the Python functions and the paths below otherwise.
  const FrameworkTable* native = nullptr;
  nb::object native_owner;              // the capsule that publishes `native`
  // The tensor type's DLPack exchange table where it has dltensor_from_py_object_no_sync (PyTorch 2.10 and
  // later): each tensor's device and layout in one C call. Null: asked through the tensor's attributes.
  const CubridgeDLPackExchangeAPI* tensor_table = nullptr;
  std::vector<bool> tensor_wants_c;     // per tensor input: whether it is one of `contiguous`
  std::vector<std::pair<std::size_t, std::vector<PyTypeObject*>>> scalars;  // each scalar's exact types
  // The implementation's common case, or the Python implementation where `fast` is false.
  bool fast = false;
  std::size_t results = 0;              // how many results the op returns
  std::vector<std::size_t> likes;       // per result: the input it is allocated like (shape, dtype, device; C order)
  std::vector<std::size_t> contiguous;  // inputs the kernel wants C-contiguous (the Python path copies others)
  std::vector<std::size_t> order;       // per kernel parameter: its slot in (inputs..., results...)
  nb::object raw_stream;                // the framework's current stream of a device index
  nb::object empty_like, contiguous_format;  // the framework's allocation of a result like an input, C order
  nb::object kernel;                    // a cubridge.Kernel or a @jit Dispatcher
  // A dispatcher with one signature: its loaded kernels (its `_kernels`: (signature, device) → Kernel), the
  // signature, and the dispatcher's own lookup that loads it (kernel_for(), called where the dict has none).
  nb::object kernels, signature, kernel_for;
  // Per device: the loaded kernel found there last, and the dispatcher's generation then (recompile() makes
  // a new one: the kernel is looked up again).
  struct Loaded {
    int device;
    nb::object kernel;
    std::uint64_t generation;
  };
  std::vector<Loaded> loaded;
  nb::object ntasks, griddim, blockdim;  // each None, a constant, or a callable of the inputs
  std::int64_t sharedmem = 0;
  bool single = false;                  // one result, returned as it is (not as a 1-tuple)
  std::string qualname;
};

namespace direct_detail {

/// What the checks learnt of the tensor inputs through the exchange table (with attributes, nothing).
struct TensorFacts {
  int device = -1;          // the first tensor input's CUDA ordinal; -1: not read
  bool contiguous = true;   // every tensor of `contiguous` is C-contiguous (PyTorch's is_contiguous())
};

inline nb::object call_with(nb::handle f, Args args) {
  PyObject* r = PyObject_Vectorcall(f.ptr(), args.data(), args.size(), nullptr);
  if (r == nullptr) throw nb::python_error();
  return nb::steal(r);
}

/// Whether the framework's dispatcher would only call the implementation (see torch.py's Op for the rules).
inline bool direct(const DirectOp& op, Args args, TensorFacts& facts) {
  static PyObject* const is_cuda = PyUnicode_InternFromString("is_cuda");
  static PyObject* const requires_grad = PyUnicode_InternFromString("requires_grad");
  static PyObject* const is_conj = PyUnicode_InternFromString("is_conj");
  static PyObject* const is_neg = PyUnicode_InternFromString("is_neg");
  if (args.size() != op.count) return false;
  if (op.native != nullptr && op.native->dispatcher_acts()) return false;
  for (std::size_t k = 0; k < op.tensors.size(); ++k) {
    PyObject* a = args[op.tensors[k]];
    if (Py_TYPE(a) != reinterpret_cast<PyTypeObject*>(op.tensor_type.ptr())) return false;
    if (op.native != nullptr) {
      FrameworkTensorFacts f;
      if (!op.native->tensor_facts(a, &f) || !f.cuda || f.requires_grad || f.conjugate || f.negative) return false;
      if (k == 0) facts.device = f.device;
      if (op.tensor_wants_c[k] && !f.contiguous) facts.contiguous = false;
      continue;
    }
    if (op.tensor_table != nullptr) {
      CubridgeDLTensor t{};
      if (op.tensor_table->dltensor_from_py_object_no_sync(a, &t) != 0) {  // a tensor DLPack cannot describe:
        PyErr_Clear();                                                     // the dispatcher's path says why
        return false;
      }
      if (t.device.device_type != CUBRIDGE_DL_CUDA) return false;
      if (k == 0) facts.device = t.device.device_id;
      const std::size_t n = static_cast<std::size_t>(t.ndim);
      if (op.tensor_wants_c[k] && t.strides != nullptr && !c_order({t.shape, n}, {t.strides, n}, 1))
        facts.contiguous = false;
    } else if (!attr_true(a, is_cuda)) {
      return false;
    }
    // Any tensor may carry a negative bit (x.conj().imag is a float tensor), a complex one a conjugate bit: the
    // dispatcher resolves them before the implementation runs.
    if (attr_true(a, requires_grad) || method_true(a, is_conj) || method_true(a, is_neg)) return false;
  }
  for (const auto& [n, exact] : op.scalars) {
    bool ok = false;
    for (PyTypeObject* tp : exact) ok = ok || Py_TYPE(args[n]) == tp;
    if (!ok) return false;
  }
  if (op.native != nullptr) return true;  // its answers above covered the guards
  for (const nb::object& guard : op.falsy_guards) {
    nb::object r = nb::steal(PyObject_CallNoArgs(guard.ptr()));
    if (!r.is_valid()) throw nb::python_error();
    if (truthy(r.ptr())) return false;
  }
  for (const nb::object& guard : op.none_guards) {
    nb::object r = nb::steal(PyObject_CallNoArgs(guard.ptr()));
    if (!r.is_valid()) throw nb::python_error();
    if (!r.is_none()) return false;
  }
  return true;
}

/// The dispatcher's one kernel loaded on `device`, from its dict, else by its own lookup (the dispatcher's
/// Python code); an invalid object where that is no plain cubridge.Kernel.
inline nb::object dict_kernel(const DirectOp& op, int device) {
  nb::object key = nb::make_tuple(op.signature, device);
  PyObject* found = PyDict_GetItemWithError(op.kernels.ptr(), key.ptr());  // borrowed
  if (found == nullptr && PyErr_Occurred()) throw nb::python_error();
  if (found != nullptr && nb::isinstance<PyKernel>(found) && nb::inst_ptr<PyKernel>(found)->kernel->module()->valid())
    return nb::borrow(found);
  nb::object loaded = nb::steal(PyObject_CallNoArgs(op.kernel_for.ptr()));
  if (!loaded.is_valid()) throw nb::python_error();
  return nb::isinstance<PyKernel>(loaded) ? loaded : nb::object();
}

/// The dispatcher's one kernel loaded on `device`: the one found there last while its module is loaded and the
/// dispatcher has not recompiled since, else from its dict, else by its own lookup; an invalid object where
/// that is no plain cubridge.Kernel (debug=True: the Python implementation re-raises).
inline nb::object loaded_kernel(DirectOp& op, int device) {
  const std::uint64_t generation = nb::cast<DispatchCache&>(op.kernel).generation;
  auto same = [&](const DirectOp::Loaded& e) { return e.device == device; };
  auto last = std::find_if(op.loaded.begin(), op.loaded.end(), same);
  if (last != op.loaded.end() && last->generation == generation &&
      nb::inst_ptr<PyKernel>(last->kernel)->kernel->module()->valid())
    return last->kernel;
  nb::object found = dict_kernel(op, device);  // may run Python code: `last` is not used after it
  if (!found.is_valid()) return found;
  const std::uint64_t now = nb::cast<DispatchCache&>(op.kernel).generation;  // the lookup may have compiled
  last = std::find_if(op.loaded.begin(), op.loaded.end(), same);
  if (last != op.loaded.end()) *last = {device, found, now};
  else op.loaded.push_back({device, found, now});
  return found;
}

/// A launch extent: the constant, or the callable's answer for these inputs.
inline nb::object extent(const nb::object& value, Args args) {
  return PyCallable_Check(value.ptr()) ? call_with(value, args) : value;
}

/// The error a launch raised, as the Python implementation words it: a TypeError or ValueError (a refused
/// argument) names the op first. Called while handling the exception.
[[noreturn]] inline void raise_naming(const std::string& qualname) {
  launch_detail::raise_current();  // the Python error, as a nanobind binding would have set it
  nb::python_error error;          // taken from the interpreter
  if (error.matches(PyExc_TypeError) || error.matches(PyExc_ValueError)) {
    nb::object text = nb::steal(PyObject_Str(error.value().ptr()));
    nb::object message = text.is_valid() ? nb::steal(PyUnicode_FromFormat("%s: %U", qualname.c_str(), text.ptr()))
                                         : nb::object();
    nb::object named = message.is_valid() ? nb::steal(PyObject_CallOneArg(error.type().ptr(), message.ptr()))
                                          : nb::object();
    if (named.is_valid()) {
      PyErr_SetObject(error.type().ptr(), named.ptr());
      throw nb::python_error();
    }
    PyErr_Clear();  // the class takes no message: raised as it was
  }
  error.restore();
  throw nb::python_error();
}

}  // namespace direct_detail

/// The op's call: NotImplemented (the dispatcher must take it), the Python implementation's result, or the
/// launch here and its results.
inline nb::object direct_call(DirectOp& op, Args args) {
  using namespace direct_detail;
  TensorFacts facts;
  if (!direct(op, args, facts)) return nb::borrow(Py_NotImplemented);
  if (!op.fast) return call_with(op.implementation, args);
  static PyObject* const is_contiguous = PyUnicode_InternFromString("is_contiguous");
  static PyObject* const get_device = PyUnicode_InternFromString("get_device");
  static PyObject* const extensions = PyUnicode_InternFromString("extensions");
  static PyObject* const memory_format = PyUnicode_InternFromString("memory_format");
  // A strided input the kernel wants C-contiguous: the Python implementation copies it first.
  if (op.native != nullptr || op.tensor_table != nullptr) {
    if (!facts.contiguous) return call_with(op.implementation, args);
  } else {
    for (std::size_t n : op.contiguous)
      if (!method_true(args[n], is_contiguous)) return call_with(op.implementation, args);
  }
  nb::object kernel = op.kernel;
  bool dispatcher = nb::isinstance<DispatchCache>(kernel);
  if (dispatcher && attr_true(kernel.ptr(), extensions)) return call_with(op.implementation, args);
  const int current = Context::current_ordinal();
  if (!op.tensors.empty() && facts.device < 0) {
    nb::object index = nb::steal(PyObject_CallMethodNoArgs(args[op.tensors.front()], get_device));
    if (!index.is_valid()) throw nb::python_error();
    facts.device = static_cast<int>(PyLong_AsLong(index.ptr()));
  }
  if (!op.tensors.empty() && facts.device != current) return call_with(op.implementation, args);  // switches device
  if (dispatcher && !op.kernel_for.is_none()) {  // one signature: its kernel loaded on this device
    kernel = loaded_kernel(op, current);
    if (!kernel.is_valid()) return call_with(op.implementation, args);  // debug=True: it re-raises
    dispatcher = false;
  }
  // The results (C order, as the fake implementation makes them), then the kernel's arguments in its
  // parameters' order.
  std::vector<nb::object> results;
  if (!op.likes.empty()) {
    static PyObject* const kwnames = PyTuple_Pack(1, memory_format);
    for (std::size_t like : op.likes) {
      if (op.native != nullptr) {
        PyObject* r = op.native->empty_like(args[like]);
        if (r == nullptr) return call_with(op.implementation, args);  // it allocates, or raises in the framework's words
        results.push_back(nb::steal(r));
        continue;
      }
      PyObject* call[] = {args[like], op.contiguous_format.ptr()};
      PyObject* r = PyObject_Vectorcall(op.empty_like.ptr(), call, 1, kwnames);
      if (r == nullptr) throw nb::python_error();
      results.push_back(nb::steal(r));
    }
  }
  std::vector<PyObject*> ordered;
  ordered.reserve(op.order.size());
  for (std::size_t slot : op.order) ordered.push_back(slot < args.size() ? args[slot] : results[slot - args.size()].ptr());
  const Args launch_args(ordered.data(), ordered.size());
  nb::object stream;
  void* native_stream = nullptr;
  if (op.native != nullptr && op.native->current_stream(current, &native_stream)) {
    stream = native_stream == nullptr ? nb::int_(1) : nb::int_(reinterpret_cast<std::uintptr_t>(native_stream));
  } else {
    nb::object index = nb::int_(current);
    PyObject* index_arg = index.ptr();
    stream = nb::steal(PyObject_Vectorcall(op.raw_stream.ptr(), &index_arg, 1, nullptr));
    if (!stream.is_valid()) throw nb::python_error();
  }
  if (!truthy(stream.ptr())) stream = nb::int_(1);  // the framework's null stream: the legacy default stream
  // Extents the Python implementation words its own refusal for (a list, a numpy int, ...) go to it.
  nb::object n, grid, block;
  if (!op.ntasks.is_none()) {
    n = extent(op.ntasks, args);
    if (!PyLong_CheckExact(n.ptr())) return call_with(op.implementation, args);
  } else {
    grid = extent(op.griddim, args);
    block = extent(op.blockdim, args);
    if (!(PyLong_CheckExact(grid.ptr()) || PyTuple_CheckExact(grid.ptr())) ||
        !(PyLong_CheckExact(block.ptr()) || PyTuple_CheckExact(block.ptr())))
      return call_with(op.implementation, args);
  }
  try {
    if (n.is_valid()) {
      nb::object smem = nb::int_(op.sharedmem);
      if (dispatcher) {
        if (!lazy_forall(nb::cast<DispatchCache&>(kernel), kernel, n, stream, smem, launch_args))
          general_launch(kernel, true, nb::make_tuple(n, stream, smem), launch_args);
      } else {
        PyKernel& k = nb::cast<PyKernel&>(kernel);
        bool nothing_to_do = false;
        const LaunchConfig c = forall_config(k, nb::cast<std::int64_t>(n), stream, op.sharedmem, nothing_to_do);
        if (nothing_to_do) check_count(k, launch_args);
        else launch_with(k, c, launch_args);
      }
    } else {
      nb::object key = nb::make_tuple(grid, block, stream, op.sharedmem);
      nb::object keepalive;
      if (dispatcher) {
        const LaunchConfig c = config_of(key, keepalive);
        if (!lazy_launch(nb::cast<DispatchCache&>(kernel), kernel, c, launch_args))
          general_launch(kernel, false, key, launch_args);
      } else {
        PyKernel& k = nb::cast<PyKernel&>(kernel);
        launch_with(k, configure(k, key, keepalive), launch_args);
      }
    }
  } catch (...) {
    raise_naming(op.qualname);
  }
  if (results.empty()) return nb::none();
  if (op.single) return results.front();
  nb::tuple out = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(results.size())));
  for (std::size_t i = 0; i < results.size(); ++i) PyTuple_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), results[i].release().ptr());
  return out;
}

}  // namespace cubridge::python::kernel_glue
