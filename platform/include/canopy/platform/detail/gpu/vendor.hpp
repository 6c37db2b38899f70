// canopy/platform/detail/gpu/vendor.hpp — the vendor map under canopy's one GPU host layer.
//
// The host side of the two GPU backends (errors, streams, events, memory and copies, launch and
// occupancy, cooperative launch, the device-wide primitives' scaffolding, device info) is written once,
// in detail/gpu/, against the names below. HIP's runtime API mirrors CUDA's name for name with a `hip`
// prefix where CUDA has `cuda`, so CANOPY_GPU_API(Malloc) is cudaMalloc or hipMalloc; the few names
// that do not follow that rule (device attributes, the trap, the occupancy entry point's argument type)
// are spelled out here. What truly differs in device code (atomics, sub-group collectives, ids, spin,
// barriers) stays in detail/cuda/ and detail/hip/.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_HIP)
#    include <hip/hip_runtime.h>
#    define CANOPY_GPU_API(name) hip##name
// The kernel's trap (s_trap; a noreturn builtin): the host sees the fault at its next synchronization.
#    define CANOPY_GPU_TRAP() __builtin_trap()
#elif defined(CANOPY_BACKEND_CUDA)
#    include <cuda_runtime.h>
#    define CANOPY_GPU_API(name) cuda##name
// The kernel's trap: the host sees cudaErrorLaunchFailure at its next synchronization.
#    define CANOPY_GPU_TRAP() __trap()
#else
#    error "detail/gpu/ is the GPU backends' host layer: CANOPY_BACKEND_HIP or CANOPY_BACKEND_CUDA"
#endif

namespace canopy::detail::gpu {

using error_t = CANOPY_GPU_API(Error_t);
using stream_t = CANOPY_GPU_API(Stream_t);
using event_t = CANOPY_GPU_API(Event_t);
inline constexpr error_t success = CANOPY_GPU_API(Success);

#if defined(CANOPY_BACKEND_HIP)
inline constexpr const char* api_name = "HIP";
inline constexpr const char* backend_name = "hip";
using device_prop_t = hipDeviceProp_t;
using device_attr_t = hipDeviceAttribute_t;
inline constexpr device_attr_t attr_max_threads_per_block = hipDeviceAttributeMaxThreadsPerBlock;
inline constexpr device_attr_t attr_max_grid_x = hipDeviceAttributeMaxGridDimX;
inline constexpr device_attr_t attr_max_shared_per_block = hipDeviceAttributeMaxSharedMemoryPerBlock;
inline constexpr device_attr_t attr_compute_units = hipDeviceAttributeMultiprocessorCount;
inline constexpr device_attr_t attr_cooperative_launch = hipDeviceAttributeCooperativeLaunch;
#else
inline constexpr const char* api_name = "CUDA";
inline constexpr const char* backend_name = "cuda";
using device_prop_t = cudaDeviceProp;
using device_attr_t = cudaDeviceAttr;
inline constexpr device_attr_t attr_max_threads_per_block = cudaDevAttrMaxThreadsPerBlock;
inline constexpr device_attr_t attr_max_grid_x = cudaDevAttrMaxGridDimX;
inline constexpr device_attr_t attr_max_shared_per_block = cudaDevAttrMaxSharedMemoryPerBlock;
inline constexpr device_attr_t attr_compute_units = cudaDevAttrMultiProcessorCount;
inline constexpr device_attr_t attr_cooperative_launch = cudaDevAttrCooperativeLaunch;
/// Dynamic shared memory above 48 KiB per block needs an opt-in per kernel
/// (cudaFuncAttributeMaxDynamicSharedMemorySize); launch.hpp makes it. AMD has no opt-in.
inline constexpr device_attr_t attr_max_shared_per_block_opt_in = cudaDevAttrMaxSharedMemoryPerBlockOptin;
#endif

} // namespace canopy::detail::gpu
