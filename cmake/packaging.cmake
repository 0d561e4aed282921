# What `cmake --install` puts under the prefix, and the Debian package and the
# release tarball cpack builds from it (doc/packaging.md). The layout mirrors
# the repository, so the scenarios' `$schema=` modeline resolves the same way in both:
#   PREFIX/bin/cnxsim
#   PREFIX/share/cnxsim/scenarios/...          (cnxsim run with no path finds it
#                                               from the executable's location)
#   PREFIX/share/cnxsim/doc/scenario.schema.json
#   PREFIX/share/doc/cnxsim/README.md, doc/**/*.md, doc/images/*.png, doc/ci/*
# Tests, benchmarks and fuzz targets are not installed.
include(GNUInstallDirs)

install(TARGETS cnxsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cnxsim/scenarios)
install(FILES ${PROJECT_SOURCE_DIR}/doc/scenario.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/cnxsim/doc OPTIONAL)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/doc/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "*.yml" PATTERN "*.png" PATTERN "Dockerfile")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cnxsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "cnxsim maintainers <cnxsim@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # cnxsim_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${PROJECT_DESCRIPTION}
 cnxsim runs YAML scenarios against a model of the Apache Pulsar broker's
 schema admission (ServerCnx, the schema registry, the compatibility
 checkers) with one behaviour profile per modelled release, and reports
 JUnit, Markdown and HTML. The bundled scenario suite is in
 /usr/share/cnxsim/scenarios; `cnxsim run` with no path runs it.")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.org/cnxsim")
# Depends from the shared libraries the binary links (dpkg-shlibdeps, dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
# The release tarball (cpack -G TGZ): its prefix, name and the static-runtime
# requirement are set per generator in cmake/cpack_generators.cmake.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/cpack_generators.cmake)
set(CPACK_CNXSIM_STATIC_RUNTIME ${CNXSIM_STATIC_RUNTIME})
set(CPACK_CNXSIM_ARCH ${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_SOURCE_IGNORE_FILES "/build.*/;/\\\\.git/;/reports/;/node_modules/")
include(CPack)
