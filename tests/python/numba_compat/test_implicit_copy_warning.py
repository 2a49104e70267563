"""numba-cuda's host-array copy warning in drop-in use follows numba's configuration, as numba-cuda's does. Rules:
 1. It is issued when CUDA_WARN_ON_IMPLICIT_COPY (NUMBA_CUDA_WARN_ON_IMPLICIT_COPY, default on) is on and
    DISABLE_PERFORMANCE_WARNINGS is off, and not otherwise (numba's test cases turn the first off, and then a
    test that makes numba's warnings errors must not see it).
 2. GPU: a launch with a NumPy array in a numba-cuda program warns with numba's class when the configuration
    asks, and is quiet when it does not (even with numba's warnings made errors)."""
import importlib
import warnings

import numpy as np
import pytest

import cubridge
from cubridge import _numba_diagnostics


@pytest.fixture
def numba_config(monkeypatch):
    """numba-cuda's configuration module (numba's where numba.cuda is numba's own), the one cubridge reads."""
    for name in ("numba.cuda.core.config", "numba.core.config"):
        try:
            config = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(config, "CUDA_WARN_ON_IMPLICIT_COPY"):
            monkeypatch.setattr(_numba_diagnostics, "_numba_config_module", lambda: config)
            return config
    pytest.skip("numba is not importable")


@pytest.mark.parametrize("warn, disabled, expected", [(1, 0, True), (0, 0, False), (1, 1, False)])
def test_the_warning_follows_numbas_configuration(numba_config, monkeypatch, warn, disabled, expected):
    monkeypatch.setattr(numba_config, "CUDA_WARN_ON_IMPLICIT_COPY", warn)
    monkeypatch.setattr(numba_config, "DISABLE_PERFORMANCE_WARNINGS", disabled)
    assert _numba_diagnostics.implicit_copy_warning_on() is expected


def set_to_three(arr):
    arr[0] = 3


@pytest.mark.gpu
def test_a_host_array_launch_warns_only_when_numba_asks(numba_config, monkeypatch):
    monkeypatch.setattr(_numba_diagnostics, "_numba_program", True)  # what install_numba() marks
    k = cubridge.jit(set_to_three)
    monkeypatch.setattr(numba_config, "CUDA_WARN_ON_IMPLICIT_COPY", 1)
    monkeypatch.setattr(numba_config, "DISABLE_PERFORMANCE_WARNINGS", 0)
    with pytest.warns(_numba_diagnostics.performance_warning(), match="Host array used in CUDA kernel"):
        k[256, 1](np.zeros(1, np.int64))
    monkeypatch.setattr(numba_config, "CUDA_WARN_ON_IMPLICIT_COPY", 0)
    a = np.zeros(1, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numba's warnings made errors, as numba-cuda's caching tests do
        k[256, 1](a)
    assert a[0] == 3
