# Finds XLA's FFI headers (xla/ffi/api/c_api.h) in the jaxlib that the build's Python imports:
# `jax.ffi.include_dir()`. Sets CUBRIDGE_XLA_FFI_INCLUDE_DIR and CUBRIDGE_HAVE_XLA_FFI. Optional: the
# adapter never needs them (src/xla/xla_ffi_abi.hpp declares the ABI); with them the build adds the
# hand-written typed handlers of examples/xla and the test pinning our declarations against XLA's.
include_guard(GLOBAL)

set(CUBRIDGE_HAVE_XLA_FFI OFF)
if(NOT Python_EXECUTABLE)
  find_package(Python 3.10 QUIET COMPONENTS Interpreter)
endif()
if(Python_EXECUTABLE)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c "import jax.ffi; print(jax.ffi.include_dir())"
    OUTPUT_VARIABLE _cubridge_jax_include OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_VARIABLE _cubridge_jax_error RESULT_VARIABLE _cubridge_jax_rc)
  if(_cubridge_jax_rc EQUAL 0 AND EXISTS "${_cubridge_jax_include}/xla/ffi/api/c_api.h")
    set(CUBRIDGE_HAVE_XLA_FFI ON)
    set(CUBRIDGE_XLA_FFI_INCLUDE_DIR "${_cubridge_jax_include}")
    message(STATUS "cubridge: XLA FFI headers in ${CUBRIDGE_XLA_FFI_INCLUDE_DIR} (typed reference handlers and ABI layout test built)")
  else()
    message(STATUS "cubridge: jax is not importable by ${Python_EXECUTABLE}: no typed reference handlers (the adapter is built regardless)")
  endif()
else()
  message(STATUS "cubridge: no Python interpreter found: no typed reference handlers (the adapter is built regardless)")
endif()

# GCC rejects XLA's c_api.h under -Wpedantic (struct fields named like their typedefs "change meaning");
# clang accepts it. The files that include the header get -fpermissive, which makes that one
# diagnostic a warning in a system header (so silent); nothing else in cubridge is compiled with it.
function(cubridge_xla_ffi_sources target)
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
    PROPERTIES COMPILE_OPTIONS "$<$<CXX_COMPILER_ID:GNU>:-fpermissive>")
endfunction()

# A source that includes XLA's own headers: their include directory and the flag above, for that file only.
function(cubridge_xla_ffi_reference target include_dir)
  # -isystem: XLA's headers are not ours to keep warning-free; -fpermissive as in cubridge_xla_ffi_sources.
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES
    COMPILE_OPTIONS "-isystem;${include_dir};$<$<CXX_COMPILER_ID:GNU>:-fpermissive>"
    COMPILE_DEFINITIONS "CUBRIDGE_HAVE_XLA_FFI=1")
endfunction()
