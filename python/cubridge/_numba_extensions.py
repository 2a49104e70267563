"""Functions whose GPU code numba takes from somewhere other than their Python body.

numba compiles a call of a function registered with ``@overload(f)`` from the implementation the overload
returns, and an ``@intrinsic`` from the LLVM IR its Python code builds (cubridge has numba's own lowering build
it: _numba_lowering); numba-cuda's own device API
(``numba.cuda.ldcg``, ``numba.cuda.libdevice.sin``, ...) is written as such stubs whose bodies are a
docstring. Compiling those bodies would give a different function with no error, so the compiler never
does: numba's own functions are named by their dotted path (the compiler implements them or refuses the
path by name) and a user's overloads and intrinsics are refused with the reason.
"""
from __future__ import annotations

import sys
import types as _pytypes

# The typing registries that @overload / @intrinsic / infer_global register functions in: numba-cuda's and
# numba's own. Each holds `globals`, a list of (function, numba type) pairs.
_REGISTRIES = (
    ("numba.cuda.typing.templates", "builtin_registry"),
    ("numba.core.typing.templates", "builtin_registry"),
    ("numba.cuda.cudadecl", "registry"),
)


def numba_path(f) -> str | None:
    """The dotted path the compiler knows a function of numba's own packages by ("numba.cuda.ldcg",
    "numba.cuda.libdevice.sin"), or None when f is not numba's."""
    module = getattr(f, "__module__", None) or ""
    if module != "numba" and not module.startswith("numba."):
        return None
    if "tests" in module.split("."):  # numba's test suites hold ordinary user code
        return None
    name = getattr(f, "__name__", None)
    if not isinstance(name, str):
        return None
    cuda = sys.modules.get("numba.cuda")
    if cuda is not None and getattr(cuda, name, None) is f:  # numba.cuda.ldcg is numba.cuda.cache_hints.ldcg
        return f"numba.cuda.{name}"
    return f"{module}.{name}"


def is_bfloat16_type(v) -> bool:
    """Whether v is numba-cuda's bfloat16 type (numba.cuda.bf16.bfloat16, which is cuda_bf16.nv_bfloat16 and
    numba.cuda.types.bfloat16): a kernel calls it as the constructor bfloat16(x)."""
    return type(v).__name__ == "Bfloat16" and type(v).__module__.startswith("numba")


#: numba-cuda's fp8 bindings (fp8_e4m3, fp8_e5m2, fp8_e8m0, their x2/x4 forms, cvt_* and their enums): the
#: compiler types them by this module's name (typer_fp8.cpp); the enums' members are constants.
FP8_MODULE = "numba.cuda._internal.cuda_fp8"


def _registered(f) -> list:
    """The numba types registered for f in the typing registries loaded in this process."""
    found = []
    for module_name, attr in _REGISTRIES:
        module = sys.modules.get(module_name)
        registry = getattr(module, attr, None) if module is not None else None
        for value, typ in getattr(registry, "globals", ()):
            if value is f:
                found.append(typ)
    return found


def _is_register_jitable(typ, f) -> bool:
    """@register_jitable(f) is an overload whose implementation is f itself: its body is what numba runs."""
    template = getattr(typ, "templates", None) or (getattr(typ, "template", None),)
    for t in template:
        ol = getattr(t, "_overload_func", None)
        if ol is None or "register_jitable" not in getattr(ol, "__qualname__", ""):
            return False
        cells = [c.cell_contents for c in (ol.__closure__ or ()) if _filled(c)]
        if f not in cells:
            return False
    return True


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def refusal(name: str, v) -> str | None:
    """Why a call of `name` (bound to v outside the compiled function) cannot be compiled, or None when
    it can be compiled from v's Python body as usual."""
    if type(v).__name__ == "_Intrinsic" and type(v).__module__.startswith("numba"):
        return (f"'{name}' is a numba @intrinsic ({getattr(v, '__name__', name)}): its GPU code is LLVM IR built "
                f"by Python when numba compiles, which cubridge compiles with numba's own lowering, and numba's "
                f"CUDA target (numba.cuda.descriptor) cannot be imported here; install numba-cuda, or write it as "
                f"a Python function of the supported subset (a cubridge.jit(device=True) helper)")
    if _cpu_dispatcher_with_signatures(v):
        return (f"Untyped global name '{name}': using cpu function on device but its compilation is disabled "
                f"(numba's jit was given signatures for {getattr(v, '__name__', name)}, so numba compiles it for "
                f"those on the CPU and nowhere else, as numba-cuda refuses it in a kernel); call it as a plain "
                f"Python function, numba.jit without signatures, or a cuda.jit(device=True) function instead")
    f = getattr(v, "py_func", v)
    if not isinstance(f, _pytypes.FunctionType):
        return None
    registered = _registered(f)
    if not registered or all(_is_register_jitable(t, f) for t in registered):
        return None
    from ._overload_binding import refusal as overload_refusal  # imported here: it imports this module
    if (why := overload_refusal(name, f)) is not None:
        return why
    where = f"{f.__module__}.{f.__qualname__}"
    return (f"'{name}' ({where}) has a numba @overload: numba compiles the implementation the overload "
            f"returns for the argument types, not this Python body, and cubridge does not run numba's "
            f"overload code; compiling the body could give a different function, so the call is refused. "
            f"Call a plain Python function (or a cubridge.jit(device=True) helper) with the GPU code instead")


def _cpu_dispatcher_with_signatures(v) -> bool:
    """A numba CPU dispatcher (numba.jit) made with signatures: numba compiles those and disables compiling
    more, and numba-cuda's typing refuses it on the device ("compilation is disabled")."""
    module = type(v).__module__
    return (module.startswith("numba.") and not module.startswith("numba.cuda")
            and getattr(v, "_can_compile", True) is False and hasattr(v, "py_func"))


def declared_signatures(v) -> tuple:
    """The signatures a numba-cuda device function was compiled for when it was declared with them
    (``numba.cuda.jit(sigs, device=True)``: numba compiles those and nothing else), as numba signature
    objects; () for any other value."""
    if not type(v).__module__.startswith("numba") or getattr(v, "_can_compile", True):
        return ()
    overloads = getattr(v, "overloads", None)
    if not isinstance(overloads, dict):
        return ()
    return tuple(getattr(cres, "signature", None) for cres in overloads.values()
                 if getattr(cres, "signature", None) is not None)
