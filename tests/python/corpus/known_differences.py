"""Where our results may differ from numba-cuda's on purpose, for test_compile_corpus.py's GPU comparison.
Each entry names the cases, a predicate over one row (the inputs as Python scalars, our result and
numba-cuda's, None where numba-cuda raised) and the reason; DIFFERENCES.md beside this file lists the same
entries for people. A difference that no entry explains fails the test, and so does a numba-cuda exception
on inputs that no `numba_raises` entry names."""
import dataclasses
import math
from typing import Any, Callable

INT32_MIN, INT64_MIN = -2 ** 31, -2 ** 63

# int ** int above this exponent: numba's int_power returns math.pow(a, float(b)) converted to the integer
# result type (numba/cpython/numbers.py, "Optimization cutoff").
NUMBA_INT_POWER_CUTOFF = 0x10000


@dataclasses.dataclass(frozen=True)
class Known:
    cases: tuple[str, ...]  # "module.name" (every signature) or "module.name(t1,t2)" (one signature)
    when: Callable[[tuple, Any, Any], bool]  # (inputs, ours, numba's or None) -> the row is explained
    reason: str
    numba_raises: bool = False  # numba-cuda raises here: its thread stops and stores no result

    def covers(self, case_id: str) -> bool:
        return any(case_id == c or case_id.startswith(c + "(") for c in self.cases)


def _is_zero_with_other_sign(ours, theirs) -> bool:
    return theirs is not None and ours == 0 and theirs == 0 and math.copysign(1, ours) != math.copysign(1, theirs)


KNOWN = [
    Known(("arith.power(float32,int32)", "arith.power(float64,int64)", "builtins_math.b_pow(bool,int32)",
           "arith.power(int64,int64)"),
          lambda a, ours, theirs: a[1] in (INT32_MIN, INT64_MIN),
          "x ** e with e the smallest value of its type: numba's int_power computes -e in that type, which "
          "overflows, and raises OverflowError; ours gives C's pow(x, float(e)) for float bases (as CPython, "
          "which raises ZeroDivisionError only for 0.0) and Numba's 0 ** negative / ±1 ** negative results "
          "for integers", numba_raises=True),
    Known(("arith.power(int64,int64)", "arith.power(int32,int32)", "arith.power(uint64,uint64)",
           "builtins_math.b_pow(int32,int32)"),
          lambda a, ours, theirs: abs(a[1]) > NUMBA_INT_POWER_CUTOFF and a[0] not in (0, 1),
          "int ** int with an exponent over 65536: numba switches to math.pow and converts the float "
          "(usually ±inf) to the integer type, and float(e) loses e's parity above 2**53 ((-1) ** int64.max "
          "gives 1); ours keeps square-and-multiply, wrapping as NumPy's integer power does and as numba does "
          "itself below the cutoff (CPython's exact result does not fit, except for -1: -1, as ours)"),
    Known(("arith.neg(int32)", "control.absval(int32)", "control.pass_stmt(int32)"),
          lambda a, ours, theirs: a[0] == INT32_MIN,
          "-x of int32 types as int64 in Numba; numba negates in int32 and then widens, giving -2147483648, "
          "ours widens first and gives 2147483648 as CPython does"),
    Known(("builtins_math.b_round2(int64)",),
          lambda a, ours, theirs: abs(a[0]) * 100 >= 2 ** 63,
          "round(int, 2): numba rounds x * 100 through an int64 (llrint), which saturates; ours rounds in "
          "float64 and gives float(x) as CPython does"),
    Known(("builtins_math.b_round2(float64)", "builtins_math.b_round2(float32)",
           "builtins_math.b_round_neg(float64)"),
          lambda a, ours, theirs: _is_zero_with_other_sign(ours, theirs),
          "round(x, n) that rounds to zero: numba rounds through an int64 (llrint) and loses the sign, "
          "giving 0.0; ours keeps -0.0 as CPython does"),
    Known(("arith.truediv(complex128,complex128)", "tuples_complex.c_div(complex64,complex64)",
           "tuples_complex.c_div(complex128,complex128)"),
          lambda a, ours, theirs: a[1] == 0,
          "complex division by zero: numba-cuda's complex_div raises ZeroDivisionError (as CPython) whatever "
          "the error model, and so does ours; the harness's thread stops and stores no result either way",
          numba_raises=True),
]


def explained(case_id: str, inputs: tuple, ours, theirs, numba_raised: bool) -> Known | None:
    """The entry that explains this row's difference, or None."""
    for k in KNOWN:
        if k.numba_raises == numba_raised and k.covers(case_id) and k.when(inputs, ours, None if numba_raised else theirs):
            return k
    return None
