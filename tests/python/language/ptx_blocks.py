"""A reader of the straight-line PTX blocks the compiler inlines for fp8 and bfloat16 conversions (scoped
.reg declarations, predicated instructions, integer and floating-point moves, logic, shifts, compares and
conversions with their rounding modes), executed exactly on the host so that the CPU tests can compare the
emitted code with fp8_reference.py bit for bit. Only the sm_89 fp8 instructions themselves (cvt between
fp8x2 and f32/f16x2) are taken from the reference: everything written around them is executed as written.
It covers what those blocks use and raises on anything else."""
from __future__ import annotations

import functools
import math
import re
import struct
from fractions import Fraction

import numpy as np

from fp8_reference import decode, encode

WIDTH = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16, "b32": 32,
         "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64}


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0]


def bits32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def to_float(bits, t):
    if t == "f32":
        return f32(bits)
    if t == "f64":
        return f64(bits)
    if t == "f16":
        return float(np.array([bits], np.uint16).view(np.float16)[0])
    raise ValueError(t)


def signed(bits, w):
    return bits - (1 << w) if bits >> (w - 1) & 1 else bits


def round_to_f32(v: Fraction, mode: str) -> int:
    """The float32 bits of an exact value rounded by mode (rn, rz, rm, rp)."""
    if v == 0:
        return 0
    neg = v < 0
    a = -v if neg else v
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)
    ulp = Fraction(2) ** (e - 23)
    q, r = divmod(a, ulp)
    q = int(q)
    up = {"rn": r > ulp / 2 or (r == ulp / 2 and q & 1), "rz": False, "rp": r > 0 and not neg,
          "rm": r > 0 and neg}[mode]
    q += int(bool(up))
    x = float(q * ulp) if q * ulp < Fraction(2) ** 128 else math.inf
    return bits32(np.float32(-x if neg else x))


