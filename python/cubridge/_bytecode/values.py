"""Straight-line values and conditions, read from a function's instructions (instructions.py): a stack of
expressions executed symbolically; a run of conditional jumps is one condition whose 'and'/'or' tree is
rebuilt from where each jump goes; `a if c else b`, value 'and'/'or' and chained comparisons are recognised
by the shapes CPython gives them. The statements around them are decoder.py's.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import expressions as E
from .instructions import SKIP, Ins

COND = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
STORES = ("STORE_NAME", "STORE_ATTR", "STORE_SUBSCR", "STORE_SLICE", "UNPACK_SEQUENCE")
_UNARY = {"UNARY_POSITIVE": "+", "UNARY_NEGATIVE": "-", "UNARY_INVERT": "~", "UNARY_NOT": "not"}
REFUSED = {
    "MAKE_FUNCTION": "a nested function definition ('def'), lambda or comprehension",
    "LOAD_CLOSURE": "a nested function definition ('def'), lambda or comprehension",
    "BUILD_LIST": "a list display", "BUILD_MAP": "a dict display", "BUILD_SET": "a set display",
    "LIST_APPEND": "a list comprehension", "GET_AWAITABLE": "'await'", "YIELD_VALUE": "'yield'",
    "CALL_FUNCTION_EX": "a call with *args or **kwargs", "IMPORT_NAME": "the 'import' statement",
    "DELETE_FAST": "the 'del' statement", "DELETE_SUBSCR": "the 'del' statement",
    "PUSH_EXC_INFO": "the 'try' statement", "BEFORE_WITH": "the 'with' statement",
    "FORMAT_VALUE": "an f-string with placeholders", "FORMAT_SIMPLE": "an f-string with placeholders",
    "BUILD_STRING": "an f-string with placeholders", "LOAD_BUILD_CLASS": "the 'class' statement",
}
END = -1  # the function's end: where falling off a top-level block goes (an implicit 'return None')


class Unsupported(Exception):
    def __init__(self, construct: str, line: int):
        super().__init__(construct)
        self.construct, self.line = construct, line


@dataclass
class Atom:
    """One test of a condition: control goes to `target` when the value's truth is `sense`, else to `fall`."""
    expr: E.Expr
    sense: bool
    target: int
    fall: int
    start: int



