# GPU tests: built wherever CUDA is, skipped (exit 77) where no device is.
if(GFIR_CUDA)
  foreach(t cuda_test cuda_fft_test)
    gfir_unit_test(${t})
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
    target_link_libraries(${t} PRIVATE CUDA::cudart_static)
  endforeach()
endif()
