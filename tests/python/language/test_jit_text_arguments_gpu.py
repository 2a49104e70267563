"""A string literal passed to a device function (numba-cuda's test_errors.TestStringArgCompileTime, its
issue 755): the kernel compiles and writes what numba-cuda's writes (the branch the text selects). numba-cuda
runs the same kernel in its own suite (it needs the helper decorated: plain helpers are cubridge's)."""
import numpy as np
import pytest

import cubridge
from test_jit_static_arguments import k_text_1, k_text_2  # noqa: E402  (the kernels the CPU tests compile)


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, expected", [(k_text_1, 1.0), (k_text_2, 0.0)], ids=["equal", "different"])
def test_a_string_argument_selects_the_branch(kernel, expected):
    buff = np.full(1, 7.0, dtype=np.float32)
    cubridge.jit(kernel)[1, 1](buff)
    assert float(buff[0]) == expected
