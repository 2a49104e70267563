"""The function corpus of the compiler: every module lists its functions in SIGS (name -> argument type
tuples). tests/python/compiler/test_compile_corpus.py compiles each one (and, on the GPU machine, compares the
results with CPython and numba-cuda)."""
MODULES = ["arith", "control", "builtins_math", "tuples_complex", "calls"]
