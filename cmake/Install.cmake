# The C++ package: `cmake --install <build> --prefix P`, then find_package(cubridge CONFIG) with P on
# CMAKE_PREFIX_PATH gives cubridge::cubridge (the core: arrays, memory, compiler, kernels, XLA; no Python)
# and cubridge::python_array (the helper that takes any Python GPU array; needs Python's headers), and
# puts the cubridge-compile tool in P/bin.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)
set(_cubridge_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cubridge)

install(TARGETS cubridge_core EXPORT cubridgeTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS cubridge-compile RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Public headers only (C++ and C); src/ stays private.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cubridge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cubridgeTargets NAMESPACE cubridge:: DESTINATION ${_cubridge_cmake_dir})
# cubridge::python_array (needs Python's headers): its header and its own export set, where it is defined.
if(TARGET cubridge_python_array)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/include/cubridge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS cubridge_python_array EXPORT cubridgePythonArrayTargets)
  install(EXPORT cubridgePythonArrayTargets NAMESPACE cubridge:: DESTINATION ${_cubridge_cmake_dir})
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cubridgeConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cubridgeConfig.cmake INSTALL_DESTINATION ${_cubridge_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cubridgeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cubridgeConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/cubridgeConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/CudaHeaders.cmake
        DESTINATION ${_cubridge_cmake_dir})
