"""cubridge's errors and warnings as numba's classes in drop-in use (cubridge._numba_diagnostics), compile-only:
a CompileError is also numba's TypingError once numba is imported (and only then), numba's warning classes
for debug=True with opt=True and for small grids (as numba's config asks), and the error paths numba users
script against (an unconfigured launch is a ValueError). Rules: the module's docstring."""
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import cubridge
from cubridge import _numba_diagnostics


def unknown_call(x):
    x[0] = floor(1.5)  # noqa: F821  (not defined: a compile error)


def noop(x):
    pass


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300)


def test_without_numba_a_compile_error_is_cubridges_alone_and_numba_stays_unimported():
    out = run('''
        import sys, cubridge
        def f(x):
            x[0] = floor(1.5)
        try:
            cubridge.compile_ptx(f, "void(float32[::1])")
        except cubridge.CompileError as e:
            print(type(e) is cubridge.CompileError, isinstance(e, ValueError), "numba" in sys.modules)
        ''')
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "False"]


def test_with_numba_imported_a_compile_error_is_also_numbas_typing_error():
    errors = pytest.importorskip("numba.core.errors")
    with pytest.raises(errors.TypingError, match="name 'floor' is not defined") as raised:
        cubridge.compile_ptx(unknown_call, "void(float32[::1])")
    e = raised.value
    assert isinstance(e, cubridge.CompileError) and isinstance(e, ValueError) and isinstance(e, cubridge.Error)
    assert type(e).__name__ == "CompileError" and e.msg == str(e)  # numba's NumbaError attribute
    assert raised.traceback  # the original traceback is kept


def test_the_jit_dispatchers_compile_raises_numbas_typing_error_too():
    errors = pytest.importorskip("numba.core.errors")
    d = cubridge.jit(unknown_call)
    with pytest.raises(errors.TypingError, match="floor"):
        d.compile("void(float32[::1])")


def test_joined_classes_are_made_once_and_keep_cubridges_name():
    errors = pytest.importorskip("numba.core.errors")
    a = _numba_diagnostics.joined_class(cubridge.CompileError, "TypingError")
    assert a is _numba_diagnostics.joined_class(cubridge.CompileError, "TypingError")
    assert issubclass(a, cubridge.CompileError) and issubclass(a, errors.TypingError)
    assert (a.__module__, a.__qualname__) == (cubridge.CompileError.__module__, cubridge.CompileError.__qualname__)
    w = _numba_diagnostics.performance_warning()
    assert issubclass(w, cubridge.PerformanceWarning) and issubclass(w, errors.NumbaPerformanceWarning)
    assert _numba_diagnostics.invalid_config_warning() is errors.NumbaInvalidConfigWarning  # numba's own class


def test_other_exceptions_pass_through_unchanged():
    e = ValueError("x")
    assert _numba_diagnostics.as_numba_error(e) is e


def test_a_class_numba_does_not_define_leaves_cubridges():
    assert _numba_diagnostics.joined_class(cubridge.CompileError, "NoSuchNumbaClass") is cubridge.CompileError


def test_without_numba_the_jit_warnings_are_cubridges_own():
    out = run('''
        import sys, warnings, cubridge
        def foo(x):
            pass
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cubridge.jit(debug=True)
            cubridge.jit(debug=True, lineinfo=True, opt=False)
            ns = {}
            exec("def bar(x):\\n    x[0] = 1\\n", {}, ns)
            cubridge.jit(debug=True, opt=False)(ns["bar"]).compile("void(int32[::1])")
        print([x.category.__name__ for x in w], "numba" in sys.modules)
        ''')
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("]")[0] + "]" == "['InvalidConfigWarning', 'InvalidConfigWarning', 'DebugInfoWarning']"
    assert out.stdout.split()[-1] == "False"


def test_debug_with_opt_warns_numbas_invalid_config_warning():
    errors = pytest.importorskip("numba.core.errors")
    with pytest.warns(errors.NumbaInvalidConfigWarning, match="not supported by CUDA"):
        cubridge.jit(debug=True)
    with pytest.warns(errors.NumbaInvalidConfigWarning, match="set debug=False or opt=False"):
        cubridge.jit(debug=True, opt=True)(noop)


