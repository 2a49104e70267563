"""NumPy ufuncs on arrays with an explicit output (np.sin(x, out)), as numba-cuda's test_ufuncs calls them
from a kernel launched [1, 1]: 1-d, 2-d, F-ordered 3-d, a scalar input broadcast, an axis of length 1
broadcast, an integer result stored into a wider output; compared value for value with numba-cuda's."""
import numpy as np

from .cases import case, rng


def ufunc_arccos_1d(x, out):
    np.arccos(x, out)


case(ufunc_arccos_1d, lambda: [rng().uniform(-1, 1, 40), np.zeros(40)], grid=1, block=1, outs=[1])


def ufunc_sin_2d(x, out):
    np.sin(x, out)


case(ufunc_sin_2d, lambda: [rng().uniform(-3, 3, (5, 7)).astype(np.float32), np.zeros((5, 7), np.float32)],
     grid=1, block=1, outs=[1])


def ufunc_cos_3d_f(x, out):
    np.cos(x, out)


case(ufunc_cos_3d_f, lambda: [np.asfortranarray(rng().uniform(-2, 2, (2, 3, 4))),
                              np.asfortranarray(np.zeros((2, 3, 4)))], grid=1, block=1, outs=[1])


def ufunc_scalar_input(v, out):
    np.log2(v, out)


case(ufunc_scalar_input, lambda: [2.25, np.zeros(1)], grid=1, block=1, outs=[1])


def ufunc_broadcast_axis(x, y, out):
    np.arctan2(x, y, out)


case(ufunc_broadcast_axis, lambda: [rng().uniform(-1, 1, (4, 1)), rng(2).uniform(-1, 1, (4, 6)), np.zeros((4, 6))],
     grid=1, block=1, outs=[2])


def ufunc_into_wider_output(x, y, out):
    np.bitwise_xor(x, y, out)


case(ufunc_into_wider_output, lambda: [rng().integers(-50, 50, 16).astype(np.int16), np.int16(7),
                                       np.zeros(16, np.int64)], grid=1, block=1, outs=[2])