class ValueReader:
    """Reads values and conditions; Decoder (decoder.py) adds the statements."""

    def __init__(self, ins: list[Ins]):
        self.ins = ins
        self.kwnames: tuple = ()
        self.chain_atom = None

    # ---- helpers ----
    def fail(self, what: str, k: int):
        k = min(max(k, 0), len(self.ins) - 1)
        raise Unsupported(what, self.ins[k].line if self.ins else 0)

    def op(self, k: int) -> str:
        return self.ins[k].op if 0 <= k < len(self.ins) else ""

    def line_of(self, lo: int, hi: int) -> int:
        lines = [i.line for i in self.ins[lo:hi + 1] if i.line]
        return min(lines) if lines else 0

    # ---- straight-line expressions ----
    def run(self, k: int, stack: list, stop=None, nested: bool = True) -> int:
        """Executes value-computing instructions from k on stack; returns the index of the first one it does
        not consume (a store, a jump, a statement, or where stop(k, stack) says). nested=False stops at
        every conditional jump (the next test of a condition is not a conditional expression)."""
        ins = self.ins
        while k < len(ins):
            if stop is not None and stop(k, stack):
                return k
            i = ins[k]
            op, arg = i.op, i.arg
            try:
                if op == "LOAD_NAME":
                    stack.append(E.name(arg))
                elif op == "LOAD_CONST" and hasattr(arg, "co_code"):
                    self.fail(REFUSED["MAKE_FUNCTION"], k)
                elif op == "LOAD_CONST":
                    stack.append(E.constant(arg))
                elif op == "LOAD_ASSERTION_ERROR":
                    stack.append(E.name("AssertionError"))
                elif op == "LOAD_ATTR":
                    stack.append(E.attribute(stack.pop(), arg))
                elif op == "BINARY_OP":
                    b, a = stack.pop(), stack.pop()
                    if arg.endswith("=") and arg not in ("==", "<=", ">=", "!="):
                        stack.append(E.Expr("", aug=(a, arg, b)))
                    else:
                        stack.append(E.binary(arg, a, b))
                elif op in _UNARY:
                    stack.append(E.unary(_UNARY[op], stack.pop()))
                elif op == "CALL_INTRINSIC_1" and str(arg) == "INTRINSIC_UNARY_POSITIVE":
                    stack.append(E.unary("+", stack.pop()))
                elif op == "COMPARE_OP":
                    b, a = stack.pop(), stack.pop()
                    stack.append(E.compare([a, b], [arg]))
                elif op == "IS_OP":
                    b, a = stack.pop(), stack.pop()
                    stack.append(E.compare([a, b], ["is not" if arg else "is"]))
                elif op == "CONTAINS_OP":
                    b, a = stack.pop(), stack.pop()
                    stack.append(E.compare([a, b], ["not in" if arg else "in"]))
                elif op == "BINARY_SUBSCR":
                    idx, obj = stack.pop(), stack.pop()
                    stack.append(E.subscript(obj, idx))
                elif op == "BINARY_SLICE":
                    stop_, start, obj = stack.pop(), stack.pop(), stack.pop()
                    stack.append(E.subscript(obj, E.make_slice([start, stop_])))
                elif op == "BUILD_SLICE":
                    parts = [stack.pop() for _ in range(arg)][::-1]
                    stack.append(E.make_slice(parts))
                elif op == "BUILD_TUPLE":
                    items = [stack.pop() for _ in range(arg)][::-1]
                    stack.append(E.TupleExpr(items))
                elif op == "BUILD_LIST" and arg == 0 and stack:
                    k = self.many_arguments(k, stack)
                    continue
                elif op == "KW_NAMES":
                    self.kwnames = tuple(arg)
                elif op in ("CALL", "CALL_KW"):
                    names = self.kwnames
                    if op == "CALL_KW":
                        names = tuple(stack.pop().value)
                    if len(stack) >= arg + 2 and stack[-arg - 2].text == "AssertionError":
                        arg += 1  # AssertionError(msg): called with msg in the slot of a method's self
                    args = [stack.pop() for _ in range(arg)][::-1]
                    stack.append(E.call(stack.pop(), args, names))
                    self.kwnames = ()
                elif op == "SWAP" and arg == 2 and self.op(k + 1) == "COPY" and ins[k + 1].arg == 2 \
                        and self.op(k + 2) == "COMPARE_OP" and len(stack) >= 2:
                    k = self.chain(k, stack)
                    if self.chain_atom is not None:
                        return k
                    continue
                elif op == "SWAP" and arg == 2 and len(stack) == 1 and self.op(k + 1) == "POP_TOP":
                    k += 2  # a for loop's iterator, popped from under a returned value
                    continue
                elif op == "SWAP" and len(stack) == arg and all(self.op(k + n) == "STORE_NAME"
                                                                for n in range(1, arg + 1)):
                    return k  # `a, b = x, y`: the statement's
                elif op == "SWAP" and len(stack) >= arg:
                    stack[-1], stack[-arg] = stack[-arg], stack[-1]
                elif op == "COPY" and arg == 1 and self.op(k + 1) in COND and self.op(k + 2) == "POP_TOP" \
                        and stack:
                    k = self.short_circuit(k + 3, ins[k + 1], stack)
                    continue
                elif op in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP") and stack:
                    k = self.short_circuit(k + 1, i, stack)
                    continue
                elif op == "COPY" and len(stack) >= arg:
                    stack.append(stack[-arg])
                elif op in COND and stack and nested:
                    done = self.conditional_expression(k, stack)
                    if done is None:
                        return k
                    k = done
                    continue
                elif op in REFUSED:
                    self.fail(REFUSED[op], k)
                else:
                    return k
            except (IndexError, AttributeError, TypeError):
                self.fail(f"the instruction {op} here", k)
            except ValueError as e:
                self.fail(str(e), k)
            k += 1
        return k

    def many_arguments(self, k: int, stack: list) -> int:
        """A call with more arguments than CPython passes on the stack (over 30 in 3.11-3.13): the positional
        ones are appended to a list built at k and made a tuple, the keywords (if any) a dict, and
        CALL_FUNCTION_EX calls the callee with them. Any other use of an empty list display stays refused."""
        ins = self.ins
        args: list = []
        j = k + 1
        while self.op(j) != "LIST_TO_TUPLE":
            item: list = []
            j = self.run(j, item, stop=lambda p, s: self.op(p) in ("LIST_APPEND", "LIST_EXTEND", "LIST_TO_TUPLE"))
            if self.op(j) == "LIST_EXTEND":
                self.fail(REFUSED["CALL_FUNCTION_EX"], j)
            if self.op(j) != "LIST_APPEND" or ins[j].arg != 1 or len(item) != 1:
                self.fail(REFUSED["BUILD_LIST"], k)
            args.append(item[0])
            j += 1
        j += 1
        names: tuple = ()
        if self.op(j) != "CALL_FUNCTION_EX":
            values: list = []
            j = self.run(j, values, stop=lambda p, s: self.op(p) in ("BUILD_MAP", "BUILD_CONST_KEY_MAP", "DICT_MERGE",
                                                                     "CALL_FUNCTION_EX"))
            if self.op(j) == "BUILD_CONST_KEY_MAP" and len(values) == ins[j].arg + 1 \
                    and isinstance(getattr(values[-1], "value", None), tuple):
                names, values = tuple(values[-1].value), values[:-1]
            elif self.op(j) == "BUILD_MAP" and len(values) == 2 * ins[j].arg \
                    and all(isinstance(getattr(v, "value", None), str) for v in values[::2]):
                names, values = tuple(v.value for v in values[::2]), values[1::2]
            else:
                self.fail(REFUSED["CALL_FUNCTION_EX"], j)
            args += values
            j += 1
        if self.op(j) != "CALL_FUNCTION_EX" or ins[j].arg != (1 if names else 0):
            self.fail(REFUSED["CALL_FUNCTION_EX"], j)
        stack.append(E.call(stack.pop(), args, names))
        return j + 1

    def short_circuit(self, k: int, jump: Ins, stack: list) -> int:
        """`a and b` / `a or b` as a value: the right operand runs from k to the jump's target."""
        left = stack.pop()
        right: list = []
        end = self.run(k, right, stop=lambda j, s: j == jump.target)
        if end != jump.target or len(right) != 1:
            self.fail("an 'and'/'or' expression of this shape", k)
        sense = jump.op.endswith("TRUE") or jump.op == "JUMP_IF_TRUE_OR_POP"
        stack.append(E.boolean("or" if sense else "and", left, right[0]))
        return end

    def chain(self, k: int, stack: list) -> int:
        """A chained comparison (a < b < c): each link keeps its right operand for the next one."""
        ins = self.ins
        b, a = stack.pop(), stack.pop()
        operands, ops = [a, b], [ins[k + 2].arg]
        j = k + 3
        mark = E.Expr("<chain>")
        value_form = None
        cleanup = None
        while True:
            if self.op(j) == "COPY" and ins[j].arg == 1 and self.op(j + 1) == "POP_JUMP_IF_FALSE" \
                    and self.op(j + 2) == "POP_TOP":
                form, target, j = True, ins[j + 1].target, j + 3
            elif self.op(j) == "JUMP_IF_FALSE_OR_POP":
                form, target, j = True, ins[j].target, j + 1
            elif self.op(j) == "POP_JUMP_IF_FALSE":
                form, target, j = False, ins[j].target, j + 1
            else:
                self.fail("a chained comparison of this shape", j)
            if value_form not in (None, form) or cleanup not in (None, target):
                self.fail("a chained comparison of this shape", j)
            value_form, cleanup = form, target
            sub = [mark]
            j = self.run(j, sub, stop=lambda p, s: len(s) == 2 and self.op(p) in ("SWAP", "COMPARE_OP"))
            if len(sub) != 2 or sub[0] is not mark:
                self.fail("a chained comparison of this shape", j)
            operands.append(sub[1])
            if self.op(j) == "SWAP" and ins[j].arg == 2 and self.op(j + 1) == "COPY" and self.op(j + 2) == "COMPARE_OP":
                ops.append(ins[j + 2].arg)
                j += 3
                continue
            if self.op(j) != "COMPARE_OP":
                self.fail("a chained comparison of this shape", j)
            ops.append(ins[j].arg)
            j += 1
            break
        expr = E.compare(operands, ops)
        if value_form:  # ... JUMP end; cleanup: SWAP 2; POP_TOP; end:
            if not (self.op(j) == "JUMP" and cleanup == j + 1 and self.op(cleanup) == "SWAP"
                    and self.op(cleanup + 1) == "POP_TOP" and ins[j].target == cleanup + 2):
                self.fail("a chained comparison of this shape", j)
            stack.append(expr)
            self.chain_atom = None
            return cleanup + 2
        # ... POP_JUMP_IF_x t; JUMP u; cleanup: POP_TOP; JUMP f  (f: where the chain's 'false' goes)
        # 3.12 may put a jump between the two (the test's target, when that jumps on to the body)
        hop = cleanup == j + 3 and self.op(j + 2) == "JUMP" and self.op(j) in COND and ins[j].target == j + 2
        if not (self.op(j) in COND and self.op(j + 1) == "JUMP" and (cleanup == j + 2 or hop)
                and self.op(cleanup) == "POP_TOP"
                and (self.op(cleanup + 1) == "JUMP" or self.returns_none(cleanup + 1))):
            self.fail("a chained comparison of this shape", j)
        sense = ins[j].op == "POP_JUMP_IF_TRUE"
        t, u = ins[j + 2].target if hop else ins[j].target, ins[j + 1].target
        f = ins[cleanup + 1].target if self.op(cleanup + 1) == "JUMP" else cleanup + 1
        if not self.same_place(f, u if sense else t):
            self.fail("a chained comparison of this shape", j)
        stack.append(expr)
        # the test's outcomes, with the one that carries on forward as the fall-through
        self.chain_atom = (sense, t, u) if u > j or not t > j else (not sense, u, t)
        return j

    # ---- conditions ----
    def atoms(self, k: int, first: E.Expr, j: int) -> list[Atom]:
        """The tests of a condition, the first one's value already computed (`first`, jumping at j)."""
        out = []
        start, expr = k, first
        while True:
            if self.chain_atom is not None:
                sense, target, fall = self.chain_atom
                self.chain_atom = None
            else:
                sense, target, fall = self.ins[j].op == "POP_JUMP_IF_TRUE", self.ins[j].target, j + 1
            out.append(Atom(expr, sense, target, fall, start))
            start = fall
            stack: list = []
            try:
                j = self.run(start, stack, nested=False)
            except Unsupported:
                self.chain_atom = None
                break
            if len(stack) != 1 or self.op(j) not in COND:
                self.chain_atom = None
                break
            expr = stack[0]
        return out

    def same_place(self, a: int, b: int) -> bool:
        """a and b lead to the same code (a jump to a jump is threaded by CPython in some places only)."""
        def end(k: int) -> int:
            for _ in range(8):
                if self.op(k) != "JUMP":
                    break
                k = self.ins[k].target
            return k
        a, b = end(a), end(b)
        return a == b or (self.is_end(a) and self.is_end(b))

    def is_end(self, k: int) -> bool:
        """k is the function's end, or a copy of it."""
        return k >= len(self.ins) or (self.returns_none(k) and self.ins[k].end_copy)

    def returns_none(self, k: int) -> bool:
        return self.op(k) == "LOAD_CONST" and self.ins[k].arg is None and self.op(k + 1) == "RETURN_VALUE"

    def only_returns_none(self, k: int, hi: int) -> bool:
        """k..hi holds nothing but 'return None' (CPython copies a function's end into each branch)."""
        while k < hi and (self.returns_none(k) or self.op(k) == SKIP):
            k += 1 if self.op(k) == SKIP else 2
        return k >= hi

    def region(self, atoms: list[Atom]):
        """The longest prefix of atoms that is one condition: (count, true label, false label)."""
        for a in atoms:  # the copies of the function's end are one place
            if self.is_end(a.target):
                a.target = len(self.ins)
        for m in range(len(atoms), 0, -1):
            if any(atoms[n].fall != atoms[n + 1].start for n in range(m - 1)):
                continue
            true = atoms[m - 1].fall
            inner = {a.start for a in atoms[1:m]}
            outside = {a.target for a in atoms[:m]} - inner - {true}
            if len(outside) == 1:
                return m, true, outside.pop()
        return None

    def build(self, atoms: list[Atom], true: int, false: int) -> E.Expr:
        if len(atoms) == 1:
            a = atoms[0]
            if a.target == false and a.fall == true:
                return E.negate(a.expr) if a.sense else a.expr
            if a.target == true and a.fall == false:
                return a.expr if a.sense else E.negate(a.expr)
            self.fail("a condition of this shape", a.fall - 1)
        for m in range(1, len(atoms)):
            split = atoms[m].start
            group = atoms[:m]
            exits = {a.target for a in group} - {a.start for a in group[1:]} - {split}
            if exits == {false}:
                return E.boolean("and", self.build(group, split, false), self.build(atoms[m:], true, false))
            if exits == {true}:
                return E.boolean("or", self.build(group, true, split), self.build(atoms[m:], true, false))
        self.fail("a condition of this shape", atoms[0].fall - 1)

    def condition(self, k: int, first: E.Expr, j: int):
        """(expression, true label, false label) of the condition whose first test jumps at j."""
        atoms = self.atoms(k, first, j)
        found = self.region(atoms)
        if found is None:
            self.fail("a condition of this shape", j)
        m, true, false = found
        return self.build(atoms[:m], true, false), true, false

    def conditional_expression(self, j: int, stack: list):
        """`a if c else b` inside an expression (c's value is on top of stack, tested at j): the index after
        it with the value pushed, or None when the jump is a statement's."""
        saved = self.chain_atom
        try:
            cond, true, false = self.condition(j, stack[-1], j)
        except Unsupported:
            self.chain_atom = saved
            return None
        if not true < false:
            return None
        left: list = []
        end = self.run(true, left, stop=lambda p, s: p == false - 1)
        if end != false - 1 or len(left) != 1 or self.op(end) != "JUMP" or self.ins[end].target <= false:
            return None
        join = self.ins[end].target
        right: list = []
        if self.run(false, right, stop=lambda p, s: p == join) != join or len(right) != 1:
            return None
        stack.pop()
        stack.append(E.ifexp(cond, left[0], right[0]))
        return join
