"""Functions without a source file (`python -c`, stdin, `exec` of a string, the REPL): their source text
rebuilt from the code object, for the same front end, typing, cache and messages as a file's.

`source_text(fn)` decodes the bytecode (instructions.py: one spelling for each supported CPython;
decoder.py: statements and control flow), writes each statement at its recorded line (render.py) and
compiles the text again to check it gives fn's code object back (roundtrip.py): a function the
decompiler cannot rebuild exactly is refused with the construct and line, never compiled differently.
"""
from __future__ import annotations

import hashlib
import sys
import types

from .decoder import END, Ctx, Decoder, Unsupported
from .instructions import SUPPORTED_VERSIONS, instructions, merge_copied_returns, read, unsupported_version_message
from .render import render
from .roundtrip import first_difference
from .expressions import constant

_UNSUPPORTED_FLAGS = {0x20: "a generator ('yield')", 0x80: "a coroutine ('async def')",
                      0x100: "a coroutine ('async def')", 0x200: "an async generator"}


class BytecodeError(Exception):
    """A function the decompiler refuses: `str(e)` names the file, line and construct."""


def _refuse(code, line: int, what: str) -> BytecodeError:
    return BytecodeError(f"{code.co_filename}:{line}: {code.co_name}: {what} cannot be compiled from bytecode "
                         f"(the function has no source file: define it in a file, or register its source "
                         f"in linecache; see docs/python-subset.md, 'Functions without a source file')")


def _header(fn, code) -> str:
    n = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:n])
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    params = []
    for i, p in enumerate(names[:code.co_argcount]):
        d = i - (code.co_argcount - len(defaults))
        params.append(f"{p}={constant(defaults[d]).text}" if d >= 0 else p)
        if code.co_posonlyargcount and i + 1 == code.co_posonlyargcount:
            params.append("/")
    extra = n
    if code.co_flags & 0x04:  # *args: named so that the front end refuses it as it refuses the source
        params.append("*" + code.co_varnames[extra])
        extra += 1
    elif code.co_kwonlyargcount:
        params.append("*")
    for p in names[code.co_argcount:]:
        params.append(f"{p}={constant(kwdefaults[p]).text}" if p in kwdefaults else p)
    if code.co_flags & 0x08:
        params.append("**" + code.co_varnames[extra])
    return f"def {code.co_name}({', '.join(params)}):"


def code_digest(code: types.CodeType) -> str:
    """The code object's contents (instructions, constants, names, variables), nested code included: the
    rebuilt text carries it, so the on-disk cache keys a function without a file by its bytecode."""
    h = hashlib.sha256()

    def add(c: types.CodeType) -> None:
        for part in (c.co_code, c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars,
                     (c.co_argcount, c.co_kwonlyargcount, c.co_flags, c.co_firstlineno), c.co_linetable):
            h.update(repr(part).encode() + b"\0")
        for k in c.co_consts:
            add(k) if isinstance(k, types.CodeType) else h.update(repr((type(k).__name__, k)).encode() + b"\0")
    add(code)
    return h.hexdigest()[:32]


def source_text(fn) -> tuple[str, int]:
    """(source text of fn, its first line) rebuilt from fn's bytecode; raises BytecodeError."""
    code = fn.__code__
    if sys.version_info[:2] not in SUPPORTED_VERSIONS:
        raise BytecodeError(f"{code.co_filename}:{code.co_firstlineno}: {code.co_name}: "
                            + unsupported_version_message())
    for flag, what in _UNSUPPORTED_FLAGS.items():
        if code.co_flags & flag:
            raise _refuse(code, code.co_firstlineno, what)
    if code.co_cellvars:
        raise _refuse(code, code.co_firstlineno, "a nested function definition ('def') or lambda")
    try:
        header = _header(fn, code)
    except ValueError as e:  # a default value with no literal spelling
        raise _refuse(code, code.co_firstlineno, f"a parameter default ({e})") from None
    doc = fn.__doc__
    docstring = repr(doc) if isinstance(doc, str) and code.co_consts[:1] == (doc,) else None
    first_error = None
    # Two readings: 3.12's copies of a short return (copies share the line of the one statement they come
    # from: 'return a if c else b', a for-else's tail, the return after an if/elif chain) merged back into
    # one, then the bytecode as laid out (where the merged text does not rebuild it).
    raw = read(code)
    for merged in (True, False):
        ins = instructions(code, raw)
        if merged and not merge_copied_returns(ins):
            continue
        try:
            body = Decoder(ins).block(0, len(ins), Ctx(frozenset({END, len(ins)})))
        except Unsupported as e:
            first_error = first_error or _refuse(code, e.line or code.co_firstlineno, e.construct)
            continue
        except (IndexError, KeyError) as e:
            # A shape the decoder's rules did not foresee (each one found is refused by name where it is
            # recognised, as in Decoder.statement): refused, never compiled differently.
            first_error = first_error or _refuse(code, code.co_firstlineno,
                                                 f"code of a shape the decompiler does not read "
                                                 f"({type(e).__name__} while decoding)")
            continue
        text = render(header, docstring, body, code.co_firstlineno)
        bad = first_difference(fn, text)
        if bad is None:
            return text + f"# bytecode {code_digest(code)}\n", code.co_firstlineno
        first_error = first_error or _refuse(code, bad, "the code at this line (its bytecode has a shape the "
                                                        "decompiler does not rebuild exactly)")
    raise first_error


__all__ = ["BytecodeError", "SUPPORTED_VERSIONS", "code_digest", "source_text"]
