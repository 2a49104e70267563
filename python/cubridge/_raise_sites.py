"""The exceptions a kernel raises, as the launcher of a debug=True kernel re-raises them: the classes the
compiler recorded by name (``module.qualname``) and the constant arguments it encoded (RaiseSite::args)."""
from __future__ import annotations

_EXCEPTION_CLASSES: dict = {}


def _register_exception_class(cls) -> str:
    """The name the compiler records for an exception class a kernel raises ("module.qualname"); the
    launcher of a debug=True kernel finds the class again through exception_class()."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    _EXCEPTION_CLASSES[name] = cls
    return name


def exception_class(name: str) -> type:
    """The class of a raise site (RaiseSite::exception): a builtin or one registered by _collect."""
    if name.startswith("builtins."):
        import builtins
        cls = getattr(builtins, name[9:], None)
    else:
        cls = _EXCEPTION_CLASSES.get(name)
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else SystemError


def exception_args(encoded) -> tuple:
    """A raise site's constant arguments from the compiler's "<kind>:<text>" encoding (RaiseSite::args)."""
    def one(item: str):
        kind, _, text = item.partition(":")
        if kind == "s":
            return text
        if kind in ("i", "u"):
            return int(text)
        if kind == "f":
            return float.fromhex(text)
        if kind == "b":
            return text == "1"
        if kind == "c":
            re, im = text.split(" ")
            return complex(float.fromhex(re), float.fromhex(im))
        return None
    return tuple(one(a) for a in encoded)
