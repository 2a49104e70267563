# cubridge-compile -:FUNC reads the module from standard input, as `cubridge compile -:FUNC` does: the
# function compiles, and errors name the line as `<stdin>:LINE`.
# Run by CTest: cmake -DTOOL=<cubridge-compile> -DWORK_DIR=... -P compile_from_stdin.cmake
foreach(v TOOL WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "compile_from_stdin.cmake: ${v} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

file(WRITE ${WORK_DIR}/mul.py "def mul(x, y):\n    return x * y\n")
execute_process(COMMAND ${TOOL} -:mul --sig "float32(float32, float32)" --cc 9 -o -
                INPUT_FILE ${WORK_DIR}/mul.py RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\\.visible \\.func")
  message(FATAL_ERROR "cubridge-compile -:mul: expected exit 0 and a device function, got ${rc}:\n${out}\n${err}")
endif()

file(WRITE ${WORK_DIR}/bad.py "def mul(x):\n    return x +\n")
execute_process(COMMAND ${TOOL} -:mul --sig "(int32,)" -o - INPUT_FILE ${WORK_DIR}/bad.py
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "^cubridge compile: <stdin>:2:")
  message(FATAL_ERROR "a syntax error read from standard input: expected exit 1 and '<stdin>:2:', got ${rc}:\n${err}")
endif()

# '-:' alone names no function
execute_process(COMMAND ${TOOL} -: --sig "(int32,)" INPUT_FILE ${WORK_DIR}/mul.py
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "expected FILE.py:FUNC \\(or -:FUNC for a module on standard input\\), got '-:'")
  message(FATAL_ERROR "'-:': expected exit 2 naming the accepted forms, got ${rc}:\n${err}")
endif()
