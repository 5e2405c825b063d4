# `cmake --install`: the CLI, every module library, the public headers, the Python package (with
# NNACCEL_PYTHON) and a CMake package, so another project can
#   find_package(nnaccel REQUIRED)
#   target_link_libraries(app PRIVATE nnaccel::nnaccel)
# nnaccel::nnaccel is every module with every registered engine (linked whole, so they
# register); nnaccel::<module> (nnaccel::driver, nnaccel::engines_all, ...) are the modules
# alone. tests/install builds a consumer against an installed tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(nnaccel_all INTERFACE)
target_link_libraries(nnaccel_all INTERFACE nnaccel_driver nnaccel_engines_all nnaccel_compare
                                            nnaccel_explore)
set_target_properties(nnaccel_all PROPERTIES EXPORT_NAME nnaccel)

get_property(_nnaccel_libraries GLOBAL PROPERTY NNACCEL_LIBRARY_TARGETS)
install(TARGETS ${_nnaccel_libraries} nnaccel_engines_all nnaccel_all
        EXPORT nnaccelTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS nnaccel RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/nnaccel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT nnaccelTargets NAMESPACE nnaccel::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nnaccel)
configure_package_config_file(cmake/nnaccelConfig.cmake.in
                              "${PROJECT_BINARY_DIR}/nnaccelConfig.cmake"
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nnaccel)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/nnaccelConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/nnaccelConfig.cmake"
              "${PROJECT_BINARY_DIR}/nnaccelConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nnaccel)
if(NNACCEL_PYTHON)
  # <prefix>/lib/python3/dist-packages/nnaccel: Debian's python3 reads it with prefix /usr/local.
  install(DIRECTORY "${PROJECT_BINARY_DIR}/python/nnaccel"
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages
          PATTERN "__pycache__" EXCLUDE)
endif()
