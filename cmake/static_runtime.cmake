# CNXSIM_STATIC_RUNTIME: a cnxsim that runs on a plain Debian 12 / Ubuntu
# 22.04+ without any of cnxsim's -dev (or library) packages installed, for
# the release tarball (scripts/release-tarball, doc/packaging.md).
#
# Linked statically: libstdc++ and libgcc (-static-libstdc++ -static-libgcc),
# and every library Debian ships as an archive: libyaml-cpp.a (libyaml-cpp-dev),
# libyaml.a (libyaml-dev), libprotobuf.a (libprotobuf-dev),
# libtcmalloc_minimal.a (libgoogle-perftools-dev), libssl.a and libcrypto.a
# (libssl-dev, when the build uses OpenSSL). Debian ships spdlog and fmt as
# shared libraries only (libspdlog-dev, libfmt-dev have no .a): spdlog is used
# header-only with fmt header-only (FMT_HEADER_ONLY), so neither is linked.
# glibc (libc, libm, the dynamic loader) stays dynamic: a static glibc breaks
# getaddrinfo/NSS, and every distribution has one; 2.35 (Ubuntu 22.04) is enough.
#
# Included from the top-level CMakeLists.txt before any find_package: it
# defines the targets yaml-cpp, spdlog::spdlog, PkgConfig::LIBYAML and
# PkgConfig::TCMALLOC_MINIMAL itself, pointing at the archives, so the
# find_package / pkg_check_modules calls that follow find them already
# defined and keep them (the rest of the build is unchanged).
if(NOT CNXSIM_STATIC_RUNTIME)
  return()
endif()
if(CNXSIM_SANITIZE OR CNXSIM_FUZZ)
  message(FATAL_ERROR "CNXSIM_STATIC_RUNTIME is for release binaries: not with CNXSIM_SANITIZE or CNXSIM_FUZZ")
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "CNXSIM_STATIC_RUNTIME needs GCC (-static-libstdc++ -static-libgcc)")
endif()

add_link_options(-static-libstdc++ -static-libgcc)
set(CNXSIM_STATIC_PROTOBUF ON)          # option() below keeps it (CMP0077)
set(OPENSSL_USE_STATIC_LIBS TRUE)       # FindOpenSSL: libssl.a, libcrypto.a (+ dl, threads)
find_package(Threads REQUIRED)

function(cnxsim_static_archive var name package)
  find_library(${var} NAMES ${name} NO_CACHE)
  if(NOT ${var})
    message(FATAL_ERROR "CNXSIM_STATIC_RUNTIME: ${name} not found (apt-get install ${package})")
  endif()
  set(${var} ${${var}} PARENT_SCOPE)
endfunction()

# yaml-cpp: the exported target name of Debian's yaml-cppConfig.cmake.
cnxsim_static_archive(CNXSIM_YAML_CPP_A libyaml-cpp.a libyaml-cpp-dev)
find_path(CNXSIM_YAML_CPP_INCLUDE yaml-cpp/yaml.h REQUIRED)
add_library(yaml-cpp STATIC IMPORTED)
set_target_properties(yaml-cpp PROPERTIES
  IMPORTED_LOCATION ${CNXSIM_YAML_CPP_A}
  INTERFACE_INCLUDE_DIRECTORIES ${CNXSIM_YAML_CPP_INCLUDE})

# libyaml: the target sim/CMakeLists.txt's pkg_check_modules(LIBYAML ...) makes.
cnxsim_static_archive(CNXSIM_LIBYAML_A libyaml.a libyaml-dev)
add_library(PkgConfig::LIBYAML INTERFACE IMPORTED)
set_target_properties(PkgConfig::LIBYAML PROPERTIES INTERFACE_LINK_LIBRARIES ${CNXSIM_LIBYAML_A})

# spdlog header-only over fmt header-only: both names spdlogConfig.cmake exports.
find_package(fmt REQUIRED)
find_path(CNXSIM_SPDLOG_INCLUDE spdlog/spdlog.h REQUIRED)
foreach(t spdlog::spdlog spdlog::spdlog_header_only)
  add_library(${t} INTERFACE IMPORTED)
  set_target_properties(${t} PROPERTIES
    INTERFACE_COMPILE_DEFINITIONS SPDLOG_FMT_EXTERNAL
    INTERFACE_INCLUDE_DIRECTORIES ${CNXSIM_SPDLOG_INCLUDE}
    INTERFACE_LINK_LIBRARIES "Threads::Threads;fmt::fmt-header-only")
endforeach()

# glibc 2.35 (Ubuntu 22.04) is enough: libstdc++.a's std::random_device calls
# arc4random (glibc 2.36), defined instead in the executable
# (static_runtime_arc4random.cc), linked into cnxsim once sim/ has made it.
add_library(cnxsim_static_arc4random OBJECT ${CMAKE_CURRENT_LIST_DIR}/static_runtime_arc4random.cc)
cmake_language(DEFER CALL target_link_libraries cnxsim PRIVATE cnxsim_static_arc4random)

# tcmalloc_minimal (the allocator target's pkg_check_modules in CMakeLists.txt).
if(CNXSIM_TCMALLOC)
  cnxsim_static_archive(CNXSIM_TCMALLOC_A libtcmalloc_minimal.a libgoogle-perftools-dev)
  add_library(PkgConfig::TCMALLOC_MINIMAL INTERFACE IMPORTED)
  set_target_properties(PkgConfig::TCMALLOC_MINIMAL PROPERTIES
    INTERFACE_LINK_LIBRARIES "${CNXSIM_TCMALLOC_A};Threads::Threads")
endif()
