"""Drop-in mode (cubridge.install_numba(), CUBRIDGE_NUMBA=1): a numba-cuda program's numba.cuda.jit and
compile* are served by cubridge, calls from numba's own modules keep numba's, and with the variable unset the
start-up file imports nothing and numba is untouched. Each case runs in its own interpreter (compile-only)."""
import pathlib
import subprocess
import sys
import textwrap

import pytest

import cubridge

pytest.importorskip("numba.cuda")

_INSTALLED = pathlib.Path(cubridge.__file__).parent.parent / "cubridge-numba.pth"
PTH = _INSTALLED if _INSTALLED.exists() else pathlib.Path(__file__).parents[3] / "python" / "cubridge-numba.pth"

# A small numba-cuda program: it knows nothing of cubridge.
APP = textwrap.dedent('''
    import numba
    from numba import cuda

    @cuda.jit
    def store(x):
        x[0] = 1

    def add(a, b):
        return a + b

    compiled = store.compile("void(float32[::1])")
    print("kernel:", type(store).__module__, type(store).__name__)
    print("asm:", ".entry" in store.inspect_asm(store.signatures[0]))
    ptx, resty = cuda.compile_ptx(add, (numba.float32, numba.float32), device=True)
    print("compile_ptx:", ".func" in ptx, resty, isinstance(resty, numba.types.Type))
''')


def run(code: str, env_value: str | None, tmp_path) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter whose site directory holds the start-up file (as site-packages does)."""
    import os
    site_dir = tmp_path / "site"
    site_dir.mkdir(exist_ok=True)
    (site_dir / PTH.name).write_text(PTH.read_text())
    env = dict(os.environ)
    env.pop("CUBRIDGE_NUMBA", None)
    if env_value is not None:
        env["CUBRIDGE_NUMBA"] = env_value
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    prelude = f"import site; site.addsitedir({str(site_dir)!r})\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, env=env,
                          timeout=300)


def test_the_variable_serves_numba_cuda_jit_and_compile_ptx_with_cubridge(tmp_path):
    out = run(APP, "1", tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["kernel: cubridge._kernels Dispatcher", "asm: True",
                                       "compile_ptx: True float32 True"]


def test_unset_or_0_the_start_up_file_imports_nothing_and_numba_is_untouched(tmp_path):
    code = textwrap.dedent('''
        import sys
        assert "cubridge" not in sys.modules, "the start-up file imported cubridge"
        from numba import cuda
        import numba.cuda.decorators, numba.cuda.compiler
        assert "cubridge" not in sys.modules
        assert cuda.jit is numba.cuda.decorators.jit and cuda.compile_ptx is numba.cuda.compiler.compile_ptx
        print("untouched")
    ''')
    for value in (None, "", "0"):
        out = run(code, value, tmp_path)
        assert out.returncode == 0 and out.stdout.split() == ["untouched"], (value, out.stderr)


def test_a_value_neither_1_nor_0_is_named_and_changes_nothing(tmp_path):
    out = run("from numba import cuda; import numba.cuda.decorators as d; print(cuda.jit is d.jit)", "yes", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "CUBRIDGE_NUMBA='yes' is not valid; expected 1" in out.stderr and out.stdout.split() == ["True"]


@pytest.mark.parametrize("when", ["before numba.cuda is imported", "after numba.cuda is imported"])
def test_install_numba_routes_whenever_it_is_called(when, tmp_path):
    first = "import cubridge; cubridge.install_numba(); cubridge.install_numba()\n"
    code = first + APP if when.startswith("before") else "import numba.cuda\n" + first + APP
    out = run(code, None, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "kernel: cubridge._kernels Dispatcher"


def test_numbas_own_modules_keep_numbas_jit(tmp_path):
    code = textwrap.dedent('''
        import cubridge; cubridge.install_numba()
        from numba import cuda

        def f(x):
            x[0] = 1

        mine = cuda.jit(f)
        scope = {"__name__": "numba.cuda.vectorizers", "cuda": cuda, "f": f}
        exec("theirs = cuda.jit(f)", scope)
        print(type(mine).__module__, type(scope["theirs"]).__module__.startswith("numba."))
    ''')
    out = run(code, None, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["cubridge._kernels", "True"]


def test_debug_and_opt_not_given_take_numbas_config_defaults():
    """numba-cuda reads debug / opt left out (or None) from its config (NUMBA_CUDA_DEBUGINFO, NUMBA_OPT)."""
    from cubridge import _numba_dropin
    config = pytest.importorskip("numba.core.config")
    saved = config.CUDA_DEBUGINFO_DEFAULT, config.OPT
    try:
        config.CUDA_DEBUGINFO_DEFAULT, config.OPT = 0, 3
        assert _numba_dropin._numba_defaults({}) == {"debug": False, "opt": True}
        config.CUDA_DEBUGINFO_DEFAULT, config.OPT = 1, 0
        assert _numba_dropin._numba_defaults({"debug": None, "opt": None}) == {"debug": True, "opt": False}
        assert _numba_dropin._numba_defaults({"debug": False, "opt": True, "device": True}) == \
            {"debug": False, "opt": True, "device": True}
    finally:
        config.CUDA_DEBUGINFO_DEFAULT, config.OPT = saved


def test_a_numba_program_meets_numbas_errors_and_warnings(tmp_path):
    """In drop-in mode the program's own except/warning clauses for numba's classes catch cubridge's."""
    code = textwrap.dedent('''
        import warnings
        import numpy as np
        from numba import cuda
        try:  # numba-cuda's own classes where it is installed (it raises and warns with them), else numba's
            from numba.cuda.core.errors import NumbaInvalidConfigWarning, TypingError
        except ImportError:
            from numba.core.errors import NumbaInvalidConfigWarning, TypingError

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cuda.jit(debug=True)
        print(any(issubclass(x.category, NumbaInvalidConfigWarning) for x in w))

        @cuda.jit
        def bad(x):
            x[0] = floor(1.5)

        try:
            bad.compile("void(float32[::1])")
        except TypingError as e:
            print("TypingError", "floor" in str(e))

        @cuda.jit(["(int64[::1], int64, int64)", "(float64[::1], float64, float64)"])
        def add(r, x, y):
            r[0] = x + y

        for config, error in ((((1, 2, 3, 4), 1), ValueError), ((2.0, 1), TypeError)):
            try:
                add[config]
            except error as e:
                print(type(e).__name__, "must be a sequence" in str(e))
        try:
            add[128, 1](np.zeros(1, np.complex128), 1j, 1j)
        except TypeError as e:
            print("TypeError", str(e).startswith("No matching definition"))
    ''')
    out = run(code, "1", tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["True", "TypingError True", "ValueError True", "TypeError True",
                                       "TypeError True"]


def test_compile_result_types_become_numba_type_objects_by_structure():
    """Drop-in compile() returns numba's type objects for cubridge's result types, built from the Type's structure
    (numbers, arrays, tuples, none; no spelling is parsed): numba's UniTuple for equal elements."""
    types = pytest.importorskip("numba.core.types")
    from cubridge._numba_dropin import _numba_type
    assert _numba_type(cubridge.float32) == types.float32
    assert _numba_type(cubridge.UniTuple(cubridge.float64, 2)) == types.UniTuple(types.float64, 2)
    assert _numba_type(cubridge.Tuple(cubridge.int32, cubridge.float64)) == types.Tuple((types.int32, types.float64))
    assert _numba_type(cubridge.float32[:, ::1]) == types.Array(types.float32, 2, "C")
    assert _numba_type(None) == types.none
