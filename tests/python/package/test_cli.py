"""The `cubridge` command line: `compile` (every option, defaults, and every bad input ending in a message and
an exit status, never a traceback), `info` and `--version`. CPU only."""
import os
import subprocess
import sys

import pytest

from cubridge._cli import cmd_compile as cli_compile


def flat(ptx):
    return " ".join(ptx.split()).replace("( ", "(").replace(" )", ")")


def run_cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "cubridge", *args], capture_output=True, text=True,
                          env={**os.environ}, **kw)


def test_cli_compile(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("def mul(x, y):\n    return x * y\n")
    out = tmp_path / "mul.ptx"
    assert cli_compile([f"{src}:mul", "--sig", "float32(float32, float32)", "--abi-name", "mul_f32",
                        "--cc", "9.0", "-o", str(out)]) == 0
    assert ") mul_f32(.param .b32 mul_f32_param_0" in flat(out.read_text())
    assert cli_compile([f"{src}:mul", "--sig", "(int32, int32)", "--abi", "numba", "--output", "ltoir", "-O0",
                        "-o", str(tmp_path / "mul.ltoir")]) == 0
    assert (tmp_path / "mul.ltoir").stat().st_size > 100


def test_cli_compile_errors(tmp_path, capsys):
    src = tmp_path / "bad.py"
    src.write_text("def f(x):\n    return {x}\n")
    assert cli_compile([f"{src}:f", "--sig", "(int32,)", "-o", str(tmp_path / "f.ptx")]) == 1
    assert f"{src}:2:12: a dict or set" in capsys.readouterr().err
    assert cli_compile(["nofunc.py", "--sig", "(int32,)", "-o", "x"]) == 2
    assert "expected FILE.py:FUNC" in capsys.readouterr().err


def test_cli_runs_as_a_process(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x + 1\n")
    r = subprocess.run([sys.executable, "-m", "cubridge", "compile", f"{src}:f", "--sig", "(int32,)", "-o", "-"],
                       capture_output=True, text=True, env={**os.environ})
    assert r.returncode == 0, r.stderr
    assert ".visible .func" in r.stdout


def test_output_defaults_to_the_function_name_in_the_current_directory(tmp_path, monkeypatch):
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x + 1\n")
    monkeypatch.chdir(tmp_path)
    assert cli_compile([f"{src}:f", "--sig", "(int32,)"]) == 0
    assert ".visible .func" in (tmp_path / "f.ptx").read_text()
    assert cli_compile([f"{src}:f", "--sig", "(int32,)", "--output", "ltoir"]) == 0
    assert (tmp_path / "f.ltoir").stat().st_size > 100


def test_a_byte_order_mark_is_not_part_of_the_source(tmp_path):
    src = tmp_path / "bom.py"
    src.write_bytes(b"\xef\xbb\xbfdef f(x):\n    return x * 2\n")
    assert cli_compile([f"{src}:f", "--sig", "(int32,)", "-o", str(tmp_path / "f.ptx")]) == 0


@pytest.mark.parametrize("make, message", [
    (lambda d: (d / "latin1.py", b"def f(x):\n    return x  # caf\xe9\n"), r": not UTF-8 text \(byte 29: b'\\xe9'\)"),
    (lambda d: (d, None), r": not a regular file"),
    (lambda d: ("/dev/zero", None), r"/dev/zero: not a regular file"),
    (lambda d: (d / "missing.py", None), r"No such file or directory"),
], ids=["not-utf8", "directory", "dev-zero", "missing"])
def test_unreadable_sources_are_named(tmp_path, capsys, make, message):
    import re
    path, data = make(tmp_path)
    if data is not None:
        path.write_bytes(data)
    assert cli_compile([f"{path}:f", "--sig", "(int32,)", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"cubridge compile: cannot read .*" + message, err), err


def test_unwritable_outputs_are_named(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x + 1\n")
    assert cli_compile([f"{src}:f", "--sig", "(int32,)", "-o", str(tmp_path)]) == 1
    assert "is a directory; give a file name" in capsys.readouterr().err
    assert cli_compile([f"{src}:f", "--sig", "(int32,)", "-o", str(tmp_path / "no" / "such" / "dir.ptx")]) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "No such file or directory" in err, err


@pytest.mark.parametrize("cc", ["9", "9.0", "90", "sm_90"])
def test_cc_spellings(tmp_path, cc):
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x + 1\n")
    assert cli_compile([f"{src}:f", "--sig", "(int32,)", "--cc", cc, "-o", str(tmp_path / "f.ptx")]) == 0
    assert ".target sm_90" in (tmp_path / "f.ptx").read_text()


def test_version_and_help_show_defaults():
    import cubridge
    r = run_cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"cubridge {cubridge.__version__}"
    h = run_cli("compile", "--help")
    assert h.returncode == 0
    for text in ("--abi {c,numba}", "(default: c, and numba with --kernel", "--output {ptx,ltoir}", "(default: ptx)", "--fastmath",
                 "FUNC.ptx or FUNC.ltoir"):
        assert text in " ".join(h.stdout.split()), text
    # Each default said once, none for a required option or a flag.
    assert "(default: None)" not in h.stdout and "(default: False)" not in h.stdout, h.stdout
    for option in h.stdout.split("\n  -")[1:]:
        assert option.count("default") <= 1, option


def test_info_into_a_closed_pipe_ends_quietly():
    r = subprocess.run(f"{sys.executable} -m cubridge info | head -c 1", shell=True, capture_output=True, text=True)
    assert "BrokenPipeError" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_unicode_function_names_are_normalised_as_python_does(tmp_path, capsys):
    src = tmp_path / "u.py"
    src.write_text("def \U0001d4cd(v):\n    return v + 1\n", encoding="utf-8")
    assert cli_compile([f"{src}:\U0001d4cd", "--sig", "(int32,)", "-o", str(tmp_path / "x.ptx")]) == 0
    assert ") x(" in flat((tmp_path / "x.ptx").read_text())


def test_a_kernel_takes_the_numba_abi_and_advice_is_given_in_flags(tmp_path, capsys):
    src = tmp_path / "k.py"
    src.write_text("import cubridge\n\ndef k(a):\n    a[cubridge.grid(1)] = 1.0\n\ndef r(x):\n    return x\n")
    out = tmp_path / "k.ptx"
    assert cli_compile([f"{src}:k", "--sig", "void(float32[:])", "--kernel", "-o", str(out)]) == 0  # --abi numba
    assert ".entry " in out.read_text()
    # Without --kernel: a C-ABI device function, its array flattened as numba-cuda's C ABI passes one
    # (meminfo, parent, nitems, itemsize, data, shape, strides: 7 parameters for 1-D).
    assert cli_compile([f"{src}:k", "--sig", "void(float32[:])", "-o", str(out)]) == 0
    assert ".visible .func k(" in out.read_text() and "k_param_6" in out.read_text()
    assert cli_compile([f"{src}:k", "--sig", "void(float32[:])", "--kernel", "--abi", "c", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "a kernel (--kernel) takes the Numba ABI" in err and "compile it with --abi numba, or compile a device " \
           "function without --kernel" in err, err
    assert cli_compile([f"{src}:r", "--sig", "(int32,)", "--kernel", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "a kernel (--kernel) must not return a value" in err and "compile it without --kernel" in err, err
    assert "device=" not in err and "abi=" not in err
