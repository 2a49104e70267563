"""A function's bytecode as one instruction set for every CPython the decompiler reads (3.11, 3.12, 3.13).

Each version spells the same operations differently (3.11's POP_JUMP_FORWARD_IF_FALSE is 3.12's
POP_JUMP_IF_FALSE; 3.12's RETURN_CONST is a LOAD_CONST and a RETURN_VALUE; 3.13 fuses two loads into
LOAD_FAST_LOAD_FAST): they are rewritten here into one spelling, jump targets become list indices, and the
instructions that only feed the interpreter (caches, RESUME, PRECALL, NULLs under calls) are dropped, so
the decoder reads one language.
"""
from __future__ import annotations

import dis
import sys
from dataclasses import dataclass
from typing import Any

SUPPORTED_VERSIONS = ((3, 11), (3, 12), (3, 13))

# Instructions that neither compute nor move control for the subset: interpreter bookkeeping.
_DROPPED = {"CACHE", "RESUME", "NOP", "PRECALL", "PUSH_NULL", "EXTENDED_ARG", "TO_BOOL", "MAKE_CELL",
            "COPY_FREE_VARS", "NOT_TAKEN"}
_RENAMED = {
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "JUMP_FORWARD": "JUMP", "JUMP_BACKWARD": "JUMP", "JUMP_BACKWARD_NO_INTERRUPT": "JUMP", "JUMP_ABSOLUTE": "JUMP",
    "LOAD_METHOD": "LOAD_ATTR", "LOAD_FAST_CHECK": "LOAD_FAST", "LOAD_FAST_BORROW": "LOAD_FAST",
    "LOAD_GLOBAL": "LOAD_NAME", "LOAD_DEREF": "LOAD_NAME", "LOAD_FAST": "LOAD_NAME", "LOAD_CLASSDEREF": "LOAD_NAME",
    "STORE_GLOBAL": "STORE_NAME", "STORE_DEREF": "STORE_NAME", "STORE_FAST": "STORE_NAME",
}
SKIP = "SKIP"  # an instruction the decoder steps over (a folded END_FOR, an unreachable copy of the end)
JUMPS = {"JUMP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
         "FOR_ITER"}


@dataclass
class Ins:
    op: str
    arg: Any       # the resolved argument: a name, a constant, an operator's text, a count
    line: int      # source line (0 where CPython records none)
    offset: int    # bytecode offset of the original instruction (for messages)
    target: int = -1  # jumps: index of the target in the instruction list
    end_copy: bool = False  # the 'return None' CPython adds at the function's end (or a copy of it)


def unsupported_version_message() -> str:
    names = ", ".join(f"{a}.{b}" for a, b in SUPPORTED_VERSIONS)
    return (f"Python {sys.version_info[0]}.{sys.version_info[1]} bytecode is not supported by cubridge's "
            f"decompiler (supported: {names}); define the function in a file, or register its source in "
            f"linecache (see docs/python-subset.md, 'Functions without a source file')")


def read(code) -> list:
    """code's instructions as dis reads them. Read once per function: dis.get_instructions is quadratic in
    the number of jump targets on 3.11-3.13 (findlabels dedups through a list)."""
    return list(dis.get_instructions(code))


def instructions(code, raw: list) -> list[Ins]:
    """code's instructions (`raw`, from read(code)) in the common spelling, with jump targets as indices
    into the list."""
    out: list[Ins] = []
    index_at: dict[int, int] = {}  # offset of an original instruction -> index of the first one kept at/after it
    pending_targets: list[tuple[Ins, int]] = []
    line = code.co_firstlineno
    for ins in raw:
        index_at[ins.offset] = len(out)
        pos = getattr(ins, "positions", None)
        if pos is not None and pos.lineno is not None:
            line = pos.lineno
        name = ins.opname
        if name in _DROPPED:
            continue
        name = _RENAMED.get(name, name)

        def add(op, arg=None):
            out.append(Ins(op, arg, line, ins.offset))
            return out[-1]

        if name in JUMPS:
            pending_targets.append((add(name), ins.argval))
        elif name.startswith("POP_JUMP_") and name.endswith(("_IF_NONE", "_IF_NOT_NONE")):
            add("LOAD_CONST", None)  # 'x is None' as a test: the jump CPython fuses from 'is' and a jump
            add("IS_OP", 0)
            jump = "POP_JUMP_IF_TRUE" if name.endswith("_IF_NONE") else "POP_JUMP_IF_FALSE"
            pending_targets.append((add(jump), ins.argval))
        elif name == "RETURN_CONST":
            add("LOAD_CONST", ins.argval)
            add("RETURN_VALUE")
        elif name == "LOAD_FAST_LOAD_FAST":
            add("LOAD_NAME", ins.argval[0])
            add("LOAD_NAME", ins.argval[1])
        elif name == "STORE_FAST_STORE_FAST":
            add("STORE_NAME", ins.argval[0])
            add("STORE_NAME", ins.argval[1])
        elif name == "STORE_FAST_LOAD_FAST":
            add("STORE_NAME", ins.argval[0])
            add("LOAD_NAME", ins.argval[1])
        elif name == "KW_NAMES":  # 3.11's dis does not resolve the tuple
            add(name, code.co_consts[ins.arg])
        elif name == "COMPARE_OP":
            text = str(ins.argval)
            add(name, text[5:-1] if text.startswith("bool(") else text)
        elif name == "CALL_INTRINSIC_1" and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE":
            add("LIST_TO_TUPLE")  # 3.11's spelling: the end of a call's argument list (values.py)
        elif name in ("BINARY_OP", "CALL_INTRINSIC_1"):
            add(name, ins.argrepr)
        elif name == "END_FOR":
            # 3.12 and 3.13 end a loop here (3.13 then pops once more); 3.11's FOR_ITER jumps past its loop.
            add(name)
        else:
            add(name, ins.argval)
    index_at[len(code.co_code)] = len(out)
    for ins, offset in pending_targets:
        ins.target = _index(index_at, offset, len(out))
    _fold_end_for(out)
    _fold_function_ends(out)
    return out


