# canopy_gpu.cmake — the GPU backends: compilers, device targets and vendor libraries.
#
# Included by canopy_backend.cmake (at the top-level directory scope, after canopy_backend exists) when
# CANOPY_BACKEND is hip or cuda. It provides:
#   canopy_backend                   linked to hip::device + roc::rocprim, or CUDA::cudart
#   CANOPY_GPU_TARGETS               hip: "gfx90a;gfx940;gfx1030" (AMDGPU_TARGETS/GPU_TARGETS); cuda: "90"
#   canopy_kernel_sources(<files>)   compiles the files with the backend's device compiler; call it in
#                                    the directory that creates the target using them (source file
#                                    properties are directory-scoped), or pass
#                                    TARGET_DIRECTORY <targets> to set them where those targets live
#   canopy_host_sources(<files>)     the opposite: host-only files that include no platform/ header
#                                    (hip: compiled as plain C++, see below; cuda: nothing to do)
#   CANOPY_PLATFORM_GPU_SOURCES      platform/src/gpu/*.cpp (both GPU vendors), for the canopy_platform library
#                                    (pass them through canopy_kernel_sources too: they include
#                                    platform headers, which only the device compiler accepts)

get_filename_component(_canopy_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

if(CANOPY_BACKEND STREQUAL "hip")
  # CMake 3.25's HIP language does not find Debian's hip-lang package, so HIP code is compiled as CXX
  # by hipcc (the hip presets set CMAKE_CXX_COMPILER=hipcc), with hip::device adding -x hip and one
  # --offload-arch per target. The rocm_agent_enumerator traceback hip-config prints is harmless.
  set(CANOPY_GPU_TARGETS "gfx90a;gfx940;gfx1030" CACHE STRING "GPU targets (hip: gfx names; cuda: SM numbers)")
  if(NOT CMAKE_CXX_COMPILER MATCHES "hipcc$")
    message(FATAL_ERROR "CANOPY_BACKEND=hip compiles with hipcc: configure with -DCMAKE_CXX_COMPILER=hipcc "
                        "(or CXX=hipcc; the hip presets do this), not ${CMAKE_CXX_COMPILER}")
  endif()
  # hip-config.cmake reads these when it is found, so they must be set before find_package(hip).
  # CANOPY_GPU_TARGETS is the one knob; both spellings follow it.
  set(AMDGPU_TARGETS "${CANOPY_GPU_TARGETS}" CACHE STRING "AMD GPU targets (set CANOPY_GPU_TARGETS)" FORCE)
  set(GPU_TARGETS "${CANOPY_GPU_TARGETS}" CACHE STRING "AMD GPU targets (set CANOPY_GPU_TARGETS)" FORCE)
  find_package(hip REQUIRED CONFIG)
  find_package(rocprim REQUIRED CONFIG)
  target_link_libraries(canopy_backend INTERFACE hip::device roc::rocprim)
  message(STATUS "canopy: hip backend for ${CANOPY_GPU_TARGETS} (hip ${hip_VERSION}, rocPRIM ${rocprim_VERSION})")

  function(canopy_kernel_sources)
    # hipcc compiles every CXX source of a target linked to canopy_backend as HIP: nothing to do.
  endfunction()

  # Host-only sources that include no platform/ header, compiled as plain C++ by hipcc. Needed for
  # code that Clang 15 cannot compile in HIP mode: nlohmann::json::parse() under -std=c++20 crashes
  # it (a segfault in Sema while inferring the CUDA target of an implicit member; plain C++20 and
  # HIP C++17 are fine). The later -x c++ overrides hip::device's -x hip for these files.
  function(canopy_host_sources)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "TARGET_DIRECTORY")
    if(arg_TARGET_DIRECTORY)
      set_property(SOURCE ${arg_UNPARSED_ARGUMENTS} TARGET_DIRECTORY ${arg_TARGET_DIRECTORY}
                   APPEND PROPERTY COMPILE_OPTIONS -x c++)
    else()
      set_property(SOURCE ${arg_UNPARSED_ARGUMENTS} APPEND PROPERTY COMPILE_OPTIONS -x c++)
    endif()
  endfunction()

  set(CANOPY_PLATFORM_GPU_SOURCES ${_canopy_root}/platform/src/gpu/device_info.cpp
    ${_canopy_root}/platform/src/gpu/peer.cpp)

elseif(CANOPY_BACKEND STREQUAL "cuda")
  set(CANOPY_GPU_TARGETS "90" CACHE STRING "GPU targets (hip: gfx names; cuda: SM numbers)")
  # Must be set before enable_language(CUDA), which would otherwise pick its own default.
  set(CMAKE_CUDA_ARCHITECTURES "${CANOPY_GPU_TARGETS}")
  enable_language(CUDA)
  # CMake 3.25 knows nvcc's -std= flags only up to C++17 (Modules/Compiler/NVIDIA-CUDA.cmake); nvcc has
  # accepted -std=c++20 since CUDA 12.0. Teach it, so that CUDA_STANDARD 20 works as for CXX.
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(canopy_backend INTERFACE CUDA::cudart)
  # CANOPY_LAMBDA is a [=] __device__ lambda (--extended-lambda); libcu++ and canopy's constexpr helpers
  # are called from device code (--expt-relaxed-constexpr).
  target_compile_options(canopy_backend INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr>)
  message(STATUS "canopy: cuda backend for sm_${CANOPY_GPU_TARGETS} (nvcc ${CMAKE_CUDA_COMPILER_VERSION})")

  # Every TU that includes platform/ headers is device code: platform/config.hpp rejects a
  # CANOPY_BACKEND_CUDA TU that nvcc does not compile.
  function(canopy_kernel_sources)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "TARGET_DIRECTORY")
    if(arg_TARGET_DIRECTORY)
      set_source_files_properties(${arg_UNPARSED_ARGUMENTS} TARGET_DIRECTORY ${arg_TARGET_DIRECTORY}
                                  PROPERTIES LANGUAGE CUDA)
    else()
      set_source_files_properties(${arg_UNPARSED_ARGUMENTS} PROPERTIES LANGUAGE CUDA)
    endif()
  endfunction()

  # Host-only sources that include no platform/ header stay CXX (the host compiler): nothing to do.
  function(canopy_host_sources)
  endfunction()

  set(CANOPY_PLATFORM_GPU_SOURCES ${_canopy_root}/platform/src/gpu/device_info.cpp
    ${_canopy_root}/platform/src/gpu/peer.cpp)

else()
  message(FATAL_ERROR "canopy_gpu.cmake is for CANOPY_BACKEND=hip or cuda (got '${CANOPY_BACKEND}')")
endif()
