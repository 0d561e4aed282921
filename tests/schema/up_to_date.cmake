# doc/scenario.schema.json must be byte-identical to what `cnxsim schema`
# prints (it is generated from the loader's field tables).
execute_process(COMMAND ${CNXSIM} schema OUTPUT_VARIABLE generated RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cnxsim schema exited ${status}")
endif()
file(READ ${COMMITTED} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "doc/scenario.schema.json is out of date with the loader's field tables; "
                      "regenerate it: build/sim/cnxsim schema > doc/scenario.schema.json")
endif()
