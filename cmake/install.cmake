# Installs the library as a CMake package (find_package(e2beval) -> e2beval::e2beval) and a pkg-config
# module, as fmtlib does: the library, the public headers, the exported targets, the config and version files.
include(CMakePackageConfigHelpers)

set(E2BEVAL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/e2beval
    CACHE STRING "Where e2bevalConfig.cmake is installed, relative to the prefix")

# Everything here is the component `development`: a `pip install` tree has these rules too, and its wheel
# takes only the component `python` (pyproject.toml).
install(TARGETS e2beval EXPORT e2bevalTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT development)
# Only include/e2beval/: private headers (src/) and generated ones (the embedded Python) stay in the build.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/e2beval DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT development FILES_MATCHING PATTERN "*.hpp")
install(EXPORT e2bevalTargets NAMESPACE e2beval:: FILE e2bevalTargets.cmake DESTINATION ${E2BEVAL_INSTALL_CMAKEDIR}
        COMPONENT development)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/e2bevalConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/e2bevalConfig.cmake
                              INSTALL_DESTINATION ${E2BEVAL_INSTALL_CMAKEDIR})
# While the major version is 0, a minor release may break the API (semver), so only the same X.Y is
# compatible; from 1.0 on this becomes SameMajorVersion.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(E2BEVAL_COMPATIBILITY SameMinorVersion)
else()
  set(E2BEVAL_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/e2bevalConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY ${E2BEVAL_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/e2bevalConfig.cmake ${PROJECT_BINARY_DIR}/e2bevalConfigVersion.cmake
        DESTINATION ${E2BEVAL_INSTALL_CMAKEDIR} COMPONENT development)

# pkg-config, for builds without CMake: `c++ -std=c++20 main.cpp $(pkg-config --cflags --libs --static e2beval)`.
# The library is static by default, so its private dependencies are listed for --static.
# The prefix is found from the .pc file's own place (pkg-config's ${pcfiledir}), so an install with
# `cmake --install --prefix` anywhere (tests/consumers installs from the pip-configured build/cpp) is right.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(E2BEVAL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH E2BEVAL_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  set(E2BEVAL_PC_PREFIX "\${pcfiledir}/${E2BEVAL_PC_TO_PREFIX}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(E2BEVAL_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(E2BEVAL_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(E2BEVAL_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(E2BEVAL_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/e2beval.pc.in ${PROJECT_BINARY_DIR}/e2beval.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/e2beval.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
