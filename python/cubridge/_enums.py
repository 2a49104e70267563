"""Enum and IntEnum members as numba-cuda types them: a member of an Enum class is numba's
``EnumMember(cls, T)`` and of an IntEnum ``IntEnumMember(cls, int64)``, T the type of the class's values
(numba's typeof of an Enum class: one type for every member, else "Cannot type heterogeneous enum").
The class is part of the type (spelt ``Enum<int64>(pkg.mod.Color)`` with its unique name), so the compiler
tells members of two classes apart; a member is held, and passed to a kernel, as its value.
"""
from __future__ import annotations

import enum


def class_key(cls: type) -> str:
    """The unique name of an enum class in type spellings: its module and qualified name, plus its id for a
    class made inside a function (two such classes may share a qualified name). The launch checks an
    argument's class by the same name (py_tuple_arguments.hpp: enum_class_key)."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    return key + f"@{id(cls):x}" if "<locals>" in key else key


def _refusal(cls: type, why: str) -> TypeError:
    return TypeError(f"Enum class {cls.__module__}.{cls.__qualname__}: {why}")


def member_type_name(cls: type) -> str:
    """The type spelling of cls's members ("Enum<int64>(mod.Color)", "IntEnum<int64>(mod.Shape)"); TypeError,
    naming the class, where numba-cuda cannot type them or kernels cannot hold their values."""
    from ._environment import _constant  # the one rule for a Python value's type (and text) as a constant
    members = list(cls.__members__.values())
    if not members:
        raise _refusal(cls, "Cannot type enum with no members (numba-cuda's words)")
    types = {}
    for m in members:
        c = _constant(m.value)
        if c is None:
            raise _refusal(cls, f"member {m.name} has the value {m.value!r} ({type(m.value).__name__}); kernels take "
                                "members whose values are numbers or tuples of numbers")
        types[c[0]] = m
    if len(types) > 1:
        raise _refusal(cls, "Cannot type heterogeneous enum: got value types " + ", ".join(sorted(types)) +
                            " (numba-cuda's words: all members' values must have one type)")
    value = next(iter(types))
    if issubclass(cls, enum.IntEnum):
        return f"IntEnum<{value}>({class_key(cls)})"
    return f"Enum<{value}>({class_key(cls)})"


def bind_class(options, name: str, cls: type) -> None:
    """Binds the members of the enum class `cls`, known in the source as `name`, as the constants
    "name.member" of their member type (Cls.member and Cls["member"] read them). A class whose members
    kernels cannot hold is refused by name where the source uses it."""
    from ._environment import _constant
    try:
        spelling = member_type_name(cls)
    except TypeError as e:
        options.add_refused_function(name, f"'{name}' is the {e}")
        return
    for member_name, member in cls.__members__.items():
        options.add_constant(f"{name}.{member_name}", spelling, _constant(member.value)[1])
    # the class itself (called, bound to a variable, iterated): numba-cuda types only its members' lookups
    options.add_refused_function(name, f"'{name}' is the Enum class {cls.__module__}.{cls.__qualname__}: kernels read "
                                       f"its members as {name}.member or {name}['member'] (numba-cuda types only "
                                       f"those); the class itself (called as {name}(value), bound to a variable, "
                                       f"iterated) is not supported")


def member_type(member: enum.Enum):
    """typeof of a member passed to a kernel: its class's member type."""
    from ._types import Type
    return Type.parse(member_type_name(type(member)))
