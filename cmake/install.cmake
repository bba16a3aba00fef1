# Installation: headers, the three libraries, the CMake package (pmvpConfig,
# its version file and the exported targets pmvp::model, pmvp::systemc and
# pmvp::config)
# and pmvp.pc for the C kernels. Every path is relative to the prefix, so
# `cmake --install build --prefix DIR` works for any DIR.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PMVP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pmvp)

set(PMVP_LIBRARIES pmvp_model pmvp_systemc)
set(PMVP_HEADERS model/include/pmvp bindings/include/pmvp)
set(PMVP_CONFIG_INSTALLED OFF)
if(TARGET pmvp_config)
  set(PMVP_CONFIG_INSTALLED ON)
  list(APPEND PMVP_LIBRARIES pmvp_config)
  list(APPEND PMVP_HEADERS config/include/pmvp)
endif()
install(TARGETS ${PMVP_LIBRARIES} EXPORT pmvpTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PMVP_HEADERS}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(FILES ${PROJECT_BINARY_DIR}/model/include/pmvp/version.h ${PROJECT_BINARY_DIR}/model/include/pmvp/register_fields.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmvp)

install(EXPORT pmvpTargets NAMESPACE pmvp:: DESTINATION ${PMVP_CMAKE_DIR})
configure_package_config_file(cmake/pmvpConfig.cmake.in ${PROJECT_BINARY_DIR}/pmvpConfig.cmake
  INSTALL_DESTINATION ${PMVP_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pmvpConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pmvpConfig.cmake ${PROJECT_BINARY_DIR}/pmvpConfigVersion.cmake
  DESTINATION ${PMVP_CMAKE_DIR})

# pmvp.pc finds the prefix from its own location.
file(RELATIVE_PATH PMVP_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/pmvp.pc.in ${PROJECT_BINARY_DIR}/pmvp.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pmvp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# `cpack -G DEB` (in the build directory): a Debian package of everything
# `cmake --install` installs, under /usr, its run-time dependencies found by
# dpkg-shlibdeps and the headers' build dependencies named. The test
# install.debian_package builds it, inspects it and runs its pmvp-soc.
set(CPACK_PACKAGE_NAME pmvp)
set(CPACK_PACKAGE_VENDOR "pmvp")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Models of a processor's hardware monitors (Arm PMUv3, AMUv1, x86 clock counters) for virtual platforms")
set(CPACK_PACKAGE_CONTACT "pmvp developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsystemc-dev, nlohmann-json3-dev")
# pmvp-soc --plot draws with gnuplot, and says so when it is missing.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS gnuplot-nox)
include(CPack)
