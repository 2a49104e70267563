"""numba-cuda's dispatcher API on cubridge.Dispatcher, compile-only (no GPU): overloads keyed by Signature and
looked up by numba's keys, compile(sig) returning the compiled kernel, signatures, the inspect_* methods with
numba's signature=None rule, specializations, and the refusals (what no toolkit tool or device can give)."""
import io

import numba
import pytest

import cubridge

SIG = "void(float32[::1], int64)"
NUMBA_ARGS = (numba.float32[::1], numba.int64)


def store(x, y):
    x[0] = y


def test_compile_returns_the_compiled_kernel_kept_in_overloads():
    d = cubridge.jit(store)
    assert len(d.overloads) == 0
    k = d.compile(SIG)
    assert isinstance(k, cubridge.CompiledKernel) and d.compile(NUMBA_ARGS) is k  # compiled once
    assert list(d.overloads) == [k.signature] and isinstance(k.signature, cubridge.Signature)
    assert k.argtypes == (cubridge.float32[::1], cubridge.int64)
    assert d.signatures == ["void(float32[::1], int64)"]


@pytest.mark.parametrize("key", [SIG, NUMBA_ARGS, numba.void(*NUMBA_ARGS), cubridge.void(cubridge.float32[::1],
                                                                                         cubridge.int64)])
def test_overloads_are_looked_up_by_numbas_keys(key):
    d = cubridge.jit(store)
    k = d.compile(SIG)
    assert key in d.overloads and d.overloads[key] is k and d.overloads.get(key) is k


def test_a_signature_not_compiled_is_absent_and_named():
    d = cubridge.jit(store)
    d.compile(SIG)
    assert (numba.float64[::1], numba.int64) not in d.overloads and "no signature" not in d.overloads
    with pytest.raises(KeyError, match=r"no kernel compiled for it; compiled: none\(array\(float32"):
        d.overloads[(numba.float64[::1], numba.int64)]
    with pytest.raises(KeyError, match=r"no kernel compiled for it"):
        d.inspect_asm((numba.float64[::1],))


def test_a_specialized_dispatchers_inspect_methods_still_answer_a_dict():
    """numba-cuda's inspect_* have no single-signature shortcut (only its get_* do): jit(sig)(f).inspect_asm() is
    a dict of one entry (numba-cuda's test_atomics reads .values() of it)."""
    d = cubridge.jit(SIG)(store)
    for inspect, text in ((d.inspect_asm, ".entry"), (d.inspect_llvm, "define")):
        answer = inspect()
        assert isinstance(answer, dict) and len(answer) == 1 and text in next(iter(answer.values()))


def test_inspect_asm_and_llvm_follow_numbas_signature_none_rule():
    d = cubridge.jit(store)
    d.compile(SIG)
    d.compile("void(float64[::1], int64)")
    asm, llvm = d.inspect_asm(), d.inspect_llvm()
    assert len(asm) == len(llvm) == 2
    assert NUMBA_ARGS in asm and (numba.float64[::1], numba.int64) in llvm
    one = d.inspect_asm(NUMBA_ARGS)
    assert one == asm[NUMBA_ARGS] and ".entry" in one and "st.global.f32" in one
    assert "st.global.f64" in d.inspect_asm((numba.float64[::1], numba.int64))
    ir = d.inspect_llvm(NUMBA_ARGS)
    assert ir.startswith("target datalayout") and "store float" in ir


def test_inspect_asm_for_another_compute_capability():
    k = cubridge.jit(store).compile(SIG)
    assert ".target sm_90" in k.inspect_asm(cc=(9, 0))
    with pytest.raises(ValueError, match="compute capability 'sm_nine' is not valid"):
        k.inspect_asm(cc="sm_nine")


def test_inspect_lto_ptx_is_nvjitlinks_ptx_of_the_ltoir():
    k = cubridge.jit(store).compile(SIG)
    ptx = k.inspect_lto_ptx(cc=(8, 0))
    assert ".target sm_80" in ptx and ".entry" in ptx and "st.global.f32" in ptx


def test_inspect_lto_ptx_never_returns_a_module_without_the_kernel(monkeypatch):
    from cubridge import _overloads
    k = cubridge.jit(store).compile(SIG)
    # a link that drops the entry (as nvJitLink did before the kernel was put in @llvm.used)
    monkeypatch.setattr(_overloads._linker, "link", lambda *a, **kw: "//\n.version 9.0\n.target sm_80\n")
    with pytest.raises(RuntimeError, match=r"inspect_lto_ptx: nvJitLink's PTX of kernel 'store' \(its LTO-IR\) "
                                           r"for sm_80 lacks the kernel _Z"):
        k.inspect_lto_ptx(cc=(8, 0))


@pytest.mark.skipif(cubridge.driver_available(), reason="the device gives the compute capability")
def test_inspection_needing_an_architecture_asks_for_one_without_a_device():
    d = cubridge.jit(store)
    d.compile(SIG)
    for inspect in (d.inspect_lto_ptx, d.inspect_sass):
        with pytest.raises(ValueError, match=r"no device to take the compute capability from; pass cc="):
            inspect()


def test_inspect_sass_needs_the_toolkits_disassembler(monkeypatch):
    import shutil
    from cubridge import _overloads
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(_overloads, "_toolkit_tool", lambda name: None)
    k = cubridge.jit(store).compile(SIG)
    with pytest.raises(RuntimeError, match="inspect_sass needs the CUDA toolkit's nvdisasm or cuobjdump"):
        k.inspect_sass(cc=(8, 0))


def test_inspect_types_names_the_kernel_and_each_signature():
    d = cubridge.jit(store)
    d.compile(SIG)
    d.compile("void(float64[::1], int64)")
    out = io.StringIO()
    d.inspect_types(file=out)
    text = out.getvalue()
    assert "store (array(float32, 1d, C), int64)" in text and "store (array(float64, 1d, C), int64)" in text
    assert "x[0] = y" in text


def test_specializations_start_empty_and_launches_do_not_add_to_them():
    d = cubridge.jit(store)
    d.compile(SIG)
    assert len(d.specializations) == 0


def test_attribute_getters_refuse_a_signature_never_compiled():
    d = cubridge.jit(store)
    assert d.get_regs_per_thread() == {}
    with pytest.raises(KeyError, match="no kernel compiled for it"):
        d.get_regs_per_thread(NUMBA_ARGS)


@pytest.mark.parametrize("junk", ["void(", "float32[", b"x", object(), None, 5, (1, 2), "int64(float32)"])
def test_a_key_that_is_no_kernel_signature_is_absent(junk):
    d = cubridge.jit(store)
    d.compile(SIG)
    assert junk not in d.overloads and d.overloads.get(junk, "absent") == "absent"
    with pytest.raises(KeyError, match="no kernel compiled for it"):
        d.overloads[junk]


def test_a_numba_signature_with_a_type_cubridge_lacks_names_that_parameter():
    numba_types = pytest.importorskip("numba.core.types")

    class OpaqueType(numba_types.Opaque):
        pass

    sig = numba_types.void(numba_types.int64[::1], OpaqueType("my_dummy"))
    with pytest.raises(TypeError, match=r"signature \(.*\) -> none: parameter 2, my_dummy \(OpaqueType\), has no "
                                        r"cubridge type: my_dummy is not a type the compiler accepts"):
        cubridge.jit(sig)(lambda res, dummy: None)