def test_debug_with_lineinfo_warns_that_they_are_exclusive():
    errors = pytest.importorskip("numba.core.errors")
    with pytest.warns(errors.NumbaInvalidConfigWarning, match="debug and lineinfo are mutually exclusive: debug=True"):
        cubridge.jit(debug=True, lineinfo=True, opt=False)


@pytest.mark.parametrize("options", [dict(debug=True, opt=False), dict(), dict(opt=True), dict(debug=False),
                                     dict(lineinfo=True), dict(lineinfo=True, debug=False)])
def test_no_config_warning_without_debug_and_opt_together(options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cubridge.jit(**options)(noop)


def test_an_unconfigured_launch_is_a_value_error_naming_the_kernel():
    for d in (cubridge.jit(noop), cubridge.jit("void(int32)")(noop)):
        with pytest.raises(ValueError, match="kernel 'noop': the launch configuration was not specified; launch it "
                                             r"as kernel\[griddim, blockdim\]"):
            d(0)


@pytest.fixture
def numba_program(monkeypatch):
    """A numba-cuda program served by cubridge (what install_numba() marks): its config applies to launches."""
    pytest.importorskip("numba.cuda")
    monkeypatch.setattr(cubridge._numba_diagnostics, "_numba_program", True)


@pytest.fixture
def numba_config(numba_program):
    config = pytest.importorskip("numba.core.config")
    saved = config.CUDA_LOW_OCCUPANCY_WARNINGS, config.DISABLE_PERFORMANCE_WARNINGS
    yield config
    config.CUDA_LOW_OCCUPANCY_WARNINGS, config.DISABLE_PERFORMANCE_WARNINGS = saved


@pytest.mark.parametrize("griddim, blocks", [(1, 1), ((4, 2), 8), ((2, 2, 31), 124), ([127], 127)])
def test_a_small_grid_warns_as_numba_does_when_its_config_asks(numba_config, griddim, blocks):
    numba_config.CUDA_LOW_OCCUPANCY_WARNINGS, numba_config.DISABLE_PERFORMANCE_WARNINGS = 1, 0
    errors = pytest.importorskip("numba.core.errors")
    d = cubridge.jit(noop)
    with pytest.warns(errors.NumbaPerformanceWarning, match=f"Grid size {blocks} will likely .+ low occupancy"):
        d[griddim, 32]
    with pytest.warns(cubridge.PerformanceWarning):  # cubridge's class catches numba's warning too
        d[1, 1]


@pytest.mark.parametrize("switches", [(0, 0), (1, 1)])
def test_no_grid_warning_when_numbas_config_is_off_or_grids_are_large(numba_config, switches):
    numba_config.CUDA_LOW_OCCUPANCY_WARNINGS, numba_config.DISABLE_PERFORMANCE_WARNINGS = switches
    d = cubridge.jit(noop)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d[1, 1]
        numba_config.CUDA_LOW_OCCUPANCY_WARNINGS, numba_config.DISABLE_PERFORMANCE_WARNINGS = 1, 0
        d[128, 1]
        d[(16, 8), 1]


@pytest.mark.parametrize("config, error, message", [
    (((1, 2, 3, 4), (5, 6)), ValueError, r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"),
    (((1, 2), (3, 4, 5, 6)), ValueError, r"blockdim must be a sequence of 1, 2 or 3 integers, got \[3, 4, 5, 6\]"),
    ((2.0, 3), TypeError, r"griddim must be a sequence of integers, got \[2.0\]"),
    ((2, 3.0), TypeError, r"blockdim must be a sequence of integers, got \[3.0\]"),
    ((1,), ValueError, r"must specify at least the griddim and blockdim: kernel\[griddim, blockdim\]"),
    ((1, 1, 0, 0, 0), ValueError, r"must specify at least the griddim and blockdim.*got \(1, 1, 0, 0, 0\)"),
])
def test_a_numba_cuda_program_gets_numbas_configuration_errors_at_the_subscript(numba_config, config, error,
                                                                                   message):
    d = cubridge.jit(noop)  # numba-cuda's test_errors: raised by kernel[config] alone
    with pytest.raises(error, match=message):
        d[config]


def test_a_program_that_only_imports_numba_keeps_cubridges_launch():
    out = run('''
        import warnings, cubridge, numba.cuda  # numba imported beside cubridge, no drop-in: cubridge's own program
        warnings.simplefilter("error")
        def noop(x):
            pass
        cubridge.jit(noop)[1, 1]
        print("quiet")
        ''')
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["quiet"]


def test_forall_with_a_negative_task_count_is_numbas_value_error():
    with pytest.raises(ValueError, match="kernel 'noop': Can't create ForAll with negative task count: -1"):
        cubridge.jit(noop).forall(-1)


def test_too_many_launch_bounds_are_counted_in_numbas_words():
    with pytest.raises(ValueError, match=r"Got 4 launch bounds: \(128, 2, 4, 8\); launch_bounds takes 1 to 3 items"):
        cubridge.jit("void()", launch_bounds=(128, 2, 4, 8))


def simple_cuda(A, B):
    i = cubridge.grid(1)
    B[i] = A[i] + 1.5


@pytest.fixture
def dump_config(numba_program):
    config = pytest.importorskip("numba.core.config")
    saved = config.DUMP_LLVM, config.DUMP_ASSEMBLY
    yield config
    config.DUMP_LLVM, config.DUMP_ASSEMBLY = saved


@pytest.mark.parametrize("switch, banner, text", [("DUMP_LLVM", "--LLVM DUMP simple_cuda", '!"kernel", i32 1'),
                                                  ("DUMP_ASSEMBLY", "--ASSEMBLY simple_cuda",
                                                   "Generated by NVIDIA NVVM Compiler")])
def test_numbas_dump_switches_print_the_ir_or_the_ptx_of_each_kernel_compiled(dump_config, capsys, switch, banner,
                                                                              text):
    dump_config.DUMP_LLVM = dump_config.DUMP_ASSEMBLY = False
    setattr(dump_config, switch, True)
    cubridge.jit("void(float64[:], float64[:])")(simple_cuda)
    out, err = capsys.readouterr()
    assert banner in out and text in out and out.rstrip().endswith("=" * 80) and not err
    other = "--ASSEMBLY" if switch == "DUMP_LLVM" else "--LLVM DUMP"
    assert other not in out


def test_no_dump_without_numbas_switches(dump_config, capsys):
    dump_config.DUMP_LLVM = dump_config.DUMP_ASSEMBLY = False
    cubridge.jit("void(float64[:], float64[:])")(simple_cuda)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("options, message", [
    (dict(abi="fastcall"), "Unsupported ABI: fastcall; abi must be 'c' or"),
    (dict(output="illegal"), "Unsupported output type: illegal; output must"),
])
def test_an_unsupported_abi_or_output_is_a_value_error_and_numbas_not_implemented_error(options, message):
    for error in (ValueError, NotImplementedError):
        with pytest.raises(error, match=message):
            cubridge.compile(noop, "void(int32)", **options)


@pytest.mark.parametrize("value, message", [(150, "Carveout must be between -1 and 100"),
                                            (-2, "Carveout must be between -1 and 100"),
                                            (101, "Carveout must be between -1 and 100"),
                                            ("InvalidOption", "Invalid carveout value: InvalidOption; "
                                                              "shared_memory_carveout takes 'MaxL1'"),
                                            (1.5, "Invalid carveout value: 1.5"), (True, "Invalid carveout value")])
def test_a_bad_shared_memory_carveout_is_refused_in_numbas_words(value, message):
    for sigs in ((), ("void(int32[:])",)):
        with pytest.raises(ValueError, match=message):
            cubridge.jit(*sigs, shared_memory_carveout=value)


@pytest.mark.parametrize("value, percent", [("MaxL1", 0), ("maxshared", 100), ("default", -1), (0, 0), (50, 50),
                                            (100, 100), (-1, -1)])
def test_shared_memory_carveout_values_are_numbas(value, percent):
    assert cubridge.jit(shared_memory_carveout=value)(noop)._options.shared_memory_carveout == percent


def test_shared_memory_carveout_is_a_kernel_option():
    with pytest.raises(ValueError, match="shared_memory_carveout is a kernel option"):
        cubridge.jit(device=True, shared_memory_carveout=50)


def exec_function():
    namespace = {}
    exec("def foo(x):\n    x[0] = 1\n", {}, namespace)  # Python keeps no text for it
    return namespace["foo"]


def test_debug_without_source_text_warns_once_naming_the_function():
    pytest.importorskip("numba.core.errors")
    # the class numba itself warns with: numba-cuda's own where numba.cuda is imported, else numba's
    errors = sys.modules.get("numba.cuda.core.errors") or sys.modules["numba.core.errors"]
    foo = exec_function()
    d = cubridge.jit(debug=True, opt=False)(foo)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d.compile("void(int32[::1])")
        d.compile("void(int32[::1])")  # compiled once: warned once
    assert len(w) == 1 and w[0].category is errors.NumbaDebugInfoWarning  # numba's tests compare the category
    assert f"Could not find source for function: {foo}. Debug line information may be inaccurate" in \
        str(w[0].message)


def test_no_source_warning_without_debug_or_with_source_text():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cubridge.jit(exec_function()).compile("void(int32[::1])")
        cubridge.jit(debug=True, opt=False)(noop).compile("void(int32)")


def test_specialize_takes_types_for_values():
    """numba-cuda's tests specialize with types (f.specialize(float32[::1])): each stands for a value of it."""
    numba = pytest.importorskip("numba")
    d = cubridge.jit(noop)
    loaded = []
    d._kernel = lambda sig: loaded.append(sig) or sig  # the loading step, replaced (no GPU here)
    assert d.specialize(numba.float32[::1]).args == [cubridge.float32[::1]]
    assert d.specialize(cubridge.int32[:]).args == [cubridge.int32[:]]
    assert len(d.specializations) == 2 and len(loaded) == 2


def test_a_joined_error_pickles_as_cubridges_class():
    import pickle
    errors = pytest.importorskip("numba.core.errors")
    with pytest.raises(errors.TypingError) as raised:
        cubridge.compile_ptx(unknown_call, "void(float32[::1])")
    back = pickle.loads(pickle.dumps(raised.value))
    assert type(back) is cubridge.CompileError and back.args == raised.value.args


def test_a_refused_launch_configuration_is_a_value_error_naming_the_driver_error():
    assert issubclass(cubridge.LaunchConfigError, ValueError)
    assert issubclass(cubridge.LaunchConfigError, cubridge.Error)
    assert cubridge.LaunchConfigError.driver_error == "CUDA_ERROR_INVALID_VALUE"


def test_the_launch_error_class_must_be_cubridges_or_a_subclass():
    with pytest.raises(TypeError, match="must be a subclass of cubridge.LaunchConfigError"):
        cubridge._core._set_launch_config_error(ValueError)
    with pytest.raises(TypeError, match="must be a subclass of cubridge.LaunchConfigError"):
        cubridge._core._set_launch_config_error("CUDAError")


def test_without_cuda_core_the_launch_error_is_cubridges_own():
    out = run('''
        import sys, cubridge
        from cubridge import _numba_diagnostics
        print(_numba_diagnostics.launch_config_error() is cubridge.LaunchConfigError,
              "cuda.core._utils.cuda_utils" in sys.modules)
        ''')
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_with_cuda_core_imported_the_launch_error_is_also_its_cuda_error():
    cuda_utils = pytest.importorskip("cuda.core._utils.cuda_utils")
    cls = _numba_diagnostics.launch_config_error()
    assert issubclass(cls, cubridge.LaunchConfigError) and issubclass(cls, cuda_utils.CUDAError)
    assert cls is _numba_diagnostics.launch_config_error()  # made once
    error = cls("blockdim 256: 256 threads per block exceed the limit of 128; the driver refuses such a launch "
                "with CUDA_ERROR_INVALID_VALUE")
    assert isinstance(error, ValueError) and "CUDA_ERROR_INVALID_VALUE" in str(error)
