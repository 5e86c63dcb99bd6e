gfir_unit_test(streaming_test)
gfir_unit_test(pool_test)
