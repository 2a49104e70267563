"""Hostile Python values for the atheris fuzzers of cubridge's Python glue (fuzz/atheris/fuzz_*.py).

A Values object turns the fuzzer's bytes into the objects a careless or hostile producer hands cubridge:
mostly well-formed (so inputs reach the deep rules), sometimes out of range, of the wrong type, or armed
with a hook (`__index__`, `__bool__`, `__repr__`) that empties the containers being read, raises, or
answers differently each time. What a fuzzer may see raised is EXPECTED (cubridge's documented errors and
the hooks' own HookError); anything else, a crash or a hang is a finding."""
import atheris

import cubridge


class HookError(Exception):
    """Raised by the fuzzers' own hooks: cubridge must let it through (or name it), never swallow it."""


# What cubridge raises for bad input: TypeError/ValueError (and their subclasses: ArrayInterfaceError,
# CompileError...), OverflowError, IndexError, BufferError (DLPack), NotImplementedError (masks),
# RuntimeError (a producer's function failing without an error), CudaError (no driver on this machine).
EXPECTED = (TypeError, ValueError, OverflowError, IndexError, BufferError, NotImplementedError, RuntimeError,
            cubridge.CudaError, HookError)

TYPESTRS = ["<f4", "<f8", "<f2", "|u1", "|i1", "<i2", "<i4", "<i8", "<u2", "<u4", "<u8", "|b1", "<c8", "<c16",
            ">f4", ">i8", "=f4", "|V8", "|V16", "|V3", "|V0", "<f3", "<x4", "f4", "", "<M8[s]", "|O8", "<U4",
            "<f\ud800", "\udcff"]


class Hook:
    """An int-like (and bool-like, and printable) object whose protocol methods run an action first."""

    def __init__(self, values, value):
        self.victims = values.victims
        self.value = value
        self.action = values.int(0, 5)
        self.calls = 0

    def _act(self):
        self.calls += 1
        if self.action == 1:
            for v in list(self.victims):
                v.clear()
        elif self.action == 2:
            raise HookError("hook")
        elif self.action == 3 and self.calls > 1:  # answers differently the second time
            self.value = -self.value - 1

    def __index__(self):
        self._act()
        return self.value if self.action != 4 else "not an int"

    def __bool__(self):
        self._act()
        return bool(self.value)

    def __repr__(self):
        self._act()
        return "Hook\ud800" if self.action == 5 else "Hook()"


class Values:
    def __init__(self, data: bytes):
        self.fdp = atheris.FuzzedDataProvider(data)
        self.victims = []  # containers that hooks may empty (registered as they are made)

    def int(self, lo: int, hi: int) -> int:
        return self.fdp.ConsumeIntInRange(lo, hi)

    def chance(self, one_in: int) -> bool:
        # An input that ran out says "no": short inputs then build well-formed values, instead of every
        # rare branch at once (which kept a Python-coverage-only run on the first refusal for millions of inputs).
        return self.fdp.remaining_bytes() > 0 and self.int(0, one_in - 1) == 0

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def integer(self, lo: int = 0, hi: int = 8):
        """Mostly an int in [lo, hi]; sometimes an extreme, a bool, a float, a NumPy int or a Hook."""
        kind = self.int(0, 15)
        if kind < 10:
            return self.int(lo, hi)
        if kind == 10:
            return self.pick([-1, -(2**63), 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**200, -(2**200)])
        if kind == 11:
            return self.pick([True, False, 1.0, None, "3", b"3"])
        if kind == 12:
            import numpy as np
            return self.pick([np.int64, np.uint64, np.int8, np.int32])(self.int(0, 100))
        return Hook(self, self.int(lo, hi))

    def flag(self):
        kind = self.int(0, 7)
        if kind < 5:
            return kind % 2 == 0
        return self.pick([0, 1, None, Hook(self, 0)])

    def text(self):
        if self.chance(6):
            return self.fdp.ConsumeUnicode(self.int(0, 12))
        if self.chance(12):
            return self.pick([None, 4, b"<f4", Hook(self, 4)])
        return self.pick(TYPESTRS)

    def sequence(self, item, max_len: int = 4):
        """A tuple or a list (registered as a victim) of `item()`; sometimes not a sequence at all."""
        kind = self.int(0, 11)
        if kind == 11:
            return self.pick([None, 3, "ab", {}, Hook(self, 2), iter([1, 2])])
        items = [item() for _ in range(self.int(0, max_len))]
        if kind < 6:
            return tuple(items)
        self.victims.append(items)
        return items

    def descr(self, depth: int = 0):
        """A NumPy 'descr' list: (name, typestr or nested descr[, shape]) tuples, sometimes malformed."""
        if depth > 3 or self.chance(16):
            return self.pick([[], None, "x", [("a",)], [1], [("a", "<f4", 1, 2)], [(5, "<f4")]])
        fields = []
        self.victims.append(fields)
        for i in range(self.int(1, 4)):
            name = self.pick(["", f"f{i}", ("title", f"t{i}"), 5, ("a",)]) if self.chance(8) else f"f{i}"
            typ = self.descr(depth + 1) if self.chance(5) else self.text()
            if self.chance(3):
                shape = self.integer(0, 4) if self.chance(2) else self.sequence(lambda: self.integer(0, 3), 3)
                fields.append((name, typ, shape))
            else:
                fields.append((name, typ))
        if self.chance(40):
            fields.append(("self", fields))  # a list that contains itself
        return fields


def run(test_one_input, module_globals: dict):
    """atheris' main for a fuzzer module (which imported cubridge and these helpers under
    atheris.instrument_imports): its own functions are instrumented too, then it fuzzes."""
    import sys
    import types
    for name, value in list(module_globals.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == "__main__":
            module_globals[name] = atheris.instrument_func(value)
    atheris.Setup(sys.argv, module_globals["test_one_input"])
    atheris.Fuzz()