def _index(index_at: dict, offset: int, end: int) -> int:
    while offset not in index_at and offset < 10**9:
        offset += 2
    return index_at.get(offset, end)


def _fold_end_for(out: list[Ins]) -> None:
    """3.12/3.13: FOR_ITER exits to END_FOR (and 3.13's POP_TOP after it), which pop the iterator; make it
    jump past them as 3.11's does, so a loop reads the same in every version."""
    loops: dict[int, list[Ins]] = {}  # an END_FOR's index -> the FOR_ITERs exiting to it
    for ins in out:
        if ins.op == "FOR_ITER":
            loops.setdefault(ins.target, []).append(ins)
    for k, ins in enumerate(out):
        if ins.op != "END_FOR":
            continue
        skip = 2 if k + 1 < len(out) and out[k + 1].op == "POP_TOP" and sys.version_info >= (3, 13) else 1
        for other in loops.get(k, ()):
            other.target = k + skip
        ins.op = SKIP
        if skip == 2:
            out[k + 1].op = SKIP


def _is_return_none(out: list[Ins], k: int) -> bool:
    return k + 1 < len(out) and out[k].op == "LOAD_CONST" and out[k].arg is None and out[k + 1].op == "RETURN_VALUE"


def _fold_function_ends(out: list[Ins]) -> None:
    """CPython copies the function's end ('return None') to wherever a branch or loop exit reaches it and
    lays the copies out where they fit: a jump to one goes to the end (index len(out)), and a copy no
    instruction falls into is dropped, so the blocks around it nest as the source did."""
    end = len(out)
    copies, seen = set(), 0
    for k, ins in enumerate(out):
        # a copy of the end carries the line of a statement laid out before it; a written 'return' (kept:
        # the front end types a function that returns None explicitly as numba does) has a line of its own
        if _is_return_none(out, k) and 0 < ins.line <= seen:
            copies.add(k)
        seen = max(seen, ins.line)
    for k in copies:
        out[k].end_copy = True
    for ins in out:
        if ins.op in JUMPS and ins.target in copies:
            ins.target = end
    for k in sorted(copies):
        if k > 0 and out[k - 1].op in ("JUMP", "RETURN_VALUE", "RAISE_VARARGS"):
            out[k].op = out[k + 1].op = SKIP


def merge_copied_returns(out: list[Ins]) -> bool:
    """3.12 copies a short exit (`return x`, even a bare RETURN_VALUE under a computed value) into each
    branch that reaches it; replace each earlier copy by a jump to the last one, as 3.11 lays it out.
    Returns whether anything changed. Used as a second reading where the first does not rebuild."""
    changed = False
    returns = [k for k, i in enumerate(out) if i.op == "RETURN_VALUE"]
    by_line: dict[int, list[int]] = {}  # a line -> its RETURN_VALUEs, in order (a lookup, not a scan each)
    place = {}
    for r in returns:
        place[r] = len(by_line.setdefault(out[r].line, []))
        by_line[out[r].line].append(r)
    for r in returns:
        later = by_line[out[r].line][place[r] + 1:]
        for r2 in reversed(later):
            n = 0
            while n <= r and r - n > 0 and r2 - n > r and _same(out[r - n], out[r2 - n]) \
                    and out[r - n].op not in JUMPS and out[r - n].op != SKIP:
                n += 1
            if n == 0:
                continue
            start = r - n + 1
            out[start] = Ins("JUMP", None, out[start].line, out[start].offset, r2 - n + 1)
            for k in range(start + 1, r + 1):
                out[k].op = SKIP
            changed = True
            break
    return changed


def _same(x: Ins, y: Ins) -> bool:
    return (x.op, x.arg, x.line) == (y.op, y.arg, y.line) and not (x.op == "LOAD_CONST" and type(x.arg) is not type(y.arg))
