# canopy_install.cmake — `cmake --install <build> --prefix <dir>`: the headers, the static libraries,
# the `canopy` command and a CMake package (find_package(canopy CONFIG), docs/writing-tasks.md).
#
#   <prefix>/include/canopy/{vocabulary,platform,emulator,sync,queues,runtime,workloads,litmus}/..., version.hpp
#   <prefix>/lib/libcanopy_*.a
#   <prefix>/bin/canopy
#   <prefix>/lib/cmake/canopy/canopy{Config,ConfigVersion,Targets,KernelSources}.cmake
#
# Every layer's headers already live under include/canopy/<layer>/, so they merge into one include
# directory; the exported targets point there ($<INSTALL_INTERFACE:include>), never into the source or
# build tree (tests/install checks both). Included at the end of the top-level CMakeLists.txt, after
# every target exists.
include(CMakePackageConfigHelpers)

set(CANOPY_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/canopy" CACHE STRING
    "where the CMake package goes, relative to the prefix")

# The names users write: canopy::runtime, not canopy::canopy_runtime.
set(_canopy_exported canopy_backend canopy_vocabulary canopy_warnings canopy_sanitizers canopy_platform canopy_sync canopy_queues
    canopy_runtime canopy_workloads canopy_graph)
if(CANOPY_BACKEND STREQUAL "cpu")
  list(APPEND _canopy_exported canopy_emulator canopy_litmus)
endif()
foreach(_t IN LISTS _canopy_exported)
  string(REGEX REPLACE "^canopy_" "" _name ${_t})
  set_target_properties(${_t} PROPERTIES EXPORT_NAME ${_name})
endforeach()

install(TARGETS ${_canopy_exported} EXPORT canopyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS canopy RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(_canopy_header_dirs vocabulary platform sync queues runtime workloads)
if(CANOPY_BACKEND STREQUAL "cpu")
  list(APPEND _canopy_header_dirs emulator litmus)
endif()
foreach(_d IN LISTS _canopy_header_dirs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_d}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/include/canopy/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/canopy)

install(EXPORT canopyTargets NAMESPACE canopy:: DESTINATION ${CANOPY_INSTALL_CMAKEDIR})
# CANOPY_GRAPH_ZLIB (workloads/CMakeLists.txt): whether canopy_graph links zlib, so the package finds it.
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/package/canopyConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/canopyConfig.cmake
                              INSTALL_DESTINATION ${CANOPY_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so 0.1 accepts 0.1.*, not 0.2.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/canopyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/canopyConfig.cmake
              ${PROJECT_BINARY_DIR}/package/canopyConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/package/canopyKernelSources.cmake
        DESTINATION ${CANOPY_INSTALL_CMAKEDIR})
