# GPU tests: built wherever CUDA is, skipped (exit 77) where no device is.
if(GFIR_CUDA)
  gfir_unit_test(cuda_test)
  target_include_directories(cuda_test PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
  target_link_libraries(cuda_test PRIVATE CUDA::cudart_static)
endif()
