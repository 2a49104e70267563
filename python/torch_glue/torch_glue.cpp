// cubridge._torch_glue: PyTorch's answers to cubridge.torch's direct call (python/src/py_direct_op.hpp) asked in
// C++: its five mode, transform, trace and profiler questions, a tensor's facts, a result's allocation and the
// current stream, each a read of PyTorch's own state where the Python functions cost ~0.1-2 µs a call. Built
// only where PyTorch is importable when the package is built, against that PyTorch's headers and libraries
// (python/torch_glue/CMakeLists.txt); cubridge.torch uses it only under the same torch.__version__, and asks
// torch's Python functions otherwise. Publishes one cubridge::python::FrameworkTable (py_framework_table.hpp).
#include <Python.h>

#include <ATen/DLConvertor.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/record_function.h>
#include <ATen/ops/empty_like.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include <array>
#include <cstddef>
#include <cstring>

#include "py_framework_table.hpp"

#ifndef CUBRIDGE_TORCH_VERSION
#error "CUBRIDGE_TORCH_VERSION (the torch.__version__ built against) is set by python/torch_glue/CMakeLists.txt"
#endif

namespace {

using cubridge::python::FrameworkDLTensor;
using cubridge::python::FrameworkTable;
using cubridge::python::FrameworkTensorFacts;

// The questions torch._C's _is_torch_function_mode_enabled, _len_torch_dispatch_stack, _is_tracing and
// _autograd._profiler_enabled ask, in their terms. functorch's interpreter stack (_functorch.peek_interpreter_stack)
// is asked through the dispatch key functorch includes on this thread while its stack is not empty (its header,
// DynamicLayer.h, needs one PyTorch does not ship). Beyond the profiler of this thread, any RecordFunction
// callback (a global profiler, an execution trace observer) is one the dispatcher would call.
bool dispatcher_acts() {
  try {
    return at::impl::torch_function_mode_enabled() || c10::impl::TorchDispatchModeTLS::stack_len() > 0 ||
           c10::impl::tls_is_dispatch_key_included(c10::DispatchKey::FuncTorchDynamicLayerFrontMode) ||
           torch::jit::tracer::isTracing() || torch::profiler::impl::profilerEnabled() || at::hasCallbacks();
  } catch (...) {
    return true;  // nothing here throws today; a PyTorch that does sends every call to its dispatcher
  }
}

// A dense CUDA tensor whose every dispatch key is one a plain torch.randn(n, device="cuda") has: the dispatcher
// would send a call on it straight to the CUDA implementation. Any other key (Conjugate, Negative, ZeroTensor,
// Functionalize, a nested, sparse, batched or wrapped tensor, ...) is the dispatcher's to resolve first.
bool plain_cuda(const at::Tensor& t) {
  for (c10::DispatchKey k : t.key_set())
    if (k != c10::DispatchKey::CUDA && k != c10::DispatchKey::AutogradCUDA && k != c10::DispatchKey::ADInplaceOrView &&
        k != c10::DispatchKey::AutocastCUDA)
      return false;
  return t.layout() == c10::kStrided;
}

bool tensor_facts(PyObject* tensor, FrameworkTensorFacts* out) {
  if (!THPVariable_CheckExact(tensor)) return false;
  try {
    const at::Tensor& t = THPVariable_Unpack(tensor);
    out->cuda = t.is_cuda() && plain_cuda(t);
    out->device = t.is_cuda() ? t.get_device() : -1;
    out->requires_grad = t.requires_grad();
    out->conjugate = t.is_conj();
    out->negative = t.is_neg();
    out->contiguous = out->cuda && t.is_contiguous();
    return true;
  } catch (...) {
    return false;
  }
}

// at::toDLPackNonOwning's answer for a CUDA tensor without its three calls into libtorch (~0.02 µs of a launch's
// ~0.05 per tensor on an H100): the two facts that depend only on the tensor's dtype and on the build (its
// DLDataType; the DLPack device type of a CUDA tensor, kDLCUDA or ROCm's kDLROCM) are taken from toDLPackNonOwning's
// own answer for the first CUDA tensor of each dtype, the rest read by the accessors it reads. False where it does
// not apply (not a CUDA tensor): the caller asks toDLPackNonOwning.
bool describe_cuda(const at::Tensor& t, DLTensor* out) {
  if (!t.is_cuda()) return false;
  struct Learnt {
    DLDataType dtype{};
    bool known = false;
  };
  static std::array<Learnt, static_cast<std::size_t>(c10::ScalarType::NumOptions)> dtypes;  // by ScalarType; the GIL
  static DLDeviceType cuda_device_type{};                                                    // guards both
  const auto index = static_cast<std::size_t>(t.scalar_type());
  if (index >= dtypes.size()) return false;
  Learnt& learnt = dtypes[index];
  if (!learnt.known) {
    at::toDLPackNonOwning(t, out);  // throws for a dtype DLPack lacks: nothing is learnt
    learnt = Learnt{out->dtype, true};
    cuda_device_type = out->device.device_type;
    return true;
  }
  out->data = t.data_ptr();
  // toDLPackNonOwning's device_id of a CUDA tensor: its index (0-255), through an unsigned char
  out->device = DLDevice{cuda_device_type, static_cast<int32_t>(static_cast<unsigned char>(t.device().index()))};
  out->ndim = static_cast<int32_t>(t.dim());
  out->dtype = learnt.dtype;
  out->shape = const_cast<int64_t*>(t.sizes().data());
  out->strides = const_cast<int64_t*>(t.strides().data());
  out->byte_offset = 0;
  return true;
}

// What the exchange table's dltensor_from_py_object_no_sync gives (it calls at::toDLPackNonOwning too), without its
// pybind11 cast and the at::Tensor it copies (two atomic reference counts), and the bits that export leaves out.
bool dltensor(PyObject* tensor, FrameworkDLTensor* out) {
  static_assert(sizeof(DLTensor) == sizeof(CubridgeDLTensor) && alignof(DLTensor) == alignof(CubridgeDLTensor),
                "DLPack's DLTensor and cubridge's are one ABI");
  if (!THPVariable_CheckExact(tensor)) return false;
  try {
    const at::Tensor& t = THPVariable_Unpack(tensor);
    DLTensor d;
    if (!describe_cuda(t, &d)) at::toDLPackNonOwning(t, &d);
    std::memcpy(&out->tensor, &d, sizeof d);
    out->conjugate = t.is_conj();
    out->negative = t.is_neg();
    return true;
  } catch (...) {  // a tensor DLPack cannot describe: the exchange table raises in PyTorch's words
    return false;
  }
}

// torch.empty_like(tensor, memory_format=torch.contiguous_format) without its Python argument parsing; the GIL is
// released around the allocation as PyTorch's binding releases it.
PyObject* empty_like(PyObject* tensor) {
  if (!THPVariable_CheckExact(tensor)) return nullptr;
  try {
    const at::Tensor& t = THPVariable_Unpack(tensor);
    at::Tensor made;
    {
      pybind11::gil_scoped_release released;
      made = at::empty_like(t, t.options(), at::MemoryFormat::Contiguous);
    }
    PyObject* wrapped = THPVariable_Wrap(std::move(made));
    if (wrapped == nullptr) PyErr_Clear();  // the caller asks torch.empty_like, which raises in PyTorch's words
    return wrapped;
  } catch (...) {  // out of memory, ...: torch.empty_like asked from Python raises it in PyTorch's words
    PyErr_Clear();
    return nullptr;
  }
}

// torch._C._cuda_getCurrentRawStream(device).
bool current_stream(int device, void** out) {
  try {
    *out = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
    return true;
  } catch (...) {
    return false;
  }
}

const FrameworkTable table{cubridge::python::kFrameworkTableVersion, &dispatcher_acts, &tensor_facts, &dltensor, &empty_like,
                           &current_stream};

PyModuleDef module_def{PyModuleDef_HEAD_INIT, "_torch_glue",
                       "PyTorch's answers to cubridge.torch's direct call, asked in C++ (built against torch " CUBRIDGE_TORCH_VERSION ").",
                       0, nullptr, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__torch_glue() {
  PyObject* m = PyModule_Create(&module_def);
  if (m == nullptr) return nullptr;
  PyObject* capsule = PyCapsule_New(const_cast<FrameworkTable*>(&table), cubridge::python::kFrameworkTableCapsule, nullptr);
  const bool added = capsule != nullptr && PyModule_AddObjectRef(m, "table", capsule) == 0 &&
                     PyModule_AddStringConstant(m, "torch_version", CUBRIDGE_TORCH_VERSION) == 0;
  Py_XDECREF(capsule);
  if (!added) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