class Block:
    def __init__(self, ptx: str):
        self.stmts = []  # ("{",) ("}",) or (predicate, opcode, operands)
        buf = ""
        for ch in ptx:
            if ch in "{}" and not buf.strip():
                self.stmts.append((ch,))
            elif ch == ";":
                if buf.strip():
                    self.stmts.append(self._parse(buf.strip()))
                buf = ""
            else:
                buf += ch
        if buf.strip():
            raise ValueError(f"unterminated statement {buf!r}")

    @staticmethod
    def _parse(s):
        pred = None
        if s.startswith("@"):
            pred, s = s.split(None, 1)
        op, _, rest = s.partition(" ")
        ops = [o.strip() for o in re.split(r",(?![^{]*})", rest)] if rest.strip() else []
        return (pred, op, ops)

    def run(self, operands: dict) -> dict:
        """operands: {"$1": (type, bits), "$0": (type, 0)}; returns the final bits of every $n."""
        self.scopes = [{k: list(v) for k, v in operands.items()}]
        for st in self.stmts:
            if st == ("{",):
                self.scopes.append({})
            elif st == ("}",):
                self.scopes.pop()
            else:
                self._exec(*st)
        return {k: v[1] for k, v in self.scopes[0].items()}

    def _reg(self, name):
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        raise KeyError(name)

    def _get(self, o, t):
        o = o.strip()
        if o.startswith("{"):
            parts = [self._get(p, "b16" if WIDTH[t] == 32 else "b32") for p in o[1:-1].split(",")]
            w = WIDTH[t] // len(parts)
            return sum(p << (w * i) for i, p in enumerate(parts))
        if o.startswith("0f"):
            return int(o[2:], 16)
        if o.startswith("0d"):
            return int(o[2:], 16)
        if re.fullmatch(r"-?(0x[0-9A-Fa-f]+|\d+)", o):
            return int(o, 0) & ((1 << WIDTH[t]) - 1)
        if o.startswith("!"):
            return int(not self._reg(o[1:])[1])
        return self._reg(o)[1] & ((1 << WIDTH[t]) - 1)

    def _set(self, o, t, v):
        o = o.strip()
        if o.startswith("{"):
            names = o[1:-1].split(",")
            w = WIDTH[t] // len(names)
            for i, n in enumerate(names):
                self._reg(n.strip())[1] = (v >> (w * i)) & ((1 << w) - 1)
            return
        r = self._reg(o)
        r[1] = v & ((1 << WIDTH[r[0]]) - 1) if r[0] != "pred" else bool(v)

    def _exec(self, pred, op, ops):
        if op == ".reg":
            t = ops[0].split()[0][1:]
            names = [ops[0].split()[1]] + ops[1:]
            for n in names:
                self.scopes[-1][n.strip()] = [t, 0]
            return
        if pred is not None:
            neg = pred.startswith("@!")
            if bool(self._reg(pred.lstrip("@!"))[1]) == neg:
                return
        parts = op.split(".")
        name, t = parts[0], parts[-1]
        w = WIDTH.get(t, 0)
        mask = (1 << w) - 1 if w else 0
        if name == "mov":
            return self._set(ops[0], t, self._get(ops[1], t))
        if name in ("and", "or", "xor") and t == "pred":
            a, b = bool(self._get(ops[1], "pred")), bool(self._get(ops[2], "pred"))
            return self._set(ops[0], t, {"and": a and b, "or": a or b, "xor": a != b}[name])
        if name in ("and", "or", "xor"):
            a, b = self._get(ops[1], t), self._get(ops[2], t)
            return self._set(ops[0], t, {"and": a & b, "or": a | b, "xor": a ^ b}[name])
        if name in ("shl", "shr"):
            a, n = self._get(ops[1], t), self._get(ops[2], "u32")
            if name == "shl":
                return self._set(ops[0], t, (a << n) & mask if n < w else 0)
            if t.startswith("s"):
                return self._set(ops[0], t, (signed(a, w) >> min(n, w - 1)) & mask)
            return self._set(ops[0], t, a >> n if n < w else 0)
        if name in ("add", "sub"):
            a, b = self._get(ops[1], t), self._get(ops[2], t)
            return self._set(ops[0], t, (a + b if name == "add" else a - b) & mask)
        if name == "neg":
            return self._set(ops[0], t, -self._get(ops[1], t) & mask)
        if name == "setp":
            return self._setp(parts, ops)
        if name == "selp":
            return self._set(ops[0], t, self._get(ops[1], t) if self._get(ops[3], "pred") else self._get(ops[2], t))
        if name == "cvt":
            return self._cvt(parts, ops)
        raise NotImplementedError(op)

    def _setp(self, parts, ops):
        cmp, t = parts[1], parts[-1]
        boolop = parts[2] if len(parts) == 4 else None
        if t.startswith("f"):
            a, b = to_float(self._get(ops[1], t), t), to_float(self._get(ops[2], t), t)
            unordered = math.isnan(a) or math.isnan(b)
            base, if_unordered = (cmp[:-1], True) if cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu") else (cmp, False)
            r = if_unordered if unordered else \
                {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[base]
        else:
            w = WIDTH[t]
            a, b = self._get(ops[1], t), self._get(ops[2], t)
            if t.startswith("s"):
                a, b = signed(a, w), signed(b, w)
            r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[cmp]
        if boolop:
            c = bool(self._get(ops[3], "pred"))
            r = (r and c) if boolop == "and" else (r or c)
        self._set(ops[0], "pred", r)

    def _cvt(self, parts, ops):
        mods = parts[1:-2]
        dt, st = parts[-2], parts[-1]
        rnd = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
        if dt in ("e4m3x2", "e5m2x2"):  # sm_89's saturating narrowing: the reference's byte
            fmt = dt[:4]
            if st == "f32":
                hi, lo = f32(self._get(ops[1], "f32")), f32(self._get(ops[2], "f32"))
            else:
                v = self._get(ops[1], "b32")
                lo, hi = to_float(v & 0xFFFF, "f16"), to_float(v >> 16, "f16")
            return self._set(ops[0], "b16", encode(fmt, hi, True) << 8 | encode(fmt, lo, True))
        if dt == "f16x2":  # sm_89's widening
            v = self._get(ops[1], "b16")
            halves = []
            for byte in (v & 0xFF, v >> 8):
                x = decode(st[:4], byte)
                halves.append(0x7FFF if math.isnan(x) else int(np.array([x], np.float16).view(np.uint16)[0]))
            return self._set(ops[0], "b32", halves[0] | halves[1] << 16)
        src = self._get(ops[1], st)
        if st.startswith("f") or st == "bf16":
            x = to_float(src, st)
            if dt in ("f32", "f64", "f16") and rnd in (None, "rn"):
                with np.errstate(over="ignore"):  # beyond the range: infinity, as cvt.rn gives
                    y = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[dt](x)
                if math.isnan(x):
                    y = {"f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF, "f16": 0x7FFF}[dt]
                    return self._set(ops[0], dt, y)
                return self._set(ops[0], dt, int(np.array([y]).view({"f32": np.uint32, "f64": np.uint64,
                                                                     "f16": np.uint16}[dt])[0]))
            if dt == "bf16":
                b = src
                if math.isnan(x):
                    return self._set(ops[0], "b16", 0x7FFF)
                lo, r = b >> 16, b & 0xFFFF
                neg = b >> 31
                up = {"rz": False, "rn": r > 0x8000 or (r == 0x8000 and lo & 1), "rp": r and not neg,
                      "rm": r and neg}[rnd]
                return self._set(ops[0], "b16", lo + int(bool(up)))
            if rnd in ("rni", "rzi", "rmi", "rpi"):
                w = WIDTH[dt]
                lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt.startswith("s") else (0, (1 << w) - 1)
                if math.isnan(x):
                    v = 0
                elif math.isinf(x):
                    v = hi if x > 0 else lo
                else:
                    v = {"rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil,
                         "rni": lambda z: round(Fraction(z))}[rnd](x)
                    v = max(lo, min(hi, int(v)))
                return self._set(ops[0], dt, v & ((1 << w) - 1))
            raise NotImplementedError(".".join(parts))
        # integer source
        v = signed(src, WIDTH[st]) if st.startswith("s") else src
        if dt == "f32":
            return self._set(ops[0], dt, round_to_f32(Fraction(v), rnd or "rn"))
        if dt == "f64":
            return self._set(ops[0], dt, bits64(float(v)))  # exact for the 32-bit integers the blocks convert
        return self._set(ops[0], dt, v & ((1 << WIDTH[dt]) - 1))


ASM = re.compile(r'call (\w+) asm "((?:[^"\\]|\\.)*)", "=(\w),(\w)"\((\w+) ')
TYPE_OF = {"i16": "b16", "i32": "b32", "i64": "b64", "float": "f32", "double": "f64"}


def asm_calls(ir: str) -> list[tuple[str, str, str]]:
    """The inline-assembly calls of compiled LLVM IR, in order: (result type, PTX, argument type)."""
    return [(TYPE_OF[m.group(1)], m.group(2), TYPE_OF[m.group(5)]) for m in ASM.finditer(ir)]


@functools.lru_cache(maxsize=None)
def block(ptx: str) -> Block:
    return Block(ptx)


def run_chain(calls, bits: int) -> int:
    """Each call's result fed to the next (a chain such as constructor then conversion)."""
    for rt, ptx, at in calls:
        bits = block(ptx).run({"$0": (rt, 0), "$1": (at, bits)})["$0"]
    return bits
