# Installs libgfir as other DSP tools consume it: the header, the shared and
# static libraries, gfir.pc for pkg-config and a CMake package (gfir::gfir).
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/include/gfir.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gfir gfir_static EXPORT gfirTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# What a static link needs beyond libgfir.a (the shared library carries its own).
set(GFIR_PC_LIBS_PRIVATE "-lm")
list(JOIN FFTW3F_LDFLAGS " " _gfir_fftw_ldflags)
string(APPEND GFIR_PC_LIBS_PRIVATE " ${_gfir_fftw_ldflags}")
if(OpenMP_C_FOUND)
  string(APPEND GFIR_PC_LIBS_PRIVATE " ${OpenMP_C_FLAGS}")
endif()
if(GFIR_CUDA)
  string(APPEND GFIR_PC_LIBS_PRIVATE
    " -L${CUDAToolkit_LIBRARY_DIR} -lcufft -lcudart_static -ldl -lrt -lpthread -lstdc++")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gfir.pc.in ${PROJECT_BINARY_DIR}/gfir.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gfir.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(EXPORT gfirTargets NAMESPACE gfir:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gfir)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gfirConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gfirConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gfir)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gfirConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gfirConfig.cmake ${PROJECT_BINARY_DIR}/gfirConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gfir)
