# The library as its users meet it: error paths, the public header on its own,
# the installed tree (pkg-config and CMake consumers), and the vectorised loop.

gfir_unit_test(error_test)
# The cache directory's small tables (the GPU's calibrated crossover).
gfir_unit_test(cache_test)
# The version the build was configured with: the header's macros must match it.
target_compile_definitions(error_test PRIVATE GFIR_PROJECT_VERSION="${PROJECT_VERSION}")

# The header alone under -pedantic -Werror as C99 and as C++11 (the project
# itself has no C++, so the compiler is looked up rather than enabled).
find_program(GFIR_CXX_FOR_TESTS NAMES c++ g++ clang++ DOC "C++ compiler for the header test")
if(NOT GFIR_CXX_FOR_TESTS)
  set(GFIR_CXX_FOR_TESTS "")
endif()
add_test(NAME header_test COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/header_test.sh
  ${CMAKE_C_COMPILER} "${GFIR_CXX_FOR_TESTS}" ${PROJECT_SOURCE_DIR}/include $<TARGET_FILE:gfir>)
set_tests_properties(header_test PROPERTIES SKIP_RETURN_CODE ${GFIR_SKIP_CODE})

# The installed tree as other DSP tools use it: pkg-config (shared and static)
# with tools/gfir_example.c checked against NumPy, and a find_package() consumer.
add_test(NAME install_test COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh
  ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_INSTALL_LIBDIR} ${CMAKE_C_COMPILER}
  ${GFIR_TEST_PYTHON})

# GCC must vectorise the direct kernel's hot loop for each x86-64 width it is
# built for (-fopt-info is GCC's; the widths are x86's).
if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  add_test(NAME vectorize_test COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/vectorize_test.sh
    ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR})
endif()
