# End-to-end tests of the gfir executable (tests/cli/test_cli.py), one ctest
# per group. They need a Python 3 with NumPy and SciPy: Debian's, not whatever
# python3 comes first on PATH; without them each test reports itself skipped.
set(GFIR_TEST_PYTHON /usr/bin/python3 CACHE FILEPATH
    "Python 3 with numpy and scipy for the command-line tests")
foreach(group options convolve blocks presets formats errors)
  add_test(NAME cli_${group}
           COMMAND ${GFIR_TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.py
                   $<TARGET_FILE:gfir_cli> ${group})
  set_tests_properties(cli_${group} PROPERTIES SKIP_RETURN_CODE ${GFIR_SKIP_CODE}
                       TIMEOUT 600)
endforeach()
