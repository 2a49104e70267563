"""Structured decoding: a function's instructions (instructions.py) back into statements of the subset.

Straight-line code is executed symbolically (a stack of expressions); control flow is recognised by the
shapes CPython's compiler gives each statement: a run of conditional jumps is one condition (its 'and'/'or'
tree is rebuilt from where each jump goes), FOR_ITER starts a for loop, a condition whose body ends with a
copy of itself jumping back is a while loop, a jump to where the enclosing block would go anyway ends an
if-branch (an else follows), one to a loop's head or exit is continue or break. A shape not recognised is
refused with `Unsupported`; what is recognised is checked again by roundtrip.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import expressions as E
from .instructions import SKIP, Ins

_COND = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
_STORES = ("STORE_NAME", "STORE_ATTR", "STORE_SUBSCR", "STORE_SLICE", "UNPACK_SEQUENCE")
_UNARY = {"UNARY_POSITIVE": "+", "UNARY_NEGATIVE": "-", "UNARY_INVERT": "~", "UNARY_NOT": "not"}
_REFUSED = {
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
class Node:
    """A statement: its header text, its line, and for compound statements the body and the else part."""
    line: int
    text: str
    body: list | None = None
    orelse: list = field(default_factory=list)
    keyword: str = ""  # "if" (an else part that is one if-statement renders as elif)


@dataclass
class Ctx:
    follow: frozenset           # where control goes when this block ends (a jump there is no statement)
    cont: frozenset = frozenset()  # the enclosing loop's heads (a jump there is 'continue')
    brk: frozenset = frozenset()   # where its 'break' goes


@dataclass
class Atom:
    """One test of a condition: control goes to `target` when the value's truth is `sense`, else to `fall`."""
    expr: E.Expr
    sense: bool
    target: int
    fall: int
    start: int


