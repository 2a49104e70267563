"""numba extension types whose data model is a ``StructModel`` (``register_model(T)`` of a
``models.StructModel`` subclass, e.g. numba's ``Interval`` example), described as numba-cuda's CUDA target lays
them out: the members (name, numba type, cubridge counterpart), the LLVM data type of a value, its size and
alignment, and the parameters a kernel argument of the type becomes (numba's ``as_argument`` flattening, one per
leaf member). Everything here is read from numba's own data model manager, never recomputed.

``foreign_type`` makes cubridge's carrier of such values (TypeKind::Foreign): the members when they are integers
and floats (their value and data types are one), each named by the attribute numba's make_attribute_wrapper reads
it through; or, for an OpaqueModel type, the i8* numba holds. The foreign type names numba's type object by a
handle into this module's registry (``numba_type_of``), so numba's typing and lowering get the object itself back.
A type cubridge does not hold is refused naming its StructModel (``extension_type_refusal``).
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


def _data_model(numba_type, context):
    """numba's data model of the extension type `numba_type` in `context` (numba's CUDA target context), or None
    when it is one of numba's own types, there is no context, or the context has no model for it."""
    if context is None or not is_extension_type(numba_type):
        return None
    try:
        return context.data_model_manager.lookup(numba_type)
    except (KeyError, NotImplementedError, TypeError):
        return None


def struct_layout(numba_type, context=None):
    """The StructLayout of the numba extension type `numba_type`, or None when it is one of numba's own types or
    numba's CUDA target has no StructModel for it (no model registered, another model such as OpaqueModel, or
    no CUDA target to ask)."""
    if not is_extension_type(numba_type):
        return None
    context = context if context is not None else _cuda_context()
    model = _data_model(numba_type, context)
    if model is None or not _is_struct_model(model):
        return None
    data_type = model.get_data_type()
    members = tuple(_member(name, t) for name, t in zip(model._fields, model._members))
    return StructLayout(numba_type, members, str(data_type), int(context.get_abi_sizeof(data_type)),
                        int(context.get_abi_alignment(data_type)), tuple(_flatten(model.get_argument_type())))


#: numba's type objects of the foreign types made so far, by handle (a foreign Type names its numba type by its
#: index here); the same numba type always gets the same handle, so its foreign types are equal.
_NUMBA_TYPES: list = []
_HANDLES: dict = {}


def _held(member: StructMember) -> bool:
    """Whether cubridge holds the member as numba's StructModel does: an integer or a float (their value and data
    types are one; a bool's are not, i1 and i8)."""
    return member.type is not None and member.type.kind in ("int", "float")


def _attribute_registries():
    """numba's typing registries where make_attribute_wrapper registers its attribute templates (numba-cuda's
    CUDA registry; numba's built-in one)."""
    found = []
    for module, name in (("numba.cuda.cudadecl", "registry"), ("numba.cuda.typing.templates", "builtin_registry"),
                         ("numba.core.typing.templates", "builtin_registry")):
        try:
            found.append(getattr(__import__(module, fromlist=[name]), name))
        except (ImportError, AttributeError):
            continue
    return found


def _wrapper_attribute(template):
    """(attribute, member) of a make_attribute_wrapper template (read from the closures numba's function makes),
    or None for any other attribute template."""
    import inspect
    resolve = getattr(template, "generic_resolve", None)
    if "make_attribute_wrapper" not in getattr(template, "__qualname__", "") or resolve is None:
        return None
    try:
        outer = inspect.getclosurevars(resolve).nonlocals
        inner = inspect.getclosurevars(outer["get_attr_fe_type"]).nonlocals
        return outer["python_attr"], inner["struct_attr"]
    except (KeyError, TypeError, ValueError):
        return None


