"""Expressions rebuilt from the bytecode's stack, written back as Python text with the fewest parentheses
that keep Python's precedence (so the text compiles to the same instructions again)."""
from __future__ import annotations

import math

# Python's binding strengths, loosest first (the language reference's precedence table).
IFEXP, OR, AND, NOT, COMPARE, BITOR, BITXOR, BITAND, SHIFT, ARITH, TERM, UNARY, POWER, ATOM = range(14)
_BINARY = {"|": BITOR, "^": BITXOR, "&": BITAND, "<<": SHIFT, ">>": SHIFT, "+": ARITH, "-": ARITH, "*": TERM,
           "/": TERM, "//": TERM, "%": TERM, "@": TERM, "**": POWER}


class Expr:
    """One value on the stack: its text and how tightly the text binds."""

    __slots__ = ("text", "prec", "aug", "inner", "value")

    def __init__(self, text: str, prec: int = ATOM, aug: tuple | None = None, inner: "Expr | None" = None,
                 value=None):
        self.text, self.prec = text, prec
        self.aug = aug  # (target Expr, operator, value Expr) of an in-place operator ("x += 1")
        self.inner = inner  # the operand of a 'not', so that negating it again gives it back
        self.value = value  # a constant's Python value (CALL_KW reads its keyword names from one)

    def at(self, prec: int) -> str:
        """The text where an operand of binding strength prec is needed."""
        if self.aug is not None:
            raise ValueError("an in-place operator's result is used as a value")
        return self.text if self.prec >= prec else f"({self.text})"


class Slice(Expr):
    """A slice, written bare inside brackets (a[1:n:2]) and as slice() nowhere else."""

    __slots__ = ()


def name(n: str) -> Expr:
    return Expr(n)


def constant(v) -> Expr:
    e = _constant(v)
    e.value = v
    return e


def _constant(v) -> Expr:
    if isinstance(v, bool) or v is None or v is Ellipsis:
        return Expr(repr(v))
    if isinstance(v, float):
        if math.isnan(v):
            raise ValueError("a NaN constant has no literal spelling")
        if math.isinf(v):
            return Expr("1e999" if v > 0 else "-1e999", ATOM if v > 0 else UNARY)
        return Expr(repr(v), ATOM if math.copysign(1.0, v) > 0 else UNARY)
    if isinstance(v, int):
        return Expr(repr(v), ATOM if v >= 0 else UNARY)
    if isinstance(v, complex):
        if v.real == 0 and math.copysign(1.0, v.real) > 0:
            return Expr(repr(v), ATOM if math.copysign(1.0, v.imag) > 0 else UNARY)
        return Expr(repr(v))  # '(1+2j)'
    if isinstance(v, (str, bytes)):
        return Expr(repr(v))
    if isinstance(v, tuple):
        parts = [constant(e).at(IFEXP + 1) for e in v]
        return Expr("(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")")
    raise ValueError(f"a constant of type {type(v).__name__} ({v!r}) has no literal spelling")


def binary(op: str, a: Expr, b: Expr) -> Expr:
    p = _BINARY[op]
    if op == "**":  # right-associative
        return Expr(f"{a.at(p + 1)} ** {b.at(UNARY)}", p)
    return Expr(f"{a.at(p)} {op} {b.at(p + 1)}", p)


def unary(op: str, a: Expr) -> Expr:
    if op == "not":
        return Expr(f"not {a.at(NOT)}", NOT, inner=a)
    return Expr(f"{op}{a.at(UNARY)}", UNARY)


_OPPOSITE = {"is": "is not", "is not": "is", "in": "not in", "not in": "in"}


def compare(operands: list[Expr], ops: list[str], negated: bool = False) -> Expr:
    text = operands[0].at(COMPARE + 1)
    for op, e in zip(ops, operands[1:]):
        text += f" {op} {e.at(COMPARE + 1)}"
    e = Expr(text, COMPARE)
    if len(ops) == 1 and ops[0] in _OPPOSITE and not negated:
        # 'x is not None' negates 'x is None' exactly (no NaN question), and reads as written
        e.inner = compare(operands, [_OPPOSITE[ops[0]]], negated=True)
        e.inner.inner = e
    return e


def boolean(op: str, a: Expr, b: Expr) -> Expr:
    p = AND if op == "and" else OR
    return Expr(f"{a.at(p)} {op} {b.at(p)}", p)  # 'and' and 'or' are associative


def negate(e: Expr) -> Expr:
    return e.inner if e.inner is not None else unary("not", e)


def ifexp(test: Expr, a: Expr, b: Expr) -> Expr:
    return Expr(f"{a.at(OR)} if {test.at(OR)} else {b.at(IFEXP)}", IFEXP)


def attribute(obj: Expr, attr: str) -> Expr:
    text = obj.at(ATOM)
    if text[-1:].isdigit() and obj.prec == ATOM and text.replace("_", "").isdigit():
        text = f"({text})"  # 1 .real
    return Expr(f"{text}.{attr}")


def subscript_index(index: Expr) -> str:
    """The text inside brackets: a tuple's items without parentheses (slices may not be parenthesised)."""
    if isinstance(index, TupleExpr):
        parts = [item_text(e) for e in index.items]
        return ", ".join(parts) + ("," if len(parts) == 1 else "")
    return item_text(index)


def item_text(e: Expr) -> str:
    return e.text if isinstance(e, Slice) else e.at(IFEXP)


def subscript(obj: Expr, index: Expr) -> Expr:
    return Expr(f"{obj.at(ATOM)}[{subscript_index(index)}]")


def make_slice(parts: list[Expr]) -> Slice:
    def part(e: Expr) -> str:
        return "" if e.text == "None" else e.at(IFEXP)
    text = f"{part(parts[0])}:{part(parts[1])}"
    if len(parts) == 3:
        text += f":{part(parts[2])}"
    return Slice(text)


class TupleExpr(Expr):
    __slots__ = ("items",)

    def __init__(self, items: list[Expr]):
        self.items = list(items)
        parts = [item_text(e) if not isinstance(e, Slice) else f"slice({e.text})" for e in self.items]
        super().__init__("(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")")


def call(fn: Expr, args: list[Expr], kwnames: tuple = ()) -> Expr:
    positional = args[:len(args) - len(kwnames)]
    keywords = args[len(args) - len(kwnames):]
    parts = [a.at(IFEXP) for a in positional] + [f"{k}={v.at(IFEXP)}" for k, v in zip(kwnames, keywords)]
    return Expr(f"{fn.at(ATOM)}({', '.join(parts)})")
