"""atheris fuzzer: `__cuda_array_interface__` dicts into cubridge.from_cuda_array_interface and as_cuda_array.

Every key (shape, typestr, data, version, strides, stream, mask, descr) present or not, well-formed or
hostile (glue_values.Values), masks that are arrays of their own (or raise, or name themselves), dict
subclasses and stray keys. A dict that is accepted must come back out of the array's own export with the
same shape and typestr. Usage: python fuzz_cai.py [libFuzzer flags] [corpus dirs]"""
import atheris

# Python coverage: cubridge's package and the input builders (which branch on the fuzzer's bytes, so an
# input that builds a new shape of value is kept); the glue itself is C++, reached through them.
with atheris.instrument_imports(include=["cubridge", "glue_values", "dlpack_producers"]):
    import cubridge
    import glue_values  # noqa: F401

from glue_values import EXPECTED, HookError, Hook, Values, run

BASE = 0x7F0000000000  # never dereferenced: no driver checks it on a machine without a GPU


class Dict(dict):
    pass


def cai_dict(v: Values, depth: int = 0):
    d = Dict() if v.chance(10) else {}
    v.victims.append(d)
    keys = ["version", "shape", "typestr", "data", "strides", "stream", "mask", "descr"]
    for _ in range(v.int(0, 3)):  # shuffled, so the single pass over the dict sees keys in any order
        i, j = v.int(0, 7), v.int(0, 7)
        keys[i], keys[j] = keys[j], keys[i]
    for key in keys:
        if v.chance(8 if key in ("version", "shape", "typestr", "data") else 2):
            continue
        if key == "version":
            d[key] = v.integer(0, 4) if v.chance(3) else 3
        elif key == "shape":
            d[key] = v.sequence(lambda: v.integer(0, 5))
        elif key == "typestr":
            d[key] = v.text()
        elif key == "data":
            ptr = BASE + 16 * v.int(0, 64) if not v.chance(6) else v.integer(0, 2**20)
            pair = [ptr, v.flag()] if not v.chance(12) else [ptr]
            d[key] = tuple(pair) if v.chance(2) else pair
            if isinstance(d[key], list):
                v.victims.append(d[key])
            elif v.chance(16):
                d[key] = v.pick([None, 5, "0x10", (None, False)])
        elif key == "strides":
            d[key] = None if v.chance(3) else v.sequence(lambda: v.integer(-64, 64))
        elif key == "stream":
            d[key] = v.pick([None, 1, 2, 0, -5, 2**64, Hook(v, 1), "1"])
        elif key == "mask":
            d[key] = mask_object(v, d, depth)
        elif key == "descr":
            d[key] = [("", d.get("typestr", "<f4"))] if v.chance(3) else v.descr()
    if v.chance(8):
        d[v.pick([1, ("shape",), "\ud800", "shape\x00", "SHAPE"])] = v.integer()
    return d


def mask_object(v: Values, outer: dict, depth: int):
    kind = v.int(0, 5)
    if kind == 0 or depth > 2:
        return None
    if kind == 1:
        class Raising:
            @property
            def __cuda_array_interface__(self):
                raise HookError("mask getter")
        return Raising()
    if kind == 2:
        class Selfish:
            __cuda_array_interface__ = outer  # a mask that is the array itself
        return Selfish()
    if kind == 3:
        return v.pick([5, "mask", object()])
    inner = cai_dict(v, depth + 1)

    class Mask:
        __cuda_array_interface__ = inner
    return Mask()


def test_one_input(data: bytes):
    v = Values(data)
    d = cai_dict(v)
    owner_path = v.chance(2)
    try:
        if owner_path:
            class Producer:
                __cuda_array_interface__ = d
            a = cubridge.as_cuda_array(Producer(), sync=False)
        else:
            a = cubridge.from_cuda_array_interface(d, sync=False)
    except EXPECTED:
        return
    out = a.__cuda_array_interface__  # what was accepted exports again, and agrees with the view
    assert out["version"] == 3 and out["shape"] == a.shape, (out, a.shape)


if __name__ == "__main__":
    run(test_one_input, globals())
