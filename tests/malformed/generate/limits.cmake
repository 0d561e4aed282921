# Generates one input at or over a documented limit (scenarios/README.md
# "Limits"), runs cnxsim on it and checks the exit status and the message.
#   cmake -DCNXSIM=path -DWORK=dir -DCASE=name [-DMEMORY_MB=n -DSANITIZED=ON|OFF] -P limits.cmake
# Memory is bounded without timing anything: under ASan by hard_rss_limit_mb
# (set by the caller's ASAN_OPTIONS), otherwise by `ulimit -v MEMORY_MB`.
# Cases:
#   file-over-limit      a 9 MiB scenario file: refused before it is parsed
#   schema-over-limit    a scenario whose `file:` schema is 17 MiB: refused
#   scalar-over-limit    one 2 MiB scalar in a 3 MiB file: refused with its position
#   nodes-over-limit     1,000,001 nodes in 2 MiB: refused with the position of the last
#   compat-fifo          `cnxsim compat --new FIFO`: refused without waiting for a writer
#   producers-at-limit   90,000 producers on one topic (990,013 nodes, 6.4 MiB): loads and runs
file(MAKE_DIRECTORY "${WORK}")
set(input "${WORK}/${CASE}.yaml")

function(run_and_expect status expected)
  if(SANITIZED OR NOT DEFINED MEMORY_MB)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  else()
    math(EXPR kb "${MEMORY_MB} * 1024")
    execute_process(COMMAND sh -c "ulimit -v ${kb} && exec \"$@\"" sh ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  endif()
  string(SUBSTRING "${out}" 0 2000 out)
  string(SUBSTRING "${err}" 0 2000 err)
  if(NOT "${rc}" STREQUAL "${status}")
    message(FATAL_ERROR "exit status ${rc}, expected ${status}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  string(FIND "${out}${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "output lacks '${expected}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endfunction()

# `count` copies of `unit` (doubling, so a few MiB take a few steps).
function(repeat out unit count)
  string(REPEAT "${unit}" ${count} text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "file-over-limit")
  repeat(filler "# a comment line of sixty-four bytes, repeated to pass the limit\n" 147456)
  file(WRITE "${input}" "name: x\nsteps:\n  - producer: { topic: t, name: p1 }\n${filler}")
  run_and_expect(2 "${input}:1:1: 9.1 MiB is over the 8 MiB limit for scenario files" "${CNXSIM}" lint "${input}")
elseif(CASE STREQUAL "schema-over-limit")
  repeat(filler " " 17825792)
  file(WRITE "${WORK}/big-schema.json" "{\"type\": \"STRING\", \"schema\": \"\"${filler}}")
  file(WRITE "${input}" "name: x\nschemas:\n  s: { file: big-schema.json }\nsteps:\n  - producer: { topic: t, name: p1, schema: s }\n")
  run_and_expect(2 "${input}:3:14: schema file 'big-schema.json': 17 MiB is over the 16 MiB limit for schema files"
                 "${CNXSIM}" lint "${input}")
elseif(CASE STREQUAL "scalar-over-limit")
  repeat(scalar "a" 2097152)
  file(WRITE "${input}" "name: x\ndescription: ${scalar}\nsteps:\n  - producer: { topic: t, name: p1 }\n")
  run_and_expect(2 "${input}:2:14: a YAML scalar of 2 MiB is over the 1 MiB limit for one value" "${CNXSIM}" lint "${input}")
elseif(CASE STREQUAL "nodes-over-limit")
  # The root mapping, name, x, tags and the list are 5 nodes: the 1,000,001st node
  # is the 999,996th item, at column 8 + 2 * 999,995 of line 2.
  repeat(items "a," 999999)
  file(WRITE "${input}" "name: x\ntags: [${items}a]\nsteps:\n  - producer: { topic: t, name: p1 }\n")
  run_and_expect(2 "${input}:2:1999998: the file holds more than 1000000 YAML nodes" "${CNXSIM}" lint "${input}")
elseif(CASE STREQUAL "compat-fifo")
  file(REMOVE "${WORK}/schema.fifo")
  execute_process(COMMAND mkfifo "${WORK}/schema.fifo" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mkfifo failed: ${rc}")
  endif()
  run_and_expect(2 "${WORK}/schema.fifo: not a regular file (it is a fifo)"
                 "${CNXSIM}" compat --strategy FULL --new "${WORK}/schema.fifo")
elseif(CASE STREQUAL "producers-at-limit")
  # Written 300 steps at a time: appending to one growing string is quadratic in CMake.
  file(WRITE "${input}" "name: producers at the node limit\nsteps:\n")
  foreach(block RANGE 0 299)
    set(steps "")
    foreach(j RANGE 1 300)
      math(EXPR i "${block} * 300 + ${j}")
      string(APPEND steps "  - producer: { topic: t, name: p${i}, schema: STRING }\n    expect: ok\n")
    endforeach()
    file(APPEND "${input}" "${steps}")
  endforeach()
  file(APPEND "${input}" "  - check: { topic: t, producers: 90000 }\n")
  run_and_expect(0 "1 passed, 0 failed" "${CNXSIM}" run "${input}")
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
