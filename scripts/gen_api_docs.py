#!/usr/bin/env python3
"""Writes docs/api.md, the API reference, from the installed cubridge package's docstrings and signatures.

    python scripts/gen_api_docs.py            # rewrite docs/api.md
    python scripts/gen_api_docs.py --check    # exit 1, with a diff, when docs/api.md is stale (CI)

Every public module of the package is covered: `cubridge` (the names in `cubridge.__all__`) and each module
under it whose name has no leading underscore, found by walking the package's folder, so a new module
cannot be left out. Modules that import a peer library when imported (numba, CuPy, PyTorch, RMM) are read
from their source text, so the page is the same whichever peers are installed; the others are imported.
Needs no GPU. The text avoids whatever varies between Python versions and runs: default values that have
no literal spelling are written `...`, and docstrings are not inherited from Python's own classes.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import enum
import inspect
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "api.md"
COMMAND = "python scripts/gen_api_docs.py"

# Public modules that import a peer at import time: documented from their source (see the docstring).
READ_FROM_SOURCE = {"cubridge.numba_emm", "cubridge.interop.cupy", "cubridge.interop.torch",
                    "cubridge.interop.rmm", "cubridge.torch"}
# Public-looking modules (with their submodules) that are no API, with the reason.
NOT_API = {"cubridge.demo": "the steps of the `cubridge demo` command"}
# Packages that only hold modules: each of those is documented, the package itself has nothing to show.
NAMESPACES = {"cubridge.interop"}

_ADDRESS = re.compile(r"<[^<>]* at 0x[0-9a-f]+>")


def public_modules(package_dir: pathlib.Path) -> list[str]:
    """cubridge and every module or package below it whose dotted name has no part with a leading '_'."""
    found = ["cubridge"]
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or any(p.startswith("_") for p in parts):
            continue
        name = ".".join(("cubridge", *parts))
        if name not in NAMESPACES and not any(name == m or name.startswith(m + ".") for m in NOT_API):
            found.append(name)
    return found


def _doc(text: str | None) -> str:
    return inspect.cleandoc(text) if text else ""


def _value(value) -> str:
    """A default value as the page writes it: its repr where that is stable, else `...`."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, type):
        return value.__qualname__
    if type(value).__module__ == "numpy" and hasattr(value, "item"):  # a NumPy scalar: repr differs by NumPy version
        return f"numpy.{type(value).__name__}({str(value)})"
    text = repr(value)
    return "..." if _ADDRESS.search(text) else text


def _python_signature(obj) -> str:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params = []
    for p in sig.parameters.values():
        if p.default is not p.empty:
            p = p.replace(default=_Literal(_value(p.default)))
        if isinstance(p.annotation, str):  # `from __future__ import annotations`: written as in the source
            p = p.replace(annotation=_Literal(p.annotation))
        params.append(p)
    ret = sig.return_annotation
    return str(sig.replace(parameters=params,
                           return_annotation=_Literal(ret) if isinstance(ret, str) else ret))


