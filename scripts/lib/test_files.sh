# Sourced by scripts/gpu-test and scripts/gpu-multi-test: the Python test files live in folders under
# tests/python/ (arrays/, memory/, compiler/, ...), and no two share a basename, so a file is named by its
# basename (test_arrays_gpu.py, as CUBRIDGE_TEST_FILES lists them) or by its path; parity/ and corpus/
# hold helpers, not tests.

cubridge_tests_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tests/python" && pwd)"

# Every test file, as a path relative to tests/python/, sorted.
cubridge_test_files() {
  (cd "$cubridge_tests_dir" && find . -path ./parity -prune -o -path ./corpus -prune -o \
     -name 'test_*.py' -type f -print | sed 's|^\./||' | sort)
}

# The path relative to tests/python/ of the test file named $1 (a basename, with or without .py, or a
# path); fails with a message naming it when no test file has that name.
cubridge_test_file() {
  local name
  name=$(basename "$1" .py)
  local found
  found=$(cubridge_test_files | grep -E "(^|/)$name\.py$" || true)
  if [ -z "$found" ]; then
    echo "no test file named $1 under tests/python/ (expected a name such as test_arrays_gpu.py)" >&2
    return 1
  fi
  echo "$found"
}
