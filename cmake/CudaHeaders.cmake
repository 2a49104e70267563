# Finds the CUDA toolkit's include directory (cuda.h, nvvm.h, nvJitLink.h, nvrtc.h) without
# linking any CUDA library. Order: CUDA_HOME / CUDA_PATH, nvcc on PATH, /usr/local/cuda.
set(_cubridge_cuda_hints "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}")
find_program(_cubridge_nvcc nvcc)
if(_cubridge_nvcc)
  get_filename_component(_nvcc_dir "${_cubridge_nvcc}" REALPATH)
  get_filename_component(_nvcc_dir "${_nvcc_dir}" DIRECTORY)
  list(APPEND _cubridge_cuda_hints "${_nvcc_dir}/..")
endif()
list(APPEND _cubridge_cuda_hints /usr/local/cuda)
find_path(CUBRIDGE_CUDA_INCLUDE_DIR cuda.h
  HINTS ${_cubridge_cuda_hints}
  PATH_SUFFIXES include targets/x86_64-linux/include targets/sbsa-linux/include
  REQUIRED)
find_path(CUBRIDGE_NVVM_INCLUDE_DIR nvvm.h
  HINTS ${_cubridge_cuda_hints} "${CUBRIDGE_CUDA_INCLUDE_DIR}/.."
  PATH_SUFFIXES include nvvm/include
  REQUIRED)
message(STATUS "cubridge: CUDA headers in ${CUBRIDGE_CUDA_INCLUDE_DIR}, nvvm.h in ${CUBRIDGE_NVVM_INCLUDE_DIR}")
