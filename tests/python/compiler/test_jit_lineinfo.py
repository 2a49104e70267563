"""lineinfo=True as numba-cuda emits it (test_lineinfo). The rules:

1. the compile unit is DebugDirectivesOnly (never FullDebug) with lineinfo alone: the PTX has .file naming
   the source file and .loc directives, but no .debug_info section and no ", debug" on its .target line;
2. debug=True is FullDebug: .target ..., debug;
3. without either, no debug metadata, .file or .loc at all;
4. lineinfo keeps numba's default error model: no division-by-zero exit (no "ret i32 1") in the IR."""
import re

import cubridge

SIG = "void(int32[:])"


def foo(x):
    x[0] = 1


def _kernel(**options):
    k = cubridge.jit(**options)(foo)
    k.compile(SIG)
    return k.inspect_llvm(SIG), k.inspect_asm(SIG)


def test_lineinfo_is_debug_directives_only():
    llvm, ptx = _kernel(lineinfo=True)
    assert re.search(r"!DICompileUnit\(.*emissionKind:\s+DebugDirectivesOnly", llvm), llvm
    assert not re.search(r"!DICompileUnit\(.*emissionKind:\s+FullDebug", llvm)
    assert re.search(r'\.file\s+[0-9]+\s+".*test_jit_lineinfo.py"', ptx), ptx
    assert re.search(r"\.loc\s+[0-9]+\s+[0-9]+\s+[0-9]+", ptx), ptx
    assert not re.search(r"\.section\s+\.debug_info", ptx)
    assert not re.search(r"\.target\s+sm_\d+a?, debug", ptx), ptx


def test_debug_is_full_debug():
    llvm, ptx = _kernel(debug=True, opt=False)
    assert re.search(r"!DICompileUnit\(.*emissionKind:\s+FullDebug", llvm), llvm
    assert re.search(r"\.target\s+sm_\d+, debug", ptx), ptx


def test_no_lineinfo_no_directives():
    llvm, ptx = _kernel()
    assert "DICompileUnit" not in llvm and ".loc" not in ptx and ".file" not in ptx


def divide_kernel(x, y):
    x[0] /= y[0]


def test_lineinfo_keeps_the_numpy_error_model():
    sig = "void(float32[::1], float32[::1])"
    assert "ret i32 1" not in cubridge.jit(sig, lineinfo=True)(divide_kernel).inspect_llvm(sig)


def named(x, ret, status, v, entry):
    z = x  # noqa: F841


def test_entry_parameters_carry_the_python_names():
    # numba-cuda's spelling (%"x", pieces of an aggregate %"a.0", ...); the wrapper's own values start with
    # '.', so parameters named ret, status or v do not collide with them.
    # (its first block is .entry, so a parameter named entry is no block name either).
    sig = "void(int32, int32, int32, int32, int32)"
    # An optimised kernel is its own entry: a name its body uses itself (the block entry, %t<N>, %a<N>,
    # %p<N>, %retptr) keeps the emitter's %p<N> there.
    for options, last in (({"debug": True, "opt": False}, '%"entry"'), ({}, "%p4")):
        k = cubridge.jit(sig, **options)(named)
        assert re.search(r'define void @.*\(i32 %"x", i32 %"ret", i32 %"status", i32 %"v", i32 ' + last + r'\)',
                         k.inspect_llvm(sig)), k.inspect_llvm(sig)
        assert ".entry" in k.inspect_asm(sig)


def callee(x):
    x[0] += 1


def test_lineinfo_of_an_inlined_device_function():
    # numba-cuda's shape: one DISubprogram for the kernel and one for the helper, the helper inlined (no
    # .weak .func left) and its lines marked inlined_at in the PTX.
    helper = cubridge.jit(device=True, lineinfo=True)(callee)

    def caller(x):
        x[0] = 1
        helper(x)
    k = cubridge.jit(lineinfo=True)(caller)
    k.compile(SIG)
    llvm, ptx = k.inspect_llvm(SIG), k.inspect_asm(SIG)
    assert llvm.count("distinct !DISubprogram") == 2, llvm
    assert not re.search(r"^\.weak\s+\.func", ptx, re.M)
    assert any(re.search(r"\.loc\s+[0-9]+\s+[0-9]+\s+[0-9]+", ln) and "inlined_at" in ln for ln in ptx.splitlines())
