# gfir-bench: CUDA kernels timed with CUDA events (needs a GPU to run).
if(GFIR_CUDA)
  add_executable(gfir-bench gfir_bench.cu)
  target_include_directories(gfir-bench PRIVATE ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gfir-bench PRIVATE gfir_static CUDA::cudart_static)
  set_target_properties(gfir-bench PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
endif()
