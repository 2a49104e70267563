"""atheris fuzzer: DLPack capsules from a hand-written producer (`__dlpack__` / `__dlpack_device__`) into
cubridge.from_dlpack: versioned and legacy managed tensors with any ndim, shape, strides, dtype, device,
byte offset, flags and version, capsules with the wrong name or no tensor, and producers whose methods
raise or return the wrong things. Rule beyond "no crash": a tensor's deleter runs at most once, and not
at all while cubridge still holds the view. Usage: python fuzz_dlpack.py [libFuzzer flags] [corpus dirs]"""
import ctypes

import atheris

# Python coverage: cubridge's package and the input builders (which branch on the fuzzer's bytes, so an
# input that builds a new shape of value is kept); the glue itself is C++, reached through them.
with atheris.instrument_imports(include=["cubridge", "glue_values", "dlpack_producers"]):
    import cubridge
    import glue_values  # noqa: F401

from dlpack_producers import (DELETER, DLManagedTensor, DLManagedTensorVersioned, capsule, count_deleter, deleted,
                              fill_tensor)
from glue_values import EXPECTED, HookError, Values, run


def make_producer(v: Values, keep: list):
    versioned = v.chance(2)
    if versioned:
        mt = DLManagedTensorVersioned()
        mt.version.major, mt.version.minor = v.pick([1, 1, 1, 0, 2, 2**32 - 1]), v.int(0, 4)
        mt.flags = v.pick([0, 0, 1, 2, 3, 2**63])
    else:
        mt = DLManagedTensor()
    mt.deleter = count_deleter if not v.chance(10) else DELETER()
    fill_tensor(v, mt.dl_tensor, keep)
    keep.append(mt)
    # The capsule's name matches the struct, or is one cubridge must refuse: a capsule holding a wild pointer,
    # or a legacy struct named as a versioned one, is a lie no consumer can detect (DLPack leaves the
    # pointer's validity to the producer; NumPy, PyTorch and CuPy read it as given), so it is not fuzzed.
    own = b"dltensor_versioned" if versioned else b"dltensor"
    names = [own, b"used_" + own, b"x", b""]
    cap = capsule(ctypes.addressof(mt), own if not v.chance(6) else v.pick(names), keep)
    returned = cap if not v.chance(12) else v.pick([None, 5, "capsule", (cap,)])
    raise_in = v.int(0, 12)
    device = (mt.dl_tensor.device.device_type, mt.dl_tensor.device.device_id) if not v.chance(10) else \
        v.pick([None, (2,), ("2", 0), (2, 0, 0), 7])

    class Producer:
        def __dlpack__(self, *args, **kwargs):
            if raise_in == 0:
                raise HookError("__dlpack__")
            if raise_in == 1 and "max_version" in kwargs:
                raise TypeError("an old producer: no max_version")
            return returned

        def __dlpack_device__(self):
            if raise_in == 2:
                raise HookError("__dlpack_device__")
            return device
    return Producer(), ctypes.addressof(mt)


def test_one_input(data: bytes):
    v = Values(data)
    keep = []
    obj, address = make_producer(v, keep)
    deleted.pop(address, None)
    try:
        a = cubridge.from_dlpack(obj, sync=False) if v.chance(2) else cubridge.as_cuda_array(obj, sync=False)
    except EXPECTED:
        a = None
    if a is not None:
        assert deleted.get(address, 0) == 0, "the deleter ran while the view was alive"
        del a
    assert deleted.get(address, 0) <= 1, f"the deleter ran {deleted[address]} times"
    deleted.pop(address, None)


if __name__ == "__main__":
    run(test_one_input, globals())
