"""Enum and IntEnum members in kernels (numba-cuda's test_enums): IntEnum members are integers in arithmetic,
comparisons and casts, read as Cls.member and Cls["member"]; members of plain Enums (values of one type:
ints, tuples of floats) compare by class and value with ==, !=, is and is not, as kernel arguments, as
constants of the kernel's module, returned from device functions, and give their .value; IntEnum members
of two classes are equal as integers and never identical. Compared value for value with numba-cuda's."""
from enum import Enum, IntEnum

import numpy as np
from numba import cuda, int16, int32

from .cases import case


class Shape(IntEnum):
    circle = 2
    square = 500


class RequestError(IntEnum):
    dummy = 2
    not_found = 404
    internal_error = 500


class IntEnumWithNegatives(IntEnum):
    one = 1
    two = 2
    negone = -1


class Color(Enum):
    red = 1
    green = 2
    blue = 3


class Shake(Enum):
    vanilla = 7
    mint = 3  # Color.blue's value


class Planet(Enum):
    VENUS = (4.869e24, 6.0518e6)
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


def int_coerce(xs, out):
    i = cuda.grid(1)
    if i < xs.size:
        x = xs[i]
        if x > RequestError.internal_error:
            out[i] = x - RequestError.not_found
        else:
            out[i] = x + Shape.circle + RequestError["dummy"]


def int_cast(xs, out):
    i = cuda.grid(1)
    if i < xs.size:
        x = xs[i]
        if x > int16(RequestError.internal_error):
            out[i] = x - int32(RequestError.not_found)
        else:
            out[i] = x + int16(Shape.circle) * (Shape.square == RequestError.internal_error)


def _inputs():
    return [np.array([300, 450, 500, 550, -7], np.int64), np.zeros(5, np.int32)]


case(int_coerce, _inputs, grid=1, block=8, outs=[1])
case(int_cast, _inputs, grid=1, block=8, outs=[1])


def compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


# numba-cuda's test_compare pairs: one Enum's members, a tuple-valued Enum's, IntEnum members of two classes
COMPARED = [(Color.red, Color.red), (Color.red, Color.green), (Planet.EARTH, Planet.EARTH),
            (Planet.VENUS, Planet.MARS), (Shape.circle, IntEnumWithNegatives.two),
            (Shape.circle, Shape.circle), (RequestError.dummy, Shape.circle)]

for _a, _b in COMPARED:
    case(compare, lambda a=_a, b=_b: [a, b, np.zeros(4, np.bool_)], block=1, outs=[2])


def getattr_getitem(out):
    out[0] = Color.red == Color.green
    out[1] = Color["red"] == Color["green"]
    out[2] = Color.blue == Color.blue
    out[3] = Color.blue is Color["blue"]
    out[4] = Color.blue is not Color.red
    out[5] = Color.blue != Color.red


case(getattr_getitem, lambda: [np.zeros(6, np.bool_)], block=1)


def identities(out):
    out[0] = Shape.circle is IntEnumWithNegatives.two  # equal values, two classes: never the same member
    out[1] = Shape.circle == IntEnumWithNegatives.two  # but equal integers
    out[2] = Color.blue is Shake.mint
    out[3] = Shape.circle is Shape.circle
    one = 1
    out[4] = Color.red is one  # numba-cuda's generic_is: an int is no Enum member


case(identities, lambda: [np.zeros(5, np.bool_)], block=1)


def contained(c, out):
    out[0] = c in (Color.red, Color.green)  # == with each member (numba's in_seq)
    out[1] = c not in (Color.blue, Color.red)
    # (an IntEnum member `in` a tuple mixing another IntEnum's member and an int: numba-cuda has no
    # implementation of that `contains`; cubridge compares them as integers, test_jit_enums.py)


case(contained, lambda: [Color.green, np.zeros(2, np.bool_)], block=1, outs=[1])
case(contained, lambda: [Color.blue, np.zeros(2, np.bool_)], block=1, outs=[1])


@cuda.jit(device=True)
def pick(pred):
    return Color.red if pred else Color.green


def return_from_device_func(pred, out):
    out[0] = pick(pred) == Color.red
    out[1] = pick(not pred) == Color.green
    out[2] = pick(pred) is Color.green


case(return_from_device_func, lambda: [True, np.zeros(3, np.bool_)], block=1, outs=[1])
case(return_from_device_func, lambda: [False, np.zeros(3, np.bool_)], block=1, outs=[1])


def values(c, p, s, out):
    out[0] = c.value
    out[1] = p.value[0] / 1e24 + p.value[1] / 1e6
    out[2] = Color.blue.value * 10 + s.value
    out[3] = s + 1  # an IntEnum's member is its integer
    same = c
    out[4] = same == Color.green


case(values, lambda: [Color.green, Planet.MARS, Shape.square, np.zeros(5, np.float64)], block=1, outs=[3])
