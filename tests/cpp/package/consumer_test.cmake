# The C++ package as a consumer sees it: install this build tree into a fresh prefix, configure and build
# examples/cpp against it with find_package(cubridge CONFIG), run the program (compile + link; the GPU step
# runs where there is a GPU), check it links no libpython, and run the installed cubridge-compile.
# Run by CTest: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P consumer_test.cmake
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "consumer_test.cmake: ${v} is not set")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/cubridge/compiler/compile.hpp include/cubridge/c/array.h lib/libcubridge.a
          lib/cmake/cubridge/cubridgeConfig.cmake lib/cmake/cubridge/cubridgeConfigVersion.cmake bin/cubridge-compile)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the installed package lacks ${f}")
  endif()
endforeach()

run("configure the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("run the consumer" ${WORK_DIR}/build/python_function_in_cuda)
message(STATUS "consumer output:\n${last_output}")
if(NOT last_output MATCHES "was inlined into the kernel")
  message(FATAL_ERROR "the consumer did not report the inlined link:\n${last_output}")
endif()

run("ldd" ldd ${WORK_DIR}/build/python_function_in_cuda)
if(last_output MATCHES "libpython")
  message(FATAL_ERROR "the consumer links libpython:\n${last_output}")
endif()

file(WRITE ${WORK_DIR}/m.py "def f(x, y):\n    return x * y + 1.0\n")
run("cubridge-compile" ${prefix}/bin/cubridge-compile ${WORK_DIR}/m.py:f --sig "float32(float32, float32)"
    --cc 9 -o -)
if(NOT last_output MATCHES "\\.visible \\.func")
  message(FATAL_ERROR "cubridge-compile printed no device function:\n${last_output}")
endif()

# A kernel takes the Numba ABI without being told; the compiler's advice comes in the command's flags.
file(WRITE ${WORK_DIR}/k.py "def k(a):\n    a[0] = 1.0\n")
run("cubridge-compile --kernel" ${prefix}/bin/cubridge-compile ${WORK_DIR}/k.py:k --sig "void(float32[:])" --kernel -o -)
if(NOT last_output MATCHES "\\.entry ")
  message(FATAL_ERROR "cubridge-compile --kernel printed no kernel:\n${last_output}")
endif()
# Without --kernel the same function is a C-ABI device function, its array passed as numba-cuda's C ABI
# passes one (the data model's 5 + 2N fields as parameters).
run("cubridge-compile (C ABI, array)" ${prefix}/bin/cubridge-compile ${WORK_DIR}/k.py:k --sig "void(float32[:])" -o -)
if(NOT last_output MATCHES "\\.visible \\.func k\\(")
  message(FATAL_ERROR "cubridge-compile printed no C-ABI device function k:\n${last_output}")
endif()
