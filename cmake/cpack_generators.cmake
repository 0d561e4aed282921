# CPACK_PROJECT_CONFIG_FILE (cmake/packaging.cmake): read by cpack once per
# generator, so the Debian package and the release tarball differ here only.
#
# TGZ: the release tarball (scripts/release-tarball, doc/packaging.md),
#   cnxsim-<version>-linux-<arch>.tar.gz holding cnxsim-<version>-linux-<arch>/
#   {bin/cnxsim, share/cnxsim/scenarios, share/doc/cnxsim}: the install layout
#   under a relocatable top directory (cnxsim finds its suite next to itself).
#   Only from a -DCNXSIM_STATIC_RUNTIME=ON build: a tarball is unpacked where
#   none of cnxsim's libraries is installed. CPACK_CNXSIM_TARBALL_ANY_BUILD=ON
#   (cpack -D) packs any build, for the layout test only.
if(CPACK_GENERATOR STREQUAL "TGZ")
  if(NOT CPACK_CNXSIM_STATIC_RUNTIME AND NOT CPACK_CNXSIM_TARBALL_ANY_BUILD)
    message(FATAL_ERROR "the release tarball is packed from a -DCNXSIM_STATIC_RUNTIME=ON build "
                        "(this one links cnxsim's libraries dynamically): scripts/release-tarball makes one")
  endif()
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
  set(CPACK_PACKAGE_FILE_NAME "cnxsim-${CPACK_PACKAGE_VERSION}-linux-${CPACK_CNXSIM_ARCH}")
endif()
