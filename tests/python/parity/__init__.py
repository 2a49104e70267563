"""Kernel parity with numba-cuda: kernels written as numba-cuda's users write them (`from numba import cuda`,
`import numpy as np`, `math`, helpers with keyword arguments...), each run through cubridge and through
numba-cuda on the same inputs.

One module per family of the kernel language (`kernels_<family>.py`); each defines its kernels and
registers them with `case(...)` from parity.cases. tests/python/numba_compat/test_parity.py compiles and ptxas-checks
every case with cubridge on the CPU; tests/python/numba_compat/test_parity_gpu.py runs each case with both compilers on
the GPU and compares the outputs (bit for bit unless the case gives a tolerance)."""
