# canopyKernelSources.cmake — installed with canopy's package: canopy_kernel_sources(<files>) compiles
# the files that include canopy's headers (kernels, and the host code that launches them) with the
# backend's device compiler, so one CMakeLists.txt builds the same sources for every backend:
#   cpu   nothing to do: the emulator is plain C++ compiled by the host compiler;
#   hip   nothing to do: the project's CXX compiler is hipcc, and canopy::backend adds -x hip;
#   cuda  the files become LANGUAGE CUDA (nvcc), C++20, with canopy's nvcc flags (canopy::backend).
# Call it in the directory that creates the target using the files (source properties are per
# directory). canopy_BACKEND is set by canopyConfig.cmake.
if(canopy_BACKEND STREQUAL "cuda")
  # CMake 3.25 knows nvcc's -std= flags only up to C++17; nvcc accepts -std=c++20 since CUDA 12.0.
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  if(NOT DEFINED CMAKE_CUDA_STANDARD)
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  endif()
  function(canopy_kernel_sources)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endfunction()
else()
  function(canopy_kernel_sources)
  endfunction()
endif()
