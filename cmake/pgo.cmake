# Profile-guided optimisation (-DCNXSIM_PGO=ON; GCC; off by default).
#
# A run step walks more code than the instruction cache holds (bench/README.md,
# "Why the wall clock ratio is worse"): its cost is spread over protobuf, the
# scheduler, the registry and the runner, none of cnxsim's own functions above
# about 2% of its instructions. What GCC does with a profile (hot and cold
# code apart, inlining where the calls are) is what that needs, and no source
# change gives it.
#
# The profile is cnxsim's own main job: an instrumented cnxsim, built from the
# same sources in <build>/pgo/build, runs the bundled scenarios (scenarios/)
# on one thread, then every target of this build is compiled with that
# profile. Not the benchmark's generated suite: the build is tuned to what
# users run, and the benchmark measures it. Every build re-runs the training
# (the instrumented build is incremental; the run takes seconds), so a source
# edit never meets a stale profile.
#
# Functions the training never ran are optimised as without a profile
# (-fprofile-partial-training), not for size.

if(NOT CNXSIM_PGO)
  function(cnxsim_pgo_train_first)  # nothing to train for
  endfunction()
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "CNXSIM_PGO needs GCC (its -fprofile-generate/-fprofile-use options)")
endif()
if(CNXSIM_SANITIZE OR CNXSIM_FUZZ)
  message(FATAL_ERROR "CNXSIM_PGO is for optimised builds: not with CNXSIM_SANITIZE or CNXSIM_FUZZ")
endif()

set(CNXSIM_PGO_DIR "${CMAKE_BINARY_DIR}/pgo")
set(_cnxsim_pgo_build "${CNXSIM_PGO_DIR}/build")
set(_cnxsim_pgo_profile "${CNXSIM_PGO_DIR}/profile")

# A function whose source no longer matches its profile is compiled without
# it, with a warning: an optimisation lost is no reason to stop the build.
add_compile_options(-fprofile-use=${_cnxsim_pgo_profile} -fprofile-prefix-path=${CMAKE_BINARY_DIR}
                    -fprofile-partial-training -Wno-missing-profile -Wno-error=coverage-mismatch)

# Called once every target is defined (the training build waits for this
# build's protobuf sources): each compiled target waits for the training, so
# no object is built before its profile exists.
function(cnxsim_pgo_train_first)
  # The profile's files are named after the objects' paths below each build
  # directory (-fprofile-prefix-path), so the two builds find the same names.
  # A function's profile is used only where its source file has the same path
  # in both builds, so the training build compiles the protobuf code this build
  # generates (CNXSIM_PROTO_GENERATED_IN, proto/CMakeLists.txt), not its own.
  include(ExternalProject)
  ExternalProject_Add(cnxsim_pgo_training
    SOURCE_DIR "${PROJECT_SOURCE_DIR}"
    BINARY_DIR "${_cnxsim_pgo_build}"
    CMAKE_ARGS
      "-DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}"
      "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
      "-DCMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS} -fprofile-generate=${_cnxsim_pgo_profile} -fprofile-update=atomic -fprofile-prefix-path=${_cnxsim_pgo_build}"
      "-DCMAKE_EXE_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS} -fprofile-generate=${_cnxsim_pgo_profile}"
      -DCNXSIM_PGO=OFF
      -DCNXSIM_BUILD_TESTS=OFF
      -DCNXSIM_BUILD_BENCH=OFF
      "-DCNXSIM_TCMALLOC=${CNXSIM_TCMALLOC}"
      "-DCNXSIM_STATIC_PROTOBUF=${CNXSIM_STATIC_PROTOBUF}"
      "-DCNXSIM_PROTO_GENERATED_IN=${CMAKE_BINARY_DIR}"
    DEPENDS cnx_proto_sources
    # No BUILD_COMMAND: ExternalProject's default (all there is with tests and
    # benchmarks off, cnxsim and its libraries) shares the outer make's jobs
    # instead of running on one. The training runs as the install step.
    INSTALL_COMMAND ${CMAKE_COMMAND} "-DCNXSIM=<BINARY_DIR>/sim/cnxsim" "-DSCENARIOS=${PROJECT_SOURCE_DIR}/scenarios"
                    "-DPROFILE=${_cnxsim_pgo_profile}" "-DLOG=${CNXSIM_PGO_DIR}/training.log"
                    -P "${PROJECT_SOURCE_DIR}/cmake/pgo_train.cmake"
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)

  set(dirs "${PROJECT_SOURCE_DIR}")
  while(dirs)
    list(POP_FRONT dirs dir)
    get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subdirs})
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        add_dependencies(${t} cnxsim_pgo_training)
      endif()
    endforeach()
  endwhile()
endfunction()
