# Runs a command and checks its exit status and, optionally, that its output
# contains a text. Used by ctest to check the real cnxsim binary end to end:
#   cmake -DCMD="a;b;c" -DEXPECT_STATUS=1 [-DEXPECT_OUTPUT=text] [-DEXPECT_ABSENT=text] -P expect_exit.cmake
#   ... [-DEXPECT_FROM_FILE=f.yaml]: the output must contain "f.yaml:" + the text
#   after "# expect: " on the first line of f.yaml (the malformed-input table);
#   "{dir}" in it is the folder of f.yaml, and "{dir}/..." first names another file.
if(DEFINED EXPECT_FROM_FILE)
  file(STRINGS "${EXPECT_FROM_FILE}" first_line LIMIT_COUNT 1)
  string(REGEX REPLACE "^# expect: " "" expected "${first_line}")
  string(REPLACE "\\;" ";" expected "${expected}")  # file(STRINGS) escapes semicolons
  # `{dir}` stands for the folder of the file; an expectation starting with it
  # names its own file (a problem inside a file the case imports).
  get_filename_component(case_dir "${EXPECT_FROM_FILE}" DIRECTORY)
  if(expected MATCHES "^{dir}/")
    string(REPLACE "{dir}" "${case_dir}" EXPECT_OUTPUT "${expected}")
  else()
    string(REPLACE "{dir}" "${case_dir}" expected "${expected}")
    set(EXPECT_OUTPUT "${EXPECT_FROM_FILE}:${expected}")
  endif()
endif()
execute_process(COMMAND ${CMD}
                RESULT_VARIABLE status
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT "${status}" STREQUAL "${EXPECT_STATUS}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_STATUS}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECT_OUTPUT)
  string(FIND "${out}${err}" "${EXPECT_OUTPUT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "output lacks '${EXPECT_OUTPUT}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endif()
if(DEFINED EXPECT_ABSENT)
  string(FIND "${out}${err}" "${EXPECT_ABSENT}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "output has '${EXPECT_ABSENT}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endif()
