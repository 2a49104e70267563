"""Leak test (issue 13): each error path runs 100,000 times (compile errors 20,000) and the process's resident
memory must stay flat: an error that leaks even 32 bytes a time would add 3 MB. CPU only; the paths are the
ones hostile input reaches: CAI dicts, descr, DLPack exchange tables, kernel and compile signatures, XLA
opaque bytes and tuple layouts, the compiler's front end."""
import ctypes
import gc
import os

import pytest

import cubridge
import cubridge.xla as cx
from cubridge import _compiler, _core

PTR = 0x7F0000000000
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def raises(fn):
    def run():
        try:
            fn()
        except (ValueError, TypeError, RuntimeError, IndexError, NotImplementedError, BufferError):
            return
        raise AssertionError("the error path did not raise")
    return run


def cai(**over):
    d = {"shape": (2, 3), "typestr": "<f4", "data": (PTR, False), "version": 3}
    d.update(over)
    return d


class BadTable:
    __dlpack_c_exchange_api__ = 12345


def _compile_error():
    o = _compiler._options(False, False, True, False, (9, 0), True, "c", None, "ptx")
    _core._compile_source("def f(x):\n    return {x}\n", "f", "(int64,)", o)


_deep = [("a", "<f4")]
for _ in range(40):
    _deep = [("x", _deep)]

PATHS = {
    "cai-typestr": (raises(lambda: cubridge.from_cuda_array_interface(cai(typestr="<f3"))), 100_000),
    "cai-shape": (raises(lambda: cubridge.from_cuda_array_interface(cai(shape=(2, -3)))), 100_000),
    "cai-descr-depth": (raises(lambda: cubridge.from_cuda_array_interface(cai(typestr="|V4", descr=_deep))), 100_000),
    "dlpack-table": (raises(lambda: cubridge.as_cuda_array(BadTable())), 100_000),
    "kernel-signature": (raises(lambda: cubridge.KernelSignature("void(float33[:])")), 100_000),
    "opaque": (raises(lambda: cx.validate_opaque(b"CBXO\x01\x00\x01\x00\x09\x01x")), 100_000),
    "compile-signature": (raises(lambda: cubridge.compile(_compile_error, "(int33,)")), 20_000),
    "front-end": (raises(_compile_error), 20_000),
}


@pytest.mark.parametrize("name", list(PATHS))
def test_an_error_path_leaks_nothing(name):
    fn, n = PATHS[name]
    for _ in range(2000):  # warm up: caches, interned strings, allocator pools
        fn()
    gc.collect()
    before = rss()
    for _ in range(n):
        fn()
    gc.collect()
    grown = rss() - before
    assert grown < 1 << 20, f"{name}: resident memory grew {grown / 1024:.0f} KiB over {n} errors"
