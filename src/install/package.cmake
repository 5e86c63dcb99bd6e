# Debian packages with CPack's DEB generator (tools/package.sh drives it):
# one package per install component, so a user takes only what they need and
# a plugin host or a compiler finds the files where Debian puts them.
#   gfir            the command, its manual page, completion and presets
#   libgfir<SOVER>  the shared library (named by its soname, Debian's policy)
#   libgfir-dev     header, static library, pkg-config file, CMake package
#   python3-gfir    import gfir
#   gfir-lv2        the LV2 bundle gfir.lv2 in /usr/lib/lv2, where hosts look
#                   (built where lv2-dev is present)
# CPack rather than a debian/ folder: the top level of the tree is fixed
# (DESIGN.md), the install rules already say where every file goes, and one
# configure of CMake gives both `cmake --install` and the packages.
# GFIR_DEB (tools/package.sh sets it) adds what only a package carries: the
# copyright and changelog files in /usr/share/doc and a compressed manual page.

# Whoever builds the packages maintains them: set GFIR_DEB_MAINTAINER to your
# name and address (the default's domain is reserved for examples).
set(GFIR_DEB_MAINTAINER "gfir developers <gfir-developers@example.org>" CACHE STRING
    "The Maintainer field and changelog signature of the Debian packages")
set(GFIR_DEB_LIB_PACKAGE "libgfir${GFIR_SOVERSION}")
set(_gfir_deb_packages
  cli "gfir"
  lib "${GFIR_DEB_LIB_PACKAGE}"
  dev "libgfir-dev"
  python "python3-gfir")
if(GFIR_HAVE_LV2)
  list(APPEND _gfir_deb_packages lv2 "gfir-lv2")
endif()

if(GFIR_DEB)
  # The Python package, where Debian's python3 finds packages of the system.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/python/gfir
          DESTINATION lib/python3/dist-packages COMPONENT python
          PATTERN __pycache__ EXCLUDE)
  # Each package's /usr/share/doc/<package>: copyright and a changelog.
  string(TIMESTAMP _gfir_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
  set(_gfir_docs ${PROJECT_BINARY_DIR}/deb-doc)
  list(LENGTH _gfir_deb_packages _n)
  math(EXPR _last "${_n} - 1")
  foreach(i RANGE 0 ${_last} 2)
    math(EXPR j "${i} + 1")
    list(GET _gfir_deb_packages ${i} comp)
    list(GET _gfir_deb_packages ${j} pkg)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/copyright ${_gfir_docs}/${pkg}/copyright COPYONLY)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/changelog.in ${_gfir_docs}/${pkg}/changelog @ONLY)
    install(CODE "execute_process(COMMAND gzip -9nf \"${_gfir_docs}/${pkg}/changelog\" -c
                    OUTPUT_FILE \"${_gfir_docs}/${pkg}/changelog.gz\" COMMAND_ERROR_IS_FATAL ANY)"
            COMPONENT ${comp})
    install(FILES ${_gfir_docs}/${pkg}/copyright ${_gfir_docs}/${pkg}/changelog.gz
            DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg} COMPONENT ${comp})
  endforeach()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gfir)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${GFIR_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli lib dev python)
if(GFIR_HAVE_LV2)
  list(APPEND CPACK_COMPONENTS_ALL lv2)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# dpkg-shlibdeps names the libraries each binary links (libsndfile, FFTW, ...)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
set(CPACK_DEBIAN_CLI_PACKAGE_NAME gfir)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_CLI_DESCRIPTION "FIR filtering of audio files and live audio\n\
 gfir filters audio with FIR filters: designed low-, high-, band-pass and\n\
 band-stop filters, any coefficients, or an impulse response such as a room\n\
 reverb, on the CPU and on NVIDIA GPUs, for files of any length and live audio.")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "sox")
set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${GFIR_DEB_LIB_PACKAGE})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# dpkg's ldconfig trigger, as Debian's policy asks of a shared library package
file(WRITE ${PROJECT_BINARY_DIR}/deb-control/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/deb-control/triggers)
set(CPACK_DEBIAN_LIB_DESCRIPTION "FIR filtering of audio on the CPU and NVIDIA GPUs (library)\n\
 libgfir is a C library for streaming FIR convolution of audio: exact causal\n\
 convolution with the input's history carried across calls, on the CPU (FFTW)\n\
 and on NVIDIA GPUs (CUDA) where one is present.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgfir-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${GFIR_DEB_LIB_PACKAGE} (= ${PROJECT_VERSION}), libfftw3-dev")
if(GFIR_CUDA)
  # libgfir.a with the CUDA backend links CUDA's static runtime, which Debian
  # ships in nvidia-cuda-toolkit; the shared library carries its own copy.
  set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
endif()
set(CPACK_DEBIAN_DEV_DESCRIPTION "FIR filtering of audio on the CPU and NVIDIA GPUs (development files)\n\
 The header gfir.h, the static library, the pkg-config file (gfir) and the\n\
 CMake package (find_package(gfir), target gfir::gfir) of libgfir.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-gfir)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
    "${GFIR_DEB_LIB_PACKAGE} (>= ${PROJECT_VERSION}), python3 (>= 3.9), python3-numpy")
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "gfir")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "FIR filtering of audio on the CPU and NVIDIA GPUs (Python)\n\
 import gfir: convolution of NumPy arrays (and CuPy arrays and PyTorch tensors\n\
 on the GPU) through libgfir, with SciPy's semantics, streaming plans and\n\
 filter design.")
set(CPACK_DEBIAN_LV2_PACKAGE_NAME gfir-lv2)
set(CPACK_DEBIAN_LV2_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_LV2_PACKAGE_ENHANCES "jalv, ardour, carla, pipewire, gstreamer1.0-plugins-bad")
set(CPACK_DEBIAN_LV2_DESCRIPTION "FIR filtering of audio on the CPU and NVIDIA GPUs (LV2 plugins)\n\
 gfir filter (designed low-, high-, band-pass and band-stop filters on control\n\
 ports) and gfir convolver (an impulse response as a parameter the host saves\n\
 with its session, zero latency at any block size), for LV2 hosts such as\n\
 Ardour, Carla, jalv, PipeWire's filter-chain and GStreamer.")
include(CPack)
