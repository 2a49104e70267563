"""Shared pytest set-up: the `gpu` marker skips, with the driver's reason, where no GPU is usable."""
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
