# ctest driver of differential.python_avro: finds Debian's python3 with
# python3-avro and runs the comparison. Anything missing fails the test
# naming the Debian package that provides it.
#   -DDRIVER=<avro_python_differential> -DSCRIPT=<python_compatibility.py> -DWORK=<dir>

# Debian's interpreter first: python3-avro lives in /usr/lib/python3/dist-packages,
# which a python3 from pyenv or a virtualenv earlier on PATH does not see.
find_program(PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT PYTHON3)
  find_program(PYTHON3 python3)
endif()
if(NOT PYTHON3)
  message(FATAL_ERROR "differential.python_avro: python3 not found; install the Debian packages 'python3 python3-avro' "
                      "(scripts/bootstrap test installs them)")
endif()
execute_process(COMMAND ${PYTHON3} -c "import avro.compatibility, avro.schema"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "differential.python_avro: ${PYTHON3} cannot import avro.compatibility; install the Debian "
                      "package 'python3-avro' (apt-get install python3-avro; scripts/bootstrap test installs it)\n${err}")
endif()

file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${DRIVER} --python ${PYTHON3} --script ${SCRIPT} --work ${WORK}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "differential.python_avro: failed (exit ${rc})")
endif()
