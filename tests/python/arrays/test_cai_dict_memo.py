"""A `__cuda_array_interface__` dict read again while unchanged gives the view read before
(python/src/py_cai_dict_memo.hpp); every change of the dict, or of a mutable value in it, is read afresh.
Each case reads the dict, changes it, and compares with a fresh copy of the dict (never seen before, so read
by the full path). Runs without a GPU (a fake address; nothing dereferences it) and on one (a real one)."""
import numpy as np
import pytest

import cubridge
from conftest import GPU_REASON


@pytest.fixture(scope="module")
def ptr():
    if GPU_REASON is None:
        buf = cubridge.device_array(1 << 16, "u1")
        yield buf.ptr
        del buf
    else:
        yield 0x7F0000000000


def facts(a):
    cai = a.__cuda_array_interface__
    return (a.ptr, a.shape, a.strides, a.typestr, a.readonly, a.sync, cai["stream"], cai.get("descr"))


def read(d, **kw):
    return facts(cubridge.from_cuda_array_interface(d, **kw))


def fresh(d, **kw):
    """d's facts read from a copy (a dict the memo never saw)."""
    copy = {k: (list(v) if isinstance(v, list) else v) for k, v in d.items()}
    return read(copy, **kw)


def base(ptr):
    return {"shape": (4, 6), "typestr": "<f4", "data": (ptr, False), "version": 3, "strides": None, "stream": 1,
            "descr": [("", "<f4")]}


CHANGES = {
    "shape": lambda d, p: d.update(shape=(6, 4)),
    "strides": lambda d, p: d.update(strides=(4, 16)),
    "data": lambda d, p: d.update(data=(p + 256, False)),
    "read-only": lambda d, p: d.update(data=(p, True)),
    "typestr": lambda d, p: d.update(typestr="<i4", descr=[("", "<i4")]),
    "stream": lambda d, p: d.update(stream=2),
    "stream None": lambda d, p: d.update(stream=None),
    "descr removed": lambda d, p: d.pop("descr"),
    "a key added": lambda d, p: d.update(extra=1),
}


def hits():
    return cubridge._core._import_memo()["cai_dict_hits"]


@pytest.mark.parametrize("change", CHANGES)
def test_a_changed_dict_is_read_afresh(ptr, change):
    d = base(ptr)
    assert read(d) == fresh(d)
    first = read(d)  # the memo's (d may share its set with the copy fresh() read: its way is its own)
    before = hits()
    assert read(d) == first
    assert hits() == before + 1
    CHANGES[change](d, ptr)
    expected = fresh(d)
    before = hits()
    assert read(d) == expected
    assert hits() == before  # changed: read afresh
    assert read(d) == expected and hits() == before + 1  # and remembered again
    if change != "a key added" and change != "descr removed":
        assert read(d) != first


def test_a_descr_list_changed_in_place_is_read_afresh(ptr):
    d = {"shape": (3,), "typestr": "|V8", "data": (ptr, False), "version": 3, "descr": [("", "|V8")]}
    assert read(d)[-1] is None or read(d)[-1] == [("", "|V8")]
    d["descr"][0] = ("x", "<f4")  # the same list object: the dict itself is unchanged
    d["descr"].append(("y", "<i4"))
    assert read(d) == fresh(d)
    assert [tuple(f) for f in read(d)[-1]] == [("x", "<f4"), ("y", "<i4")]


def test_the_request_switches_are_part_of_the_entry(ptr):
    d = base(ptr)
    on, off = read(d), read(d, sync=False)
    assert on[5] is True and off[5] is False
    assert read(d) == on and read(d, sync=False) == off


def test_values_of_mutable_or_foreign_types_are_read_every_time(ptr):
    """numpy integers (read through __index__) and lists are not kept: the dict's version does not follow them."""
    shape = [4, 6]
    d = {"shape": shape, "typestr": "<f4", "data": (ptr, False), "version": 3}
    assert read(d)[1] == (4, 6)
    shape[0] = 2  # the dict unchanged, the list in it changed
    before = hits()
    assert read(d)[1] == (2, 6)
    assert hits() == before
    e = {"shape": (np.int64(5),), "typestr": "<f4", "data": (ptr, False), "version": 3}
    assert read(e)[1] == (5,) and read(e) == fresh(e)


def test_an_error_is_raised_at_every_read(ptr):
    d = base(ptr)
    d["typestr"] = "<f3"
    for _ in range(2):
        with pytest.raises(ValueError, match="typestr"):
            read(d)
    d["typestr"] = "<f4"
    assert read(d) == fresh(d)


def test_a_dict_freed_and_another_made_is_never_the_same(ptr):
    seen = set()
    for i in range(200):  # dicts reuse each other's addresses; each one's version differs
        d = {"shape": (i + 1,), "typestr": "<f4", "data": (ptr, False), "version": 3}
        assert read(d)[1] == (i + 1,)
        seen.add(id(d))
        del d
    assert len(seen) < 200  # addresses were reused, and each read was right


def test_more_typestr_objects_than_the_parse_cache_holds_are_each_read_right(ptr):
    """The typestr's dtype is kept per str object (8 of them, py_identity_cache.hpp): a program whose dicts carry
    more distinct typestr objects than that, in turn, reads each as its own dtype."""
    kinds = ["<f4", "<f8", "<i4", "<i8", "|u1", "<u2", "<i2", "|i1", "<c8", "<c16", "|b1", "<u8"]
    for _ in range(3):
        for t in kinds:
            typestr = "".join(list(t))  # a new str object each time, never interned
            d = dict(base(ptr), typestr=typestr, descr=[("", typestr)])
            a = cubridge.from_cuda_array_interface(d)
            assert a.typestr == t and a.itemsize == int(t[2:])


def test_an_array_made_from_a_remembered_dict_holds_the_owner_it_was_given(ptr):
    """A hit builds the array from the remembered view at once: the same facts as a full read, and the owner of
    this call (not the first call's) kept alive until the array goes."""
    import gc
    import weakref

    class Owner:
        pass

    d = base(ptr)
    first_owner, second_owner = Owner(), Owner()
    a = cubridge.from_cuda_array_interface(d, first_owner)
    before = hits()
    b = cubridge.from_cuda_array_interface(d, second_owner)
    assert hits() == before + 1
    assert facts(b) == facts(a) == fresh(d)
    first, second = weakref.ref(first_owner), weakref.ref(second_owner)
    del first_owner, second_owner
    gc.collect()
    assert first() is not None and second() is not None
    del a
    gc.collect()
    assert first() is None and second() is not None
    del b
    gc.collect()
    assert second() is None
