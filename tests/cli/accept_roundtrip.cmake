# `cnxsim run --accept` on a copy of accept-input.yaml: the run writes the
# observed outcomes, keeps every comment (the modeline first), and a second run passes.
#   cmake -DCNXSIM=... -DINPUT=... -DWORK=... -P accept_roundtrip.cmake
file(COPY_FILE "${INPUT}" "${WORK}")
execute_process(COMMAND "${CNXSIM}" run "${WORK}" --accept RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "--accept run exited ${status}\n${out}\n${err}")
endif()
file(READ "${WORK}" text)
# The editor modeline stays the first line.
string(FIND "${text}" "# yaml-language-server: $schema=../../doc/scenario.schema.json\n" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "accepted file lost its first-line yaml-language-server modeline:\n${text}")
endif()
foreach(needle
    "# the first schema registers as version 0"
    "# refused: type change"
    "# trailing comment"
    "expect: { schema_version: 0 }"
    "expect: { error: IncompatibleSchema, message: "
    "expect: ok")
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "accepted file lacks '${needle}':\n${text}")
  endif()
endforeach()
execute_process(COMMAND "${CNXSIM}" run "${WORK}" --strict RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "second run exited ${status}\n${out}\n${err}\n${text}")
endif()
