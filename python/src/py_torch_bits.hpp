// Internal (Python glue of the array face): PyTorch tensors with their conjugate or negative bit set. PyTorch
// keeps x.conj() (complex) and x.conj().imag (any dtype) as views whose elements are the storage's conjugated
// or negated, a bit it resolves in its own operators; its DLPack export (the exchange table's
// dltensor_from_py_object_no_sync and managed_tensor_from_py_object_no_sync) hands out the storage without the
// bit. Read as exported, such a tensor would be read silently wrong, so every import of a PyTorch tensor
// refuses one by name (x.resolve_conj() / x.resolve_neg() give a tensor of the same values that has none).
// The bits are asked through cubridge._torch_glue where the package was built against this PyTorch
// (py_framework_table.hpp), else through the tensor's is_conj() and is_neg(). Asked by py_import.hpp,
// py_dlpack.hpp and py_c_api.hpp before a PyTorch tensor is read; where the glue is usable, the tensor's
// borrowed DLTensor comes from the same call (`described`).
#pragma once

#include <optional>

#include "py_common.hpp"
#include "py_framework_table.hpp"

namespace cubridge::python::torch_bits {

/// torch.Tensor and cubridge._torch_glue's table (null where not built against this PyTorch); resolved once the
/// program has imported torch (never imported here). References kept for the process.
struct Torch {
  PyTypeObject* tensor = nullptr;
  const FrameworkTable* glue = nullptr;
  PyObject* glue_capsule = nullptr;  // the capsule `glue` came in (cubridge.torch passes it on to its direct call)
};

inline const Torch& torch() {
  static Torch t;
  static bool resolved = false;
  if (resolved || !module_imported("torch")) return t;
  PyObject* cls = module_attribute("torch", "Tensor");
  if (cls == nullptr || !PyType_Check(cls)) {  // torch still being imported: asked again at the next question
    Py_XDECREF(cls);
    return t;
  }
  resolved = true;
  t.tensor = reinterpret_cast<PyTypeObject*>(cls);
  nb::object version = nb::steal(module_attribute("torch", "__version__"));
  nb::object built = nb::steal(module_attribute("cubridge._torch_glue", "torch_version"));
  nb::object table = nb::steal(module_attribute("cubridge._torch_glue", "table"));
  if (version.is_valid() && built.is_valid() && table.is_valid() &&
      PyObject_RichCompareBool(version.ptr(), built.ptr(), Py_EQ) == 1 &&
      PyCapsule_IsValid(table.ptr(), kFrameworkTableCapsule)) {
    auto* glue = static_cast<const FrameworkTable*>(PyCapsule_GetPointer(table.ptr(), kFrameworkTableCapsule));
    if (glue->version == kFrameworkTableVersion) {
      t.glue = glue;
      t.glue_capsule = table.release().ptr();  // kept for the process, as the module keeps it
    }
  }
  PyErr_Clear();
  return t;
}

/// Whether objects of exactly `tp` are PyTorch tensors (torch.Tensor or a subclass). The last answers are kept by
/// the type's identity and version tag (a type freed and another made at its address has another tag; a type
/// without one is decided each time). A no is kept once torch.Tensor is known, or while torch is not imported at
/// all (a type made then has no torch base), never while torch is being imported.
inline bool is_tensor_type(PyTypeObject* tp) {
  struct Answer {
    PyTypeObject* type = nullptr;
    unsigned int tag = 0;
    bool is(PyTypeObject* t) const noexcept { return type == t && tag != 0 && tag == t->tp_version_tag; }
  };
  static Answer last_yes, last_no;
  if (last_yes.is(tp)) return true;
  if (last_no.is(tp)) return false;
  const Torch& t = torch();
  // torch.Tensor itself, which PyTorch's loading may leave without a tag (so never kept above): the reference
  // torch() holds keeps it alive, so its address is its identity.
  if (tp == t.tensor) return true;
  const bool yes = t.tensor != nullptr && PyType_IsSubtype(tp, t.tensor);
  if (yes || t.tensor != nullptr || !module_imported("torch")) (yes ? last_yes : last_no) = Answer{tp, tp->tp_version_tag};
  return yes;
}

/// Throws (ValueError, naming the bit and the way out) where a PyTorch tensor has its conjugate or negative bit.
inline void refuse(bool conjugate, bool negative) {
  if (!conjugate && !negative) return;
  throw nb::value_error(conjugate
      ? "a PyTorch tensor with its conjugate bit set (x.conj() of a complex tensor) cannot be read as it is: its "
        "memory holds the values before the conjugation, which PyTorch's DLPack export hands out unconjugated; "
        "pass x.resolve_conj() (the same values, conjugated into memory)"
      : "a PyTorch tensor with its negative bit set (x.conj().imag, or another negated view) cannot be read as it "
        "is: its memory holds the values before the negation, which PyTorch's DLPack export hands out unnegated; "
        "pass x.resolve_neg() (the same values, negated into memory)");
}

/// Throws (see refuse) where `obj` is a PyTorch tensor with its conjugate or negative bit set.
inline void refuse_unresolved(PyObject* obj) {
  if (!is_tensor_type(Py_TYPE(obj))) return;
  static PyObject* const is_conj = PyUnicode_InternFromString("is_conj");
  static PyObject* const is_neg = PyUnicode_InternFromString("is_neg");
  const Torch& t = torch();
  FrameworkTensorFacts facts;
  if (t.glue != nullptr && t.glue->tensor_facts(obj, &facts)) return refuse(facts.conjugate, facts.negative);
  const bool conj = method_true(obj, is_conj);
  refuse(conj, !conj && method_true(obj, is_neg));
}

/// Whether the imports read PyTorch tensors through the glue where it is usable (on unless a bench or test turned
/// it off to compare the two paths: _core._torch_glue_reader).
inline bool& glue_reader_on() {
  static bool on = true;
  return on;
}

/// A PyTorch tensor's borrowed DLTensor read through cubridge._torch_glue, in place of refuse_unresolved and the
/// exchange table's dltensor_from_py_object_no_sync (the same PyTorch function, one call instead of three):
/// nullopt where the glue cannot say (not built against this PyTorch, not an exact torch.Tensor, a tensor DLPack
/// cannot describe), and then the caller asks those two. Throws where the tensor has either bit (see refuse).
inline std::optional<CubridgeDLTensor> described(PyObject* obj) {
  if (!is_tensor_type(Py_TYPE(obj))) return std::nullopt;
  const Torch& t = torch();
  FrameworkDLTensor d;
  if (t.glue == nullptr || !glue_reader_on() || !t.glue->dltensor(obj, &d)) return std::nullopt;
  refuse(d.conjugate, d.negative);
  return d.tensor;
}

}  // namespace cubridge::python::torch_bits
