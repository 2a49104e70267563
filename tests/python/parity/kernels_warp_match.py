"""cuda.match_any_sync / match_all_sync: numba-cuda's test_warp_ops kernels, on values that split a warp into
groups (int32, int64 and float64 values; one lane differing for match_all), compared exactly."""
import numpy as np
from numba import cuda

from .cases import case


def match_any_groups(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.match_any_sync(0xFFFFFFFF, ary_in[i])


def match_all_groups(ary_in, ary_out, flags):
    i = cuda.grid(1)
    ballot, pred = cuda.match_all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot
    flags[i] = pred


for _dtype in (np.int32, np.int64, np.float64):
    case(match_any_groups, lambda d=_dtype: [(np.arange(32) % 3).astype(d), np.zeros(32, np.int32)], block=32,
         outs=[1])
    case(match_all_groups, lambda d=_dtype: [np.zeros(32, d), np.zeros(32, np.int32), np.zeros(32, np.bool_)],
         block=32, outs=[1, 2])


def _one_lane_differs():
    x = np.zeros(32, np.int32)
    x[5] = 4
    return [x, np.zeros(32, np.int32), np.zeros(32, np.bool_)]


case(match_all_groups, _one_lane_differs, block=32, outs=[1, 2])
