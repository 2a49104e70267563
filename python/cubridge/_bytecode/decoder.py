"""Structured decoding: a function's instructions (instructions.py) back into statements of the subset.

Values and conditions are values.py's; control flow is recognised by the shapes CPython's compiler gives
each statement: FOR_ITER starts a for loop, a condition whose body ends with a
copy of itself jumping back is a while loop, a jump to where the enclosing block would go anyway ends an
if-branch (an else follows), one to a loop's head or exit is continue or break. A shape not recognised is
refused with `Unsupported`; what is recognised is checked again by roundtrip.py.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from . import expressions as E
from .instructions import SKIP
from .values import COND, END, REFUSED, STORES, Unsupported, ValueReader


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


class Decoder(ValueReader):
    """Statements and control flow over ValueReader's values."""

    def __init__(self, ins: list):
        super().__init__(ins)
        self.entered: set[int] = set()  # heads of the 'while True' loops being decoded
        self.copied: dict[int, tuple[int, int]] = {}  # a break's iterator pop -> (end of the copy, original)
        # a function returning values elsewhere says 'return None' (numba's Optional), else 'return'
        self.returns_values = any(i.op == "RETURN_VALUE" and k and not (ins[k - 1].op == "LOAD_CONST"
                                                                         and ins[k - 1].arg is None)
                                  for k, i in enumerate(ins))
        # Indexes over the instructions (which decoding does not change), so that each statement looks up
        # what it needs instead of scanning to the end of the function: the decoder stays linear in the
        # function's length (a scan per statement made a 4,000-line function take seconds).
        self.jumps_to: dict[int, list[int]] = {}  # target -> the JUMPs to it, in order
        self.at_line: dict[tuple[str, int], list[int]] = {}  # (op, line) -> where such instructions are
        self.lines_before = [0]  # [j]: the latest line of any instruction before j
        for k, i in enumerate(ins):
            if i.op == "JUMP":
                self.jumps_to.setdefault(i.target, []).append(k)
            self.at_line.setdefault((i.op, i.line), []).append(k)
            self.lines_before.append(max(self.lines_before[-1], i.line or 0))

    def jumps_between(self, target: int, lo: int, hi: int) -> list[int]:
        """The JUMPs to target at indices lo <= p < hi, in order."""
        found = self.jumps_to.get(target, [])
        return found[bisect_left(found, lo):bisect_left(found, hi)]

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
        if op in STORES or op == "SWAP":
            if not stack:  # 3.12 copies `a, b = x, (y if c else z)`'s stores into each branch of the condition
                self.fail("an assignment whose stores CPython copied into the branches of a conditional "
                          "expression (assign the conditional expression to a name first)", j)
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
        if op in COND and len(stack) == 1:
            return self.if_statement(k, j, stack[0], hi, ctx, line, out)
        if op in REFUSED:
            self.fail(REFUSED[op], j)
        self.fail(f"the instruction {op}", j)

    def jump(self, j: int, hi: int, ctx: Ctx, out: list) -> int:
        target = self.ins[j].target
        # a jump on a line of its own is a written 'continue' or 'break', not the block's way out
        own_line = j > 0 and self.ins[j].line and self.ins[j].line > self.lines_before[j]
        if target in ctx.follow and j == self.last_real(hi) and not own_line:
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
        if rest or ins[j].op in STORES and not targets:
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
                    + self.copied_breaks(body_start, exit_, hi) + self.threaded_breaks(body_start, exit_, hi),
                    default=exit_)
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

    def threaded_breaks(self, lo: int, exit_: int, hi: int) -> list[int]:
        """3.12 sends a break past a for-else straight on to where that code jumps (an outer loop's head):
        the break's own target is the jump after the else part."""
        found = []
        for p in range(lo, exit_ - 1):
            if self.op(p) == "POP_TOP" and self.op(p + 1) == "JUMP" and not lo <= self.ins[p + 1].target < exit_:
                t = self.ins[p + 1].target
                found += self.jumps_between(t, exit_, hi)[:1]
        return found

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
            first = self.ins[p + 1]
            places = self.at_line.get((first.op, first.line), [])
            start = next((s for s in places[bisect_left(places, exit_ + 1):bisect_right(places, hi - n)]
                          if self.same_code(p + 1, s, n)), None)
            if start is not None:
                self.copied[p] = (q + 1, start)
                found.append(start)
        return found

    def while_true(self, k: int, hi: int, ctx: Ctx):
        """`while True:` at k: the last unconditional jump back to k closes it (unless k starts a while loop
        with a condition, whose 'continue' also jumps to k)."""
        backs = self.jumps_between(k, k + 1, hi)
        if not backs or k in self.entered:
            return None
        stack: list = []
        saved = self.chain_atom
        try:
            j = self.run(k, stack)
            if len(stack) == 1 and self.op(j) in COND:
                cond, true, false = self.condition(k, stack[0], j)
                if self.bottom_copy(k, true, false) is not None:
                    return None
        except Unsupported:
            pass
        self.chain_atom = saved
        last = backs[-1]
        after = max([self.ins[p].target for p in range(k, last)
                     if self.ins[p].op in ("JUMP",) + COND and self.ins[p].target > last + 1], default=last + 1)
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
            same_kind = a.op == b.op or (a.op in COND and b.op in COND)
            if not same_kind or (a.op not in COND and a.op != "JUMP" and a.arg != b.arg):
                return None
        return start

    def if_statement(self, k: int, j: int, first: E.Expr, hi: int, ctx: Ctx, line: int, out: list) -> int:
        ins = self.ins
        cond, true, false = self.condition(k, first, j)
        bottom = self.bottom_copy(k, true, false) if false <= hi else None
        if bottom is not None:  # while cond: body
            after = max([ins[p].target for p in range(true, bottom)
                         if ins[p].op in ("JUMP",) + COND and false < ins[p].target <= hi], default=false)
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