def member_attributes(numba_type, layout) -> list:
    """The attribute reading each member ("" for none), as make_attribute_wrapper exposes them for the type's
    class: an attribute another template of the class also resolves, or one member reached by two attributes,
    is left out (numba's choice between templates is not read here: such code stays refused)."""
    key = type(numba_type)
    wrappers, others = {}, set()
    for registry in _attribute_registries():
        for template in getattr(registry, "attributes", ()):
            if getattr(template, "key", None) is not key:
                continue
            pair = _wrapper_attribute(template)
            if pair is None:
                others.add(template)
            else:
                wrappers.setdefault(pair[0], set()).add(pair[1])
    names = [m.name for m in layout.members]
    by_member = {}
    for attribute, members in wrappers.items():
        resolved_elsewhere = any(hasattr(t, f"resolve_{attribute}") or getattr(t, "_attr", None) == attribute or
                                 ("generic_resolve" in vars(t) and getattr(t, "_attr", None) is None)
                                 for t in others)
        if len(members) == 1 and not resolved_elsewhere and next(iter(members)) in names:
            by_member.setdefault(next(iter(members)), []).append(attribute)
    return [by_member[n][0] if len(by_member.get(n, ())) == 1 else "" for n in names]


def _handle(numba_type) -> int:
    handle = _HANDLES.get(numba_type)
    if handle is None:
        handle = _HANDLES[numba_type] = len(_NUMBA_TYPES)
        _NUMBA_TYPES.append(numba_type)
    return handle


def _is_opaque_model(numba_type) -> bool:
    """Whether numba's CUDA target holds the extension type `numba_type` by an OpaqueModel (an i8* value)."""
    model = _data_model(numba_type, _cuda_context() if is_extension_type(numba_type) else None)
    return model is not None and any(k.__name__ == "OpaqueModel" and k.__module__.startswith("numba") for k in type(model).__mro__)


def foreign_type(numba_type):
    """cubridge's foreign Type carrying the numba extension type `numba_type` by value (its StructModel's members,
    in numba's order and LLVM layout, each named by the attribute make_attribute_wrapper reads it through, ""
    for a member without one; or numba's OpaqueModel pointer), or None when it is not such a type or a member is
    not an integer or a float."""
    if _is_opaque_model(numba_type):
        from ._core import Type
        return Type._foreign_opaque(str(numba_type), _handle(numba_type))
    layout = struct_layout(numba_type)
    if layout is None or not all(_held(m) for m in layout.members):
        return None
    from ._core import Type
    return Type._foreign(str(numba_type), _handle(numba_type), member_attributes(numba_type, layout),
                         [m.type for m in layout.members], layout.size)


def foreign_dtype(value):
    """The foreign Type of `value` when it is a numba extension type object cubridge holds (an array's dtype:
    cuda.local.array(n, dtype=struct_model_type)), else None; numba is not imported for other values."""
    if not any(k.__name__ == "Type" and k.__module__.startswith("numba") for k in type(value).__mro__):
        return None
    return foreign_type(value) if is_extension_type(value) else None


def numba_type_of(foreign) -> object:
    """numba's type object of a foreign Type."""
    return _NUMBA_TYPES[foreign._foreign_handle]


def extension_type_refusal(numba_types, where: str, what: str):
    """A refusal naming the first of `numba_types` that is a numba extension type with a StructModel (its
    members, its size, the member without a cubridge counterpart if any), or None when none is."""
    for t in numba_types:
        layout = struct_layout(t)
        if layout is None:
            continue
        if foreign_type(t) is not None:  # held by cubridge code, but not passed into numba's code
            return (f"{where}: {what} takes {layout.describe()}, a numba extension type, as an argument: numba's "
                    f"calling convention passes it member by member, which cubridge does not do; numbers and C "
                    f"pointers pass to numba's lowering, and an extension type of integers and floats comes back "
                    f"from it")
        unheld = [m for m in layout.members if not _held(m)]
        return (f"{where}: {what} takes or returns {layout.describe()}, a numba extension type whose member "
                f"{unheld[0].name} ({unheld[0].numba_type}) is not an integer or a float: cubridge code holds "
                f"values of numba extension types whose StructModel members are integers and floats; numbers and "
                f"C pointers pass to and from numba's lowering")
    return None
