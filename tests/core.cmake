gfir_unit_test(streaming_test)
gfir_unit_test(pool_test)
gfir_unit_test(realtime_test)
target_link_options(realtime_test PRIVATE
  -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=pthread_mutex_lock,--wrap=pthread_cond_wait)
set_tests_properties(realtime_test PROPERTIES ENVIRONMENT GFIR_FFTW_PLANNER=estimate)
