// canopy/platform/config.hpp — the one place that decides which backend a translation unit targets.
//
// Exactly one of CANOPY_BACKEND_CPU, CANOPY_BACKEND_HIP, CANOPY_BACKEND_CUDA is defined. CMake passes
// it on the command line (cmake/canopy_backend.cmake); we cross-check it against the compiler's own
// predefines so that a kernel TU compiled by the wrong compiler fails here, loudly, instead of
// silently picking the emulator's code paths.
#pragma once

#if (defined(CANOPY_BACKEND_CPU) + defined(CANOPY_BACKEND_HIP) + defined(CANOPY_BACKEND_CUDA)) != 1
#    error                                                                                                   \
        "define exactly one of CANOPY_BACKEND_CPU, CANOPY_BACKEND_HIP, CANOPY_BACKEND_CUDA (CMake's CANOPY_BACKEND does this)"
#endif

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

namespace canopy {

/// The backend this translation unit was compiled for, as a value (for logs and `canopy info`).
enum class backend { cpu, hip, cuda };

#if defined(CANOPY_BACKEND_CPU)
inline constexpr backend this_backend = backend::cpu;
#elif defined(CANOPY_BACKEND_HIP)
inline constexpr backend this_backend = backend::hip;
#else
inline constexpr backend this_backend = backend::cuda;
#endif

/// Sub-groups are at most 64 lanes on every backend we target (AMD wave64), so a 64-bit mask holds
/// one bit per lane everywhere. Never assume 64 lanes: ask subgroup_size().
using lane_mask = unsigned long long;
inline constexpr unsigned max_subgroup_size = 64;

} // namespace canopy
