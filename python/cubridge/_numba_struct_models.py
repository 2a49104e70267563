"""numba extension types whose data model is a ``StructModel`` (``register_model(T)`` of a
``models.StructModel`` subclass, e.g. numba's ``Interval`` example), described as numba-cuda's CUDA target lays
them out: the members (name, numba type, cubridge counterpart), the LLVM data type of a value, its size and
alignment, and the parameters a kernel argument of the type becomes (numba's ``as_argument`` flattening, one per
leaf member). Everything here is read from numba's own data model manager, never recomputed, so a cubridge
carrier of such values (a foreign type kind) can be checked against numba member by member. Where a value of
such a type would have to cross into cubridge code, this description is what the refusal names.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StructMember:
    """One member of a StructModel: its field name, numba's type of it, and cubridge's counterpart (None where
    cubridge has none; `missing` then says why)."""
    name: str
    numba_type: object
    type: object = None
    missing: str = ""

    def spelling(self) -> str:
        return f"{self.name}: {self.numba_type}"


@dataclass(frozen=True, eq=False)
class StructLayout:
    """A numba extension type's StructModel as numba-cuda's target context lays it out."""
    numba_type: object
    members: tuple
    data_type: str           # numba's LLVM data type of a value, e.g. "{double, double}"
    size: int                # bytes, numba's ABI size of the data type on the CUDA target
    alignment: int           # bytes
    kernel_parameters: tuple  # LLVM types of the parameters a kernel argument of the type becomes

    @property
    def representable(self) -> bool:
        """Whether every member has a cubridge counterpart."""
        return all(m.type is not None for m in self.members)

    def describe(self) -> str:
        """'Interval (numba StructModel {lo: float64, hi: float64}, 16 bytes)'."""
        members = ", ".join(m.spelling() for m in self.members)
        return f"{self.numba_type} (numba StructModel {{{members}}}, {self.size} bytes)"


def _cuda_context():
    """numba-cuda's CUDA target context, or None where numba's CUDA target cannot be loaded."""
    try:
        from numba.cuda.descriptor import cuda_target
    except Exception:  # noqa: BLE001 - no usable CUDA target: nothing is described
        return None
    return cuda_target.target_context


def _is_struct_model(model) -> bool:
    return any(k.__name__ == "StructModel" and k.__module__.startswith("numba") for k in type(model).__mro__)


def _flatten(llvm_type) -> list:
    """numba's nested argument types (a tuple per aggregate member) as the flat list of parameters."""
    if isinstance(llvm_type, tuple):
        return [p for t in llvm_type for p in _flatten(t)]
    return [str(llvm_type)]


def _member(name: str, numba_type) -> StructMember:
    from ._types import from_numba
    try:
        return StructMember(name, numba_type, from_numba(numba_type))
    except (TypeError, ValueError) as e:
        return StructMember(name, numba_type, None, str(e))


def is_extension_type(numba_type) -> bool:
    """Whether `numba_type` is a user's numba type (a types.Type subclass defined outside numba; numba's test
    suites hold user code too), not one of numba's own (whose arrays and tuples are StructModels as well)."""
    parts = (type(numba_type).__module__ or "").split(".")
    return parts[0] not in ("numba", "numba_cuda") or "tests" in parts


def struct_layout(numba_type, context=None):
    """The StructLayout of the numba extension type `numba_type`, or None when it is one of numba's own types or
    numba's CUDA target has no StructModel for it (no model registered, another model such as OpaqueModel, or
    no CUDA target to ask)."""
    if not is_extension_type(numba_type):
        return None
    context = context if context is not None else _cuda_context()
    if context is None:
        return None
    try:
        model = context.data_model_manager.lookup(numba_type)
    except (KeyError, NotImplementedError, TypeError):
        return None
    if not _is_struct_model(model):
        return None
    data_type = model.get_data_type()
    members = tuple(_member(name, t) for name, t in zip(model._fields, model._members))
    return StructLayout(numba_type, members, str(data_type), int(context.get_abi_sizeof(data_type)),
                        int(context.get_abi_alignment(data_type)), tuple(_flatten(model.get_argument_type())))


def extension_type_refusal(numba_types, where: str, what: str):
    """A refusal naming the first of `numba_types` that is a numba extension type with a StructModel (its
    members, its size, the member without a cubridge counterpart if any), or None when none is."""
    for t in numba_types:
        layout = struct_layout(t)
        if layout is None:
            continue
        unrepresentable = [m for m in layout.members if m.type is None]
        members = ("" if not unrepresentable else
                   f"; member {unrepresentable[0].name} ({unrepresentable[0].numba_type}) has no cubridge type "
                   f"either")
        return (f"{where}: {what} takes or returns {layout.describe()}, a numba extension type: cubridge code "
                f"does not hold values of numba extension types (no cubridge type carries them){members}; "
                f"numbers and C pointers pass to and from numba's lowering")
    return None
