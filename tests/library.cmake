# The library as its users meet it: error paths, the public header on its own,
# the installed tree (pkg-config and CMake consumers), and the vectorised loop.

gfir_unit_test(error_test)
# The version the build was configured with: the header's macros must match it.
target_compile_definitions(error_test PRIVATE GFIR_PROJECT_VERSION="${PROJECT_VERSION}")
