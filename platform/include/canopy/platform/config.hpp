// canopy/platform/config.hpp — the one place that decides which backend a translation unit targets.
//
// Exactly one of CANOPY_BACKEND_CPU, CANOPY_BACKEND_HIP, CANOPY_BACKEND_CUDA is defined. CMake passes
// it on the command line (cmake/canopy_backend.cmake); we cross-check it against the compiler's own
// predefines so that a kernel TU compiled by the wrong compiler fails here, loudly, instead of
// silently picking the emulator's code paths.
#pragma once

// The exactly-one check, canopy::backend and canopy::lane_mask are vocabulary below the emulator too.
#include "canopy/vocabulary/backend.hpp"
#include "canopy/vocabulary/lane_mask.hpp"

#if defined(CANOPY_BACKEND_CUDA) && !defined(__CUDACC__)
#    error "CANOPY_BACKEND_CUDA needs nvcc (the TU must be compiled as CUDA)"
#endif
#if defined(CANOPY_BACKEND_HIP) && !defined(__HIP__) && !defined(__HIPCC__)
#    error "CANOPY_BACKEND_HIP needs hipcc (the TU must be compiled as HIP)"
#endif

#if defined(CANOPY_BACKEND_CPU)
// On the emulator every function runs on the host; kernels are ordinary C++.
#    define CANOPY_DEVICE
#    define CANOPY_HOST_DEVICE
#    define CANOPY_KERNEL
#    define CANOPY_FORCEINLINE inline __attribute__((always_inline))
#    define CANOPY_DEVICE_COMPILE 0
#    define CANOPY_BACKEND_NAME "cpu"
#else
#    define CANOPY_DEVICE __device__
#    define CANOPY_HOST_DEVICE __host__ __device__
#    define CANOPY_KERNEL __global__
#    define CANOPY_FORCEINLINE __forceinline__
#    if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#        define CANOPY_DEVICE_COMPILE 1
#    else
#        define CANOPY_DEVICE_COMPILE 0
#    endif
#    if defined(CANOPY_BACKEND_HIP)
#        define CANOPY_BACKEND_NAME "hip"
#    else
#        define CANOPY_BACKEND_NAME "cuda"
#    endif
#endif
