// Internal (Python glue of the kernel face): what a framework's compiled glue answers for a direct operator
// call (py_direct_op.hpp) without a Python call. A framework module built against that framework
// (python/torch_glue/: cubridge._torch_glue, PyTorch) publishes one table as the capsule named
// kFrameworkTableCapsule; the direct call asks it where the op was made with it, and asks the framework's
// Python functions otherwise. Every function is called with the GIL held and never throws.
#pragma once

#include <Python.h>

#include <cstdint>

#include "cubridge/c/dlpack.h"

namespace cubridge::python {

inline constexpr const char* kFrameworkTableCapsule = "cubridge.framework_table";
inline constexpr std::uint32_t kFrameworkTableVersion = 2;

/// One tensor's facts, as the framework knows them.
struct FrameworkTensorFacts {
  bool cuda = false;           // a dense strided CUDA tensor with no dispatch key a plain one lacks (no nested,
                               // sparse, functional, zero, wrapped, conjugated or negated tensor)
  int device = -1;             // that device's ordinal
  bool requires_grad = false;  // autograd would record the call
  bool conjugate = false;      // the conjugate bit (x.conj() of a complex tensor), which the dispatcher resolves first
  bool negative = false;       // the negative bit (x.conj().imag, ...), which the dispatcher resolves first
  bool contiguous = false;     // the framework's own C-contiguity (extents of 1 and empty tensors count as contiguous)
};

/// One tensor's DLPack description as the framework's exchange table gives it (`dltensor_from_py_object_no_sync`:
/// borrowed, its shape and strides point into the tensor, valid while the tensor lives unchanged), with the bits
/// that export leaves out.
struct FrameworkDLTensor {
  CubridgeDLTensor tensor{};
  bool conjugate = false;  // as FrameworkTensorFacts
  bool negative = false;
};

struct FrameworkTable {
  std::uint32_t version;  // kFrameworkTableVersion
  // Whether the framework's dispatcher would do more than call the op's implementation now: a mode of the
  // framework (its function or dispatch modes), a transform, a trace, its profiler.
  bool (*dispatcher_acts)();
  // The facts of an object of the framework's exact tensor type; false (no Python error) where the framework
  // cannot tell (then its dispatcher decides).
  bool (*tensor_facts)(PyObject* tensor, FrameworkTensorFacts* out);
  // The description of an object of the framework's exact tensor type, by the very function its exchange table's
  // dltensor_from_py_object_no_sync calls, with no conversion of the object first; false (no Python error) where
  // the framework cannot tell (then its exchange table is asked, which raises in its words).
  bool (*dltensor)(PyObject* tensor, FrameworkDLTensor* out);
  // A new tensor like `tensor` (shape, dtype, device) in C order, as the framework's own allocation makes it;
  // null (no Python error) where that failed: the caller asks the framework's Python function, which raises.
  PyObject* (*empty_like)(PyObject* tensor);
  // The framework's current stream on a device (null: the legacy default stream); false (no Python error)
  // where the framework cannot tell.
  bool (*current_stream)(int device, void** out);
};

}  // namespace cubridge::python
