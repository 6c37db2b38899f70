// canopy/platform/detail/gpu/launch.hpp — kernel launch and occupancy on GPUs (CUDA and HIP, through
// the vendor map). Included by launch.hpp only.
//
// Every kernel type K gets one __global__ trampoline<K>, which receives the functor by value (its
// captures are the kernel's arguments) and calls it. The launch is asynchronous; a bad configuration
// is reported at once (canopy::error naming the fix), a failing kernel at the next synchronization.
// Both compilers take the triple-chevron launch (hipcc's hipLaunchKernelGGL is a macro over it).
//
// NVIDIA: dynamic shared memory above the default 48 KiB per block needs an opt-in per kernel
// (cudaFuncAttributeMaxDynamicSharedMemorySize); launch and max_resident_blocks make it, so the limit
// kernel code sees is the device's opt-in maximum (device_info::shared_bytes_per_block). AMD has no
// opt-in: its per-work-group LDS limit is the limit.
#pragma once

#include <cstddef>
#include <string>

#include "canopy/platform/detail/gpu/vendor.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy::detail {

template <class K> __global__ void trampoline(K k) { k(); }

/// What a launch may ask of the current device.
struct launch_limits {
    unsigned max_block = 0;         // work-items per work-group
    unsigned max_grid = 0;          // work-groups per grid (x)
    std::size_t default_shared = 0; // shared bytes per work-group without opt-in (NVIDIA: 48 KiB)
    std::size_t max_shared = 0;     // shared bytes per work-group with opt-in (AMD: = default_shared)
    unsigned compute_units = 0;     // SMs / CUs
};

inline int device_attribute(gpu::device_attr_t a, int dev) {
    int v = 0;
    CANOPY_CHECK(CANOPY_GPU_API(DeviceGetAttribute)(&v, a, dev));
    return v;
}

inline launch_limits current_launch_limits() {
    int dev = 0;
    CANOPY_CHECK(CANOPY_GPU_API(GetDevice)(&dev));
    launch_limits l;
    l.max_block = static_cast<unsigned>(device_attribute(gpu::attr_max_threads_per_block, dev));
    l.max_grid = static_cast<unsigned>(device_attribute(gpu::attr_max_grid_x, dev));
    l.default_shared = static_cast<std::size_t>(device_attribute(gpu::attr_max_shared_per_block, dev));
    l.max_shared = l.default_shared;
#if defined(CANOPY_BACKEND_CUDA)
    l.max_shared = static_cast<std::size_t>(device_attribute(gpu::attr_max_shared_per_block_opt_in, dev));
#endif
    l.compute_units = static_cast<unsigned>(device_attribute(gpu::attr_compute_units, dev));
    return l;
}

inline void validate_launch(const launch_config& cfg, const launch_limits& lim) {
    if (cfg.block == 0 || cfg.block > lim.max_block) {
        throw error("canopy::launch: block size " + std::to_string(cfg.block) +
                    " is not supported by this device; use 1 <= launch_config::block <= " +
                    std::to_string(lim.max_block) + " (device_info::max_block_size)");
    }
    if (cfg.grid > lim.max_grid) {
        throw error("canopy::launch: grid of " + std::to_string(cfg.grid) +
                    " work-groups exceeds the device maximum of " + std::to_string(lim.max_grid) +
                    "; launch fewer work-groups and loop over the work inside the kernel");
    }
    if (cfg.shared_bytes > lim.max_shared) {
        throw error(
            "canopy::launch: " + std::to_string(cfg.shared_bytes) +
            " bytes of dynamic shared memory exceed the device maximum of " + std::to_string(lim.max_shared) +
            " per work-group; lower launch_config::shared_bytes (device_info::shared_bytes_per_block)");
    }
}

/// Lets trampoline<K> use `bytes` of dynamic shared memory when that is above the default limit
/// (NVIDIA only; nothing to do on AMD).
template <class K> void opt_in_shared(std::size_t bytes, const launch_limits& lim) {
#if defined(CANOPY_BACKEND_CUDA)
    if (bytes > lim.default_shared) {
        CANOPY_CHECK(cudaFuncSetAttribute(&trampoline<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
    }
#else
    static_cast<void>(bytes);
    static_cast<void>(lim);
#endif
}

/// The stream a launch goes to (nullptr: the default stream).
inline gpu::stream_t stream_of(const launch_config& cfg) {
    return cfg.on != nullptr ? static_cast<gpu::stream_t>(cfg.on->native_handle()) : gpu::stream_t{};
}

} // namespace canopy::detail

namespace canopy {

/// Launches k on cfg.grid work-groups of cfg.block work-items, on cfg.on (nullptr: the default stream).
/// An empty grid launches nothing.
template <class Kernel> void launch(const launch_config& cfg, const Kernel& k) {
    const detail::launch_limits lim = detail::current_launch_limits();
    detail::validate_launch(cfg, lim);
    if (cfg.grid == 0) {
        return;
    }
    detail::opt_in_shared<Kernel>(cfg.shared_bytes, lim);
    const detail::gpu::stream_t s = detail::stream_of(cfg);
    // GetLastError() returns the last error of *any* earlier call; clear it so that the check below
    // reports this launch only (errors of failed kernels are sticky and come back anyway).
    static_cast<void>(CANOPY_GPU_API(GetLastError)());
    detail::trampoline<Kernel>
        <<<dim3(cfg.grid), dim3(cfg.block), static_cast<unsigned>(cfg.shared_bytes), s>>>(k);
    CANOPY_CHECK(CANOPY_GPU_API(GetLastError)());
}

/// Work-groups of this kernel the whole device holds resident at once: the occupancy calculator's per-SM
/// (per-CU) figure — registers, shared memory (LDS), thread / wave and block slots of trampoline<Kernel>
/// — times the SM (CU) count. 0 when the block size or shared memory cannot launch at all.
template <class Kernel> unsigned max_resident_blocks(unsigned block, std::size_t shared_bytes = 0) {
    const detail::launch_limits lim = detail::current_launch_limits();
    if (block == 0 || block > lim.max_block || shared_bytes > lim.max_shared) {
        return 0;
    }
    detail::opt_in_shared<Kernel>(shared_bytes, lim);
    int per_cu = 0;
    CANOPY_CHECK(CANOPY_GPU_API(OccupancyMaxActiveBlocksPerMultiprocessor)(
        &per_cu, reinterpret_cast<const void*>(&detail::trampoline<Kernel>), static_cast<int>(block),
        shared_bytes));
    return per_cu > 0 ? static_cast<unsigned>(per_cu) * lim.compute_units : 0U;
}

} // namespace canopy