class _Literal:
    """Prints as the given text inside an inspect.Signature (as a default value or an annotation)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def _nanobind_signatures(obj) -> list[tuple[str, str]]:
    """(signature, doc) per overload of a nanobind function, with default values written in."""
    out = []
    for sig, doc, defaults in obj.__nb_signature__:
        for i, value in reversed(list(enumerate(defaults or ()))):  # \\10 before \\1
            sig = sig.replace(f"\\{i}", _value(value))
        out.append((sig, _doc(doc)))
    return out


def _is_nanobind_function(obj) -> bool:
    return hasattr(obj, "__nb_signature__")


def _own_doc(cls) -> str:
    # A class without a docstring of its own must not borrow Python's (Exception's differs by version).
    return _doc(cls.__dict__.get("__doc__"))


def _defined_here(cls, attr: str) -> bool:
    for klass in cls.__mro__:
        if attr in klass.__dict__:
            return getattr(klass, "__module__", "").startswith("cubridge")
    return False


def _constructors(cls) -> list[str]:
    """The argument lists a class is constructed with (one per overload), without `self`; none for a
    class that cubridge's functions make, or whose constructor is Python's own."""
    init = cls.__dict__.get("__init__")
    if init is not None and _is_nanobind_function(init):
        return ["(" + sig.split("(", 1)[1].replace("self, ", "", 1).replace("self)", ")", 1).split(" -> ")[0]
                for sig, _ in _nanobind_signatures(init)]
    if inspect.isfunction(init):  # a Python class, also one deriving from a bound (nb_type) base
        return [_python_signature(cls)]
    if type(cls).__name__ == "nb_type":
        return []
    if _defined_here(cls, "__init__") or _defined_here(cls, "__new__"):
        return [_python_signature(cls)]
    return []


def _bases(cls) -> str:
    names = [b.__name__ for b in cls.__bases__ if b is not object and not b.__name__.startswith("_")]
    return f"({', '.join(names)})" if names else ""


def _member_lines(cls) -> list[str]:
    """The public methods and properties a class defines itself, each with its signature and doc."""
    lines = []
    for name, member in cls.__dict__.items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            getter = member.fget
            if getter is not None and _is_nanobind_function(getter):
                sig, doc = _nanobind_signatures(getter)[0]
                returns = sig.split(" -> ", 1)[1] if " -> " in sig else ""
                doc = doc or _doc(member.__doc__ if member.__doc__ != sig.removeprefix("def ") else None)
            else:
                ret = inspect.signature(getter).return_annotation if getter else inspect.Signature.empty
                returns = "" if ret is inspect.Signature.empty else str(ret)
                doc = _doc(member.__doc__)
            lines.append(_bullet(f"{name}: {returns}" if returns else name, doc))
        elif inspect.isgetsetdescriptor(member):  # a C type's attribute, documented "type: text"
            returns, _, doc = (member.__doc__ or "").partition(": ")
            lines.append(_bullet(f"{name}: {returns}" if returns else name, _doc(doc)))
        elif isinstance(member, (staticmethod, classmethod)):
            lines.append(_bullet(f"{name}{_python_signature(member.__func__)}", _doc(member.__func__.__doc__)))
        elif _is_nanobind_function(member):
            for sig, doc in _nanobind_signatures(member):
                lines.append(_bullet(sig.removeprefix("def "), doc))
        elif inspect.isfunction(member):
            lines.append(_bullet(f"{name}{_python_signature(member)}", _doc(member.__doc__)))
    return lines


def _bullet(head: str, doc: str) -> str:
    text = f"- `{head}`"
    if doc:
        text += ": " + doc.replace("\n", "\n  ")
    return text


def _entry(heading: str, code: str, doc: str, members: list[str] = ()) -> str:
    parts = [f"### `{heading}`", "", "```python", code, "```"]
    if doc:
        parts += ["", doc]
    if members:
        parts += ["", *members]
    return "\n".join(parts) + "\n"


def document_object(qualname: str, name: str, obj) -> str:
    if inspect.isclass(obj):
        code = "\n".join([f"class {name}{_bases(obj)}", *(f"{name}{args}" for args in _constructors(obj))])
        return _entry(qualname, code, _own_doc(obj), _member_lines(obj))
    if _is_nanobind_function(obj):
        sigs = _nanobind_signatures(obj)
        doc = "\n\n".join(dict.fromkeys(d for _, d in sigs if d))
        return _entry(qualname, "\n".join(s for s, _ in sigs), doc)
    if inspect.isfunction(obj):
        return _entry(qualname, f"def {name}{_python_signature(obj)}", _doc(obj.__doc__))
    if isinstance(obj, (str, int, float, bool)):
        return _entry(qualname, f"{name} = {_value(obj)}", "")
    return document_instances(module_name_of(qualname), [name], [obj])


def module_name_of(qualname: str) -> str:
    return qualname.rsplit(".", 1)[0]


def _is_instance(obj) -> bool:
    return not (inspect.isclass(obj) or inspect.isroutine(obj) or _is_nanobind_function(obj)
                or isinstance(obj, (str, int, float, bool)))


def document_instances(module_name: str, names: list[str], objects: list) -> str:
    """Objects of one type (the scalar types like cubridge.int8, the kernel intrinsics): one entry, whose
    text is the first object's own docstring where it has one, else its class's. Objects of other
    libraries' types (a NumPy dtype, a number) are shown by value: their classes' docs are not ours."""
    cls = type(objects[0])
    heading = ", ".join(f"{module_name}.{n}" for n in names) if len(names) <= 3 else \
        f"{module_name}.{names[0]}, ... ({len(names)} {cls.__name__} objects)"
    if not cls.__module__.startswith("cubridge"):
        return _entry(heading, "\n".join(f"{n} = {_value(o)}" for n, o in zip(names, objects)), "")
    own = objects[0].__dict__.get("__doc__") if hasattr(objects[0], "__dict__") else None
    return _entry(heading, f"{', '.join(names)}: {cls.__name__}", _doc(own) or _own_doc(cls))


def document_imported(module_name: str) -> list[str]:
    import importlib

    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_") and getattr(v, "__module__", None) == module_name]
    entries = []
    group: list[str] = []
    for i, name in enumerate(names):
        obj = getattr(module, name)
        if not _is_instance(obj):
            entries.append(document_object(f"{module_name}.{name}", name, obj))
            continue
        group.append(name)
        following = getattr(module, names[i + 1]) if i + 1 < len(names) else None
        if not (_is_instance(following) and type(following) is type(obj)):  # the run of this type ends
            entries.append(document_instances(module_name, group, [getattr(module, n) for n in group]))
            group = []
    return entries


def _ast_signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    text = ast.unparse(node.args)
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"({text}){returns}"


def _ast_member(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    if any(ast.unparse(d) == "property" for d in node.decorator_list):
        return f"{node.name}: {ast.unparse(node.returns)}" if node.returns else node.name
    return f"{node.name}{_ast_signature(node)}"


def document_source(module_name: str, path: pathlib.Path) -> tuple[str, list[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    entries = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            entries.append(_entry(f"{module_name}.{node.name}", f"def {node.name}{_ast_signature(node)}",
                                  _doc(ast.get_docstring(node))))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            members = [_bullet(_ast_member(m), _doc(ast.get_docstring(m))) for m in node.body
                       if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and not m.name.startswith("_")]
            entries.append(_entry(f"{module_name}.{node.name}", f"class {node.name}({bases})",
                                  _doc(ast.get_docstring(node)), members))
    return _doc(ast.get_docstring(tree)), entries


def _module_file(package_dir: pathlib.Path, module_name: str) -> pathlib.Path:
    rel = pathlib.Path(*module_name.split(".")[1:])
    package = package_dir / rel / "__init__.py"
    return package if package.exists() else (package_dir / rel).with_suffix(".py")


def generate() -> str:
    import cubridge

    package_dir = pathlib.Path(cubridge.__file__).parent
    modules = public_modules(package_dir)
    lines = [f"<!-- Generated by scripts/gen_api_docs.py from the cubridge package's docstrings and signatures."
             f" Do not edit: run `{COMMAND}` to update. -->",
             "# cubridge API reference", "",
             "Every public name of the Python package, module by module, with its signature and docstring.",
             "The C++ library's reference is its headers, `include/cubridge/` (one concept per header).", "",
             *[f"- [`{m}`](#{m.replace('.', '')})" for m in modules], ""]
    for name in modules:
        if name in READ_FROM_SOURCE:
            doc, entries = document_source(name, _module_file(package_dir, name))
        else:
            import importlib

            doc, entries = _doc(importlib.import_module(name).__doc__), document_imported(name)
        lines += [f"## {name}", ""]
        if doc:
            lines += [doc, ""]
        for entry in entries:
            lines += [entry]
    text = "\n".join(lines)
    return text.rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/api.md from the installed cubridge package.")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 with a diff when docs/api.md differs from what would be written")
    args = parser.parse_args(argv)
    text = generate()
    if not args.check:
        OUTPUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUTPUT.relative_to(ROOT)} ({len(text.splitlines())} lines)")
        return 0
    current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
    if current == text:
        return 0
    diff = list(difflib.unified_diff(current.splitlines(), text.splitlines(), "docs/api.md (committed)",
                                     "docs/api.md (from the package)", lineterm="", n=1))
    shown = diff[:60] + ([f"... {len(diff) - 60} more diff lines"] if len(diff) > 60 else [])
    print(f"docs/api.md is stale: the package's docstrings or signatures changed. Run `{COMMAND}` "
          f"(with the package built and importable) and commit docs/api.md.\n" + "\n".join(shown))
    return 1


if __name__ == "__main__":
    sys.exit(main())
