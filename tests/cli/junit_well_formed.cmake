# Runs cnxsim on INPUT with --junit OUT (expecting EXPECT_STATUS), then parses
# OUT with python3's xml.etree: the JUnit XML must be well-formed XML 1.0.
#   cmake -DCNXSIM=... -DPYTHON=... -DINPUT=... -DOUT=... -DEXPECT_STATUS=1 -P junit_well_formed.cmake
file(REMOVE "${OUT}")
execute_process(COMMAND "${CNXSIM}" run "${INPUT}" --junit "${OUT}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT "${status}" STREQUAL "${EXPECT_STATUS}")
  message(FATAL_ERROR "cnxsim exited ${status}, expected ${EXPECT_STATUS}\n${out}\n${err}")
endif()
execute_process(COMMAND "${PYTHON}" -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "${OUT}"
                RESULT_VARIABLE parsed OUTPUT_VARIABLE pout ERROR_VARIABLE perr)
if(NOT parsed EQUAL 0)
  message(FATAL_ERROR "${OUT} is not well-formed XML:\n${pout}${perr}")
endif()
