gfir_unit_test(design_test)
target_compile_definitions(design_test PRIVATE
  GFIR_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
