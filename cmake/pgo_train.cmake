# The training run of CNXSIM_PGO (cmake/pgo.cmake): the instrumented cnxsim
# runs the bundled scenarios on one thread, into a fresh profile directory
# (counts from an earlier run would add to the new ones, and an object rebuilt
# since would not match its old counts).
#
#   cmake -DCNXSIM=... -DSCENARIOS=... -DPROFILE=... -DLOG=... -P pgo_train.cmake
#
# Exit status 1 is a failed scenario: the profile is as good, and the build goes
# on (the test suite is where a failing scenario is reported). Anything else (a
# crash, a bad option) stops the build.

foreach(var CNXSIM SCENARIOS PROFILE LOG)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pgo_train.cmake: -D${var}=... is missing")
  endif()
endforeach()

file(REMOVE_RECURSE "${PROFILE}")
file(MAKE_DIRECTORY "${PROFILE}")
execute_process(COMMAND "${CNXSIM}" run "${SCENARIOS}" --jobs 1
                OUTPUT_FILE "${LOG}" ERROR_FILE "${LOG}.stderr"
                RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0" AND NOT rc STREQUAL "1")
  message(FATAL_ERROR "CNXSIM_PGO training: ${CNXSIM} run ${SCENARIOS} ended with ${rc} (see ${LOG})")
endif()
file(GLOB_RECURSE profiles "${PROFILE}/*.gcda")
list(LENGTH profiles n)
if(n EQUAL 0)
  message(FATAL_ERROR "CNXSIM_PGO training: no profile was written to ${PROFILE}")
endif()
message(STATUS "CNXSIM_PGO training: ${n} profile files from ${SCENARIOS} (exit status ${rc}, log ${LOG})")
