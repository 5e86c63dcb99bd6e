# Installs libgfir as other DSP tools consume it: the header, the shared and
# static libraries, gfir.pc for pkg-config and a CMake package (gfir::gfir).
include(CMakePackageConfigHelpers)

# libgfir.a carries the CUDA kernels' host code, which is C++: a consumer that
# links it with a C linker (find_package in a C project) needs the C++ runtime
# too. The shared library records its own.
if(GFIR_KERNEL_OBJECTS)
  target_link_libraries(gfir_static PRIVATE stdc++)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/include/gfir.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
# The shared library's runtime files (libgfir.so.X.Y) go to the library
# package, its development link (libgfir.so) and the static library to -dev.
install(TARGETS gfir gfir_static EXPORT gfirTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# What a static link needs beyond libgfir.a (the shared library carries its own).
set(GFIR_PC_LIBS_PRIVATE "-lm")
list(JOIN FFTW3F_LDFLAGS " " _gfir_fftw_ldflags)
string(APPEND GFIR_PC_LIBS_PRIVATE " ${_gfir_fftw_ldflags} -lfftw3f_threads")
string(APPEND GFIR_PC_LIBS_PRIVATE " -pthread")
if(GFIR_CUDA)
  # A Debian package names no directory of this machine: there Debian's
  # nvidia-cuda-toolkit puts libcudart_static.a on the linker's own path.
  if(GFIR_DEB)
    set(_gfir_cudart_dir "")
  else()
    set(_gfir_cudart_dir " -L${CUDAToolkit_LIBRARY_DIR}")
  endif()
  string(APPEND GFIR_PC_LIBS_PRIVATE
    "${_gfir_cudart_dir} -lcudart_static -ldl -lrt -lpthread -lstdc++")
endif()
# gfir.pc names the prefix it is installed under, which `cmake --install --prefix`
# may change after configuring: the file is written at configure time with the
# prefix left as a placeholder, and the placeholder filled at install time.
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(GFIR_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(GFIR_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
set(GFIR_PC_PREFIX "@GFIR_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/gfir.pc.in ${PROJECT_BINARY_DIR}/gfir.pc.in @ONLY)
install(CODE "set(GFIR_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/gfir.pc.in\" \"${PROJECT_BINARY_DIR}/gfir.pc\" @ONLY)"
  COMPONENT dev)
install(FILES ${PROJECT_BINARY_DIR}/gfir.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

install(EXPORT gfirTargets NAMESPACE gfir:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gfir
        COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gfirConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gfirConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gfir)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gfirConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gfirConfig.cmake ${PROJECT_BINARY_DIR}/gfirConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gfir COMPONENT dev)

