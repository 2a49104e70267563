"""IntEnum members in kernels (numba-cuda's test_enums int_coerce / int_cast): integers in arithmetic,
comparisons and casts, read as Cls.member and Cls["member"]; compared value for value with numba-cuda's."""
from enum import IntEnum

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
