"""The rules of bench/bench_compile_corpus.py's translation and rows and bench/peer_process.py's child, on the
CPU with cubridge itself as the receiving compiler (numba-cuda and numba-cuda-mlir are not needed):
- respell binds cubridge and another compiler's cuda module to the receiving one, makes plain helpers of the
  kernel's module and tuples of them its device functions, ends on recursion, and the result compiles;
- peer_signature types argument-typed cases with the peer's typeof, drops `const ` from strings and converts
  type objects;
- peer_rows computes over the kernels both compile and says why a peer was not measured;
- run_child returns the child's last JSON line, or why it failed; mlir_env says why the peer is missing."""
import os
import sys

import pytest

import cubridge

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench")
sys.path.insert(0, BENCH)
import bench_compile_corpus as bcc  # noqa: E402
import peer_process  # noqa: E402

CC = (9, 0)


def twice(v):
    return 2.0 * v


def countdown(n):
    if n <= 0:
        return 0
    return countdown(n - 1) + 1


OPS = (twice, twice)


def k_cubridge(x):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        x[i] = twice(x[i])


def k_recursive(x):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        x[i] = countdown(3)


def k_tuple(x):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        x[i] = OPS[0](x[i]) + OPS[1](x[i])


def device_type():
    return type(cubridge.jit(device=True)(lambda: None))


def test_respell_binds_cubridge_and_helpers_to_the_receiving_compiler():
    out = bcc.respell(k_cubridge, cubridge)
    assert out.__globals__["cubridge"] is cubridge
    assert isinstance(out.__globals__["twice"], device_type())
    assert k_cubridge.__globals__["twice"] is twice  # the module's own globals are untouched
    assert ".entry" in cubridge.compile_ptx(out, "void(float32[::1])", cc=CC)[0]


def test_respell_binds_another_compilers_cuda_module():
    numba_cuda = pytest.importorskip("numba.cuda")

    def k(x):
        i = cuda.grid(1)  # noqa: F821 - bound below, as a numba-cuda kernel's module binds it
        x[i] = 1.0

    k.__globals__["cuda"] = numba_cuda
    try:
        assert bcc.respell(k, cubridge).__globals__["cuda"] is cubridge
    finally:
        del k.__globals__["cuda"]


def test_respell_ends_on_recursion_and_the_recursive_helper_calls_itself():
    out = bcc.respell(k_recursive, cubridge)
    helper = out.__globals__["countdown"]
    assert isinstance(helper, device_type())
    assert helper.py_func.__globals__["countdown"] is helper
    assert ".entry" in cubridge.compile_ptx(out, "void(int64[::1])", cc=CC)[0]


def test_respell_makes_a_tuple_of_helpers_a_tuple_of_device_functions():
    out = bcc.respell(k_tuple, cubridge)
    ops = out.__globals__["OPS"]
    assert isinstance(ops, tuple) and len(ops) == 2
    assert all(isinstance(f, device_type()) for f in ops) and ops[0] is ops[1]
    assert ".entry" in cubridge.compile_ptx(out, "void(float32[::1])", cc=CC)[0]


def test_peer_signature_rules():
    sig = lambda ret, *args: (ret, args)  # noqa: E731 - the peer's signature(), as a plain tuple
    assert bcc.peer_signature(None, lambda: [1, 2.0], type, sig, "none", None) == ("none", (int, float))
    assert bcc.peer_signature("void(const float32[::1], int64)", None, type, sig, "none", None) == \
        "void(float32[::1], int64)"

    class Sig:
        args = ("f4", "i8")

    assert bcc.peer_signature(Sig(), None, type, sig, "none", str.upper) == ("none", ("F4", "I8"))


def collect():
    rows = []

    def row(case, unit, ours, peer=None, peer_value=None, target=None):
        rows.append({"case": case, "unit": unit, "ours": ours, "peer": peer, "peer_value": peer_value,
                     "target": target})
    return rows, row


def test_peer_rows_are_over_the_kernels_both_compile():
    rows, row = collect()
    ours = {"a": 1.0, "b": 2.0, "c": None, "d": 3.0}
    theirs = {"a": 4.0, "b": None, "c": 1.0, "d": 6.0}
    bcc.peer_rows(row, "peer", ours, theirs, {"b": "TypingError: no"}, None)
    ratio, medians, refused, gap = rows
    assert ratio["unit"] == "ratio" and ratio["ours"] == pytest.approx(0.375) and "2 kernels" in ratio["case"]
    assert (medians["ours"], medians["peer_value"]) == (2.0, 5.0)
    assert (refused["ours"], refused["peer_value"]) == (1.0, 1.0) and "of 4" in refused["case"]
    assert gap["ours"] == 1.0 and gap["target"] == 0.0


def test_peer_rows_say_why_a_peer_was_not_measured():
    rows, row = collect()
    bcc.peer_rows(row, "peer", {"a": 1.0, "b": None}, None, {}, "peer not importable: X")
    assert rows and all("not measured: peer not importable: X" in r["case"] for r in rows)
    assert rows[0]["ours"] is None and rows[2]["ours"] == 1.0


def test_run_child_returns_the_last_json_line(tmp_path):
    script = tmp_path / "child.py"
    script.write_text("import json, sys\nprint('noise')\nprint(json.dumps({'args': sys.argv[1:]}))\n")
    assert peer_process.run_child(str(script), ["--peer", "x"], dict(os.environ)) == ({"args": ["--peer", "x"]}, None)


def test_run_child_says_why_it_failed(tmp_path):
    script = tmp_path / "child.py"
    script.write_text("import sys\nprint('cannot compile here: no GPU', file=sys.stderr)\nsys.exit(2)\n")
    value, why = peer_process.run_child(str(script), ["--peer", "mlir"], dict(os.environ))
    assert value is None and "exit 2" in why and "cannot compile here: no GPU" in why


def test_mlir_env_says_why_numba_cuda_mlir_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("CUBRIDGE_BENCH_MLIR", str(tmp_path))  # an empty folder: nothing to import there
    try:
        import numba_cuda_mlir  # noqa: F401
        pytest.skip("numba-cuda-mlir is installed here")
    except ImportError:
        pass
    env, why = peer_process.mlir_env("extra")
    assert why.startswith("numba-cuda-mlir not importable") and "numba_cuda_mlir" in why
    assert env["PYTHONPATH"].split(os.pathsep)[:2] == [str(tmp_path), "extra"]


def test_corpus_names_are_unique_so_no_case_replaces_another():
    # The per-kernel tables are keyed by name: a case id shared by cases of other signatures is told apart.
    names = [name for name, *_ in bcc.corpus()]
    assert len(names) == len(set(names))
    assert any("#2" in name for name in names)  # the corpus has such ids today; each still measured