class Decoder:
    def __init__(self, ins: list[Ins]):
        self.ins = ins
        self.kwnames: tuple = ()
        self.chain_atom = None
        self.entered: set[int] = set()  # heads of the 'while True' loops being decoded
        self.copied: dict[int, tuple[int, int]] = {}  # a break's iterator pop -> (end of the copy, original)
        # a function returning values elsewhere says 'return None' (numba's Optional), else 'return'
        self.returns_values = any(i.op == "RETURN_VALUE" and k and not (ins[k - 1].op == "LOAD_CONST"
                                                                         and ins[k - 1].arg is None)
                                  for k, i in enumerate(ins))

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
                    self.fail(_REFUSED["MAKE_FUNCTION"], k)
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
                elif op == "COPY" and arg == 1 and self.op(k + 1) in _COND and self.op(k + 2) == "POP_TOP" \
                        and stack:
                    k = self.short_circuit(k + 3, ins[k + 1], stack)
                    continue
                elif op in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP") and stack:
                    k = self.short_circuit(k + 1, i, stack)
                    continue
                elif op == "COPY" and len(stack) >= arg:
                    stack.append(stack[-arg])
                elif op in _COND and stack and nested:
                    done = self.conditional_expression(k, stack)
                    if done is None:
                        return k
                    k = done
                    continue
                elif op in _REFUSED:
                    self.fail(_REFUSED[op], k)
                else:
                    return k
            except (IndexError, AttributeError, TypeError):
                self.fail(f"the instruction {op} here", k)
            except ValueError as e:
                self.fail(str(e), k)
            k += 1
        return k

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
        if not (self.op(j) in _COND and self.op(j + 1) == "JUMP" and cleanup == j + 2
                and self.op(cleanup) == "POP_TOP"
                and (self.op(cleanup + 1) == "JUMP" or self.returns_none(cleanup + 1))):
            self.fail("a chained comparison of this shape", j)
        sense = ins[j].op == "POP_JUMP_IF_TRUE"
        t, u = ins[j].target, ins[j + 1].target
        f = ins[cleanup + 1].target if self.op(cleanup + 1) == "JUMP" else cleanup + 1
        if not self.same_place(f, u if sense else t):
            self.fail("a chained comparison of this shape", j)
        stack.append(expr)
        self.chain_atom = (sense, t, u)
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
            if len(stack) != 1 or self.op(j) not in _COND:
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

    # ---- statements ----
    def block(self, lo: int, hi: int, ctx: Ctx) -> list[Node]:
        out: list[Node] = []
        k = lo
        while k < hi:
            if self.op(k) == SKIP:
                k += 1
                continue
            k = self.statement(k, hi, ctx, out)
        return out

    def last_real(self, hi: int) -> int:
        k = hi - 1
        while k >= 0 and self.op(k) == SKIP:
            k -= 1
        return k

    def follow_of(self, join: int, hi: int, ctx: Ctx) -> frozenset:
        return frozenset({join}) | (ctx.follow if join >= hi else frozenset())

    def statement(self, k: int, hi: int, ctx: Ctx, out: list) -> int:
        ins = self.ins
        loop = self.while_true(k, hi, ctx)
        if loop is not None:
            out.append(loop[0])
            return loop[1]
        stack: list = []
        self.chain_atom = None
        j = self.run(k, stack)
        if j >= len(ins):
            self.fail("code that does not end in a return", len(ins) - 1)
        op, line = ins[j].op, self.line_of(k, j)
        if op in _STORES or op == "SWAP":
            return self.assignment(k, j, stack, line, out)
        if op == "POP_TOP":
            if len(stack) == 1:
                out.append(Node(line, stack[0].at(E.IFEXP)))
                return j + 1
            if not stack:  # a for loop's iterator, popped before a break or return
                if j in self.copied and self.copied[j][1] in ctx.brk:
                    out.append(Node(ins[j].line, "break"))
                    return self.copied[j][0]
                if j + 1 == hi and hi in ctx.brk:
                    out.append(Node(ins[j].line, "break"))
                return j + 1
        if op == "RETURN_VALUE" and len(stack) == 1:
            value = stack[0]
            if value.text == "None" and implicit_end(self, k, j, hi, ctx, out):
                return self.last_real(hi) + 1
            if value.text == "None":
                out.append(Node(ins[j].line, "return None" if self.returns_values else "return"))
            else:
                out.append(Node(line, f"return {value.at(E.IFEXP)}"))
            return j + 1
        if op == "RAISE_VARARGS" and len(stack) == ins[j].arg == 1:
            out.append(Node(line, f"raise {stack[0].at(E.IFEXP)}"))
            return j + 1
        if op == "JUMP" and not stack:
            return self.jump(j, hi, ctx, out)
        if op == "GET_ITER" and len(stack) == 1:
            return self.for_loop(j, stack[0], hi, ctx, line, out)
        if op in _COND and len(stack) == 1:
            return self.if_statement(k, j, stack[0], hi, ctx, line, out)
        if op in _REFUSED:
            self.fail(_REFUSED[op], j)
        self.fail(f"the instruction {op}", j)

    def jump(self, j: int, hi: int, ctx: Ctx, out: list) -> int:
        target = self.ins[j].target
        if target in ctx.follow and j == self.last_real(hi):
            return j + 1
        # 3.12 threads a jump to a jump: a break out of an inner loop may go straight to the outer head
        if target in ctx.brk or (target not in ctx.cont and any(self.same_place(target, b) for b in ctx.brk)):
            out.append(Node(self.ins[j].line, "break"))
        elif target in ctx.cont or any(self.same_place(target, c) for c in ctx.cont):
            out.append(Node(self.ins[j].line, "continue"))
        else:
            self.fail("a jump that is not part of if/while/for, break or continue", j)
        return j + 1

    def target(self, j: int) -> tuple[str, int]:
        """The assignment target stored from j on (its operands computed first): text, next index."""
        stack: list = []
        j = self.run(j, stack)
        return self.target_at(j, stack)

    def target_at(self, j: int, stack: list) -> tuple[str, int]:
        i = self.ins[j]
        if i.op == "STORE_NAME" and not stack:
            return i.arg, j + 1
        if i.op == "STORE_ATTR" and len(stack) == 1:
            return E.attribute(stack.pop(), i.arg).text, j + 1
        if i.op == "STORE_SUBSCR" and len(stack) == 2:
            idx, obj = stack.pop(), stack.pop()
            return E.subscript(obj, idx).text, j + 1
        if i.op == "STORE_SLICE" and len(stack) == 3:
            stop, start, obj = stack.pop(), stack.pop(), stack.pop()
            return E.subscript(obj, E.make_slice([start, stop])).text, j + 1
        if i.op == "UNPACK_SEQUENCE" and not stack:
            parts = []
            j += 1
            for _ in range(i.arg):
                t, j = self.target(j)
                parts.append(t)
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")", j
        self.fail("an assignment target of this shape", j)

    def assignment(self, k: int, j: int, stack: list, line: int, out: list) -> int:
        ins = self.ins
        if ins[j].op == "UNPACK_SEQUENCE" and len(stack) == 1:
            t, j = self.target_at(j, [])
            out.append(Node(line, f"{t[1:-1]} = {stack[0].at(E.IFEXP)}"))
            return j
        swapped = ins[j].op == "SWAP"
        if (swapped or ins[j].op == "STORE_NAME") and len(stack) >= 2 and all(e is not stack[0] for e in stack[1:]):
            # `a, b = x, y`: CPython stores the values after a SWAP instead of building a tuple, or
            # stores them in reverse order where the SWAP could be dropped
            values = stack
            names = []
            j += swapped
            for _ in values:
                t, j = self.target(j)
                names.append(t)
            if not swapped:
                names.reverse()
            out.append(Node(line, ", ".join(names) + " = " + ", ".join(v.at(E.IFEXP + 1) for v in values)))
            return j
        value = stack[0]
        targets = []
        rest = stack[1:]
        while rest and rest[-1] is value:  # a = b = v: each target but the last stores a copy
            rest.pop()
            t, j = self.target(j)
            targets.append(t)
        if rest or ins[j].op in _STORES and not targets:
            t, j = self.target_at(j, rest)
        else:
            t, j = self.target(j)
        targets.append(t)
        if value.aug is not None:
            target, operator, rhs = value.aug
            if len(targets) != 1 or target.text != targets[0]:
                self.fail("an augmented assignment of this shape", j - 1)
            out.append(Node(line, f"{targets[0]} {operator} {rhs.at(E.IFEXP)}"))
        else:
            out.append(Node(line, " = ".join(targets) + f" = {value.at(E.IFEXP)}"))
        return j

    def for_loop(self, j: int, iterable: E.Expr, hi: int, ctx: Ctx, line: int, out: list) -> int:
        ins = self.ins
        head = j + 1
        if self.op(head) != "FOR_ITER":
            self.fail("an iterator that is not a for loop's", j)
        exit_ = ins[head].target
        var, body_start = self.target(head + 1)
        if var.startswith("("):
            var = var[1:-1]
        after = max([ins[p].target for p in range(body_start, exit_)
                     if ins[p].op == "JUMP" and exit_ < ins[p].target <= hi]
                    + self.copied_breaks(body_start, exit_, hi), default=exit_)
        body = self.block(body_start, exit_, Ctx(frozenset({head}), frozenset({head}), frozenset({after})))
        node = Node(line, f"for {var} in {iterable.at(E.IFEXP)}:", body or [Node(line, "pass")])
        if after > exit_:
            node.orelse = self.block(exit_, after, Ctx(self.follow_of(after, hi, ctx), ctx.cont, ctx.brk))
        out.append(node)
        return after

    def same_code(self, a: int, b: int, n: int) -> bool:
        return b + n <= len(self.ins) and all(
            (x.op, x.arg, x.line, x.target) == (y.op, y.arg, y.line, y.target)
            for x, y in zip(self.ins[a:a + n], self.ins[b:b + n]))

    def copied_breaks(self, lo: int, exit_: int, hi: int) -> list[int]:
        """3.12 copies the code after a for-else (up to its return) into each break: where each copy's
        original starts (a break's target), recorded so that the copy reads as 'break'."""
        found = []
        for p in range(lo, exit_):
            if self.op(p) != "POP_TOP" or p in self.copied:
                continue
            q = next((r for r in range(p + 1, exit_) if self.op(r) in ("RETURN_VALUE", "JUMP", "POP_TOP")), None)
            if q is None or self.op(q) != "RETURN_VALUE":
                continue
            n = q - p
            start = next((s for s in range(exit_ + 1, hi - n + 1) if self.same_code(p + 1, s, n)), None)
            if start is not None:
                self.copied[p] = (q + 1, start)
                found.append(start)
        return found

    def while_true(self, k: int, hi: int, ctx: Ctx):
        """`while True:` at k: the last unconditional jump back to k closes it (unless k starts a while loop
        with a condition, whose 'continue' also jumps to k)."""
        backs = [p for p in range(k + 1, hi) if self.ins[p].op == "JUMP" and self.ins[p].target == k]
        if not backs or k in self.entered:
            return None
        stack: list = []
        saved = self.chain_atom
        try:
            j = self.run(k, stack)
            if len(stack) == 1 and self.op(j) in _COND:
                cond, true, false = self.condition(k, stack[0], j)
                if self.bottom_copy(k, true, false) is not None:
                    return None
        except Unsupported:
            pass
        self.chain_atom = saved
        last = backs[-1]
        after = max([self.ins[p].target for p in range(k, last)
                     if self.ins[p].op in ("JUMP",) + _COND and self.ins[p].target > last + 1], default=last + 1)
        if after != last + 1:
            self.fail("a 'while True' loop whose breaks jump past its end", last)
        self.entered.add(k)
        body = self.block(k, last + 1, Ctx(frozenset({k}), frozenset({k}), frozenset({last + 1})))
        return Node(self.ins[k].line, "while True:", body or [Node(self.ins[k].line, "pass")]), last + 1

    def bottom_copy(self, k: int, true: int, false: int):
        """Where the copy of the test at k..true sits at the end of the body true..false (CPython repeats a
        while loop's test at its bottom), or None when the body does not end with one."""
        if not k < true < false:
            return None
        n = true - k
        last = self.ins[false - 1]
        if last.op == "JUMP" and last.target == true:
            start = false - 1 - n
        elif last.op == "POP_JUMP_IF_TRUE" and last.target == true:
            start = false - n
        else:
            return None
        if start < true:
            return None
        for a, b in zip(self.ins[k:true], self.ins[start:start + n]):
            same_kind = a.op == b.op or (a.op in _COND and b.op in _COND)
            if not same_kind or (a.op not in _COND and a.op != "JUMP" and a.arg != b.arg):
                return None
        return start

    def if_statement(self, k: int, j: int, first: E.Expr, hi: int, ctx: Ctx, line: int, out: list) -> int:
        ins = self.ins
        cond, true, false = self.condition(k, first, j)
        bottom = self.bottom_copy(k, true, false) if false <= hi else None
        if bottom is not None:  # while cond: body
            after = max([ins[p].target for p in range(true, bottom)
                         if ins[p].op in ("JUMP",) + _COND and false < ins[p].target <= hi], default=false)
            heads = frozenset({k, bottom})
            body = self.block(true, bottom, Ctx(heads, heads, frozenset({after})))
            node = Node(line, f"while {cond.at(E.IFEXP)}:", body or [Node(line, "pass")])
            if after > false:
                node.orelse = self.block(false, after, Ctx(self.follow_of(after, hi, ctx), ctx.cont, ctx.brk))
            out.append(node)
            return after
        if not true < false <= hi:
            if false in ctx.follow and true <= hi:
                body = self.block(true, hi, ctx)
                out.append(Node(line, f"if {cond.at(E.IFEXP)}:", body or [Node(line, "pass")], keyword="if"))
                return hi
            for labels, word in ((ctx.brk, "break"), (ctx.cont, "continue")):
                if false in labels:
                    out.append(Node(line, f"if {E.negate(cond).at(E.IFEXP)}:", [Node(line, word)], keyword="if"))
                    return true
            self.fail("a condition whose jump leaves the enclosing block", j)
        last = self.last_real(false)
        li = ins[last] if last >= true else None
        node = Node(line, f"if {cond.at(E.IFEXP)}:", keyword="if")
        if li is not None and li.op == "JUMP" and false < li.target <= hi and li.target not in ctx.brk:
            join = li.target
            inner = Ctx(self.follow_of(join, hi, ctx), ctx.cont, ctx.brk)
            node.body = self.block(true, last, inner)
            node.orelse = self.block(false, join, inner)
            nxt = join
        elif li is not None and li.op == "JUMP" and li.target in ctx.follow and last > true \
                and not false < li.target <= hi:
            node.body = self.block(true, last, ctx)
            node.orelse = self.block(false, hi, ctx)
            nxt = hi
        elif li is not None and li.op == "RETURN_VALUE" and END in ctx.follow and last > true \
                and ins[last - 1].op == "LOAD_CONST" and ins[last - 1].arg is None \
                and ins[last - 1].line == ins[last - 2].line and last - 2 >= true:
            node.body = self.block(true, false, Ctx(ctx.follow | {false}, ctx.cont, ctx.brk))
            node.orelse = self.block(false, hi, ctx)
            nxt = hi
        else:
            node.body = self.block(true, false, Ctx(self.follow_of(false, hi, ctx), ctx.cont, ctx.brk))
            nxt = false
        node.body = node.body or [Node(line, "pass")]
        if len(node.body) == 1 and node.body[0].text.startswith("raise AssertionError") and not node.orelse \
                and ins[true].op == "LOAD_ASSERTION_ERROR":
            out.append(Node(line, self.assertion(cond, node.body[0].text)))
            return nxt
        out.append(node)
        return nxt

    @staticmethod
    def assertion(cond: E.Expr, raised: str) -> str:
        # the test jumps past the raise when it holds: cond is the raise's condition, the assert's negation
        test = E.negate(cond).at(E.IFEXP)
        rest = raised[len("raise AssertionError"):]
        if rest.startswith("(") and rest.endswith(")"):
            return f"assert {test}, {rest[1:-1]}"
        return f"assert {test}"



def implicit_end(d: Decoder, k: int, j: int, hi: int, ctx: Ctx, out: list) -> bool:
    """The 'return None' at k..j ends the function without a written 'return': CPython's own end, or its
    copies, on the line of the statement before it (a written 'return' has a line of its own)."""
    ins = d.ins
    return END in ctx.follow and d.only_returns_none(j + 1, d.last_real(hi) + 1) and k > 0 \
        and (not out or ins[k - 1].line == ins[j].line)
