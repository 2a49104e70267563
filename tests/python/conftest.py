"""Shared pytest set-up: the `gpu` marker skips, with the driver's reason, where no GPU is usable."""
import numpy

# numba-cuda 0.30 (a peer in interop tests) still calls numpy.row_stack, which numpy 2.5 removed.
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack

import pytest

import cubridge


def _gpu_reason():
    try:
        cubridge.device_count()
        return None
    except cubridge.CudaError as e:
        return str(e)


GPU_REASON = _gpu_reason()


def pytest_collection_modifyitems(config, items):
    if GPU_REASON is None:
        return
    skip = pytest.mark.skip(reason=f"needs a GPU: {GPU_REASON}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
