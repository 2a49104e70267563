"""The test command's log stays short: CTest's lines for tests that passed or skipped are dropped
(scripts/lib/quiet_ctest.sh), and pytest ends with one line per skip reason and its count (conftest.py), so
a failure stands out. Checked on lines in the form ctest and pytest really print them."""
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]

CTEST_LOG = """\
Internal ctest changing into directory: /src/build/test-cpp
Test project /src/build/test-cpp
        Start   1: xla.c_header_compiles_as_c99
  1/277 Test   #1: xla.c_header_compiles_as_c99 ......................................   Passed    0.01 sec
  9/277 Test   #9: driver.GpuDevice.EnumerationIsConsistent .............................***Skipped   0.03 sec
 12/277 Test  #12: array.Dtype.ParsesEveryTypestr ....................................***Failed    0.02 sec
array/test_dtype.cpp:40: Failure
Expected equality of these values:

99% tests passed, 1 tests failed out of 277

Total Test time (real) =  15.69 sec

The following tests did not run:
\t  9 - driver.GpuDevice.EnumerationIsConsistent (Skipped)

The following tests FAILED:
\t 12 - array.Dtype.ParsesEveryTypestr (Failed)
"""

KEPT = """\
Test project /src/build/test-cpp
 12/277 Test  #12: array.Dtype.ParsesEveryTypestr ....................................***Failed    0.02 sec
array/test_dtype.cpp:40: Failure
Expected equality of these values:

99% tests passed, 1 tests failed out of 277

Total Test time (real) =  15.69 sec


The following tests FAILED:
\t 12 - array.Dtype.ParsesEveryTypestr (Failed)
"""


def test_ctest_lines_of_passed_and_skipped_tests_are_dropped_and_failures_kept():
    out = subprocess.run(["bash", "-c", "source scripts/lib/quiet_ctest.sh && quiet_ctest"], cwd=ROOT,
                         input=CTEST_LOG, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == KEPT


SKIPPING_TESTS = '''
import pytest

@pytest.mark.parametrize("i", range(3))
def test_a(i):
    pytest.skip("needs a GPU: a long driver message " + "x" * 200)

def test_b():
    pytest.skip("needs a GPU: a long driver message " + "x" * 200)

@pytest.mark.skip(reason="another reason")
def test_c():
    pass
'''


def test_pytest_names_each_skip_reason_once_with_its_count(tmp_path):
    shutil.copy(pathlib.Path(__file__).parents[1] / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skips.py").write_text(SKIPPING_TESTS)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    skipped = [line for line in out.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped == [f"SKIPPED [4] needs a GPU: a long driver message {'x' * 200}",
                       "SKIPPED [1] another reason"], out.stdout
