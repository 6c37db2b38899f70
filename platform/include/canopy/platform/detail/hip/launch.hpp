// canopy/platform/detail/hip/launch.hpp — kernel launch and occupancy on AMD GPUs (HIP).
// Included by launch.hpp only.
//
// Every kernel type K gets one __global__ trampoline<K>, which receives the functor by value (its
// captures are the kernel's arguments) and calls it. The launch is asynchronous; a bad configuration
// is reported at once (canopy::error naming the fix), a failing kernel at the next synchronization.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <string>

#include "canopy/platform/error.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy::detail {

template <class K> __global__ void trampoline(K k) { k(); }

/// What a launch may ask of the current device.
struct launch_limits {
    unsigned max_block = 0;     // work-items per work-group
    unsigned max_grid = 0;      // work-groups per grid (x)
    std::size_t max_shared = 0; // dynamic + static shared bytes per work-group
    unsigned compute_units = 0; // CUs
};

inline launch_limits current_launch_limits() {
    int dev = 0;
    CANOPY_CHECK(hipGetDevice(&dev));
    int block = 0;
    int grid = 0;
    int shared = 0;
    int cus = 0;
    CANOPY_CHECK(hipDeviceGetAttribute(&block, hipDeviceAttributeMaxThreadsPerBlock, dev));
    CANOPY_CHECK(hipDeviceGetAttribute(&grid, hipDeviceAttributeMaxGridDimX, dev));
    CANOPY_CHECK(hipDeviceGetAttribute(&shared, hipDeviceAttributeMaxSharedMemoryPerBlock, dev));
    CANOPY_CHECK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, dev));
    return {static_cast<unsigned>(block), static_cast<unsigned>(grid), static_cast<std::size_t>(shared),
            static_cast<unsigned>(cus)};
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

} // namespace canopy::detail

namespace canopy {

/// Launches k on cfg.grid work-groups of cfg.block work-items, on cfg.on (nullptr: the default stream).
/// An empty grid launches nothing.
template <class Kernel> void launch(const launch_config& cfg, const Kernel& k) {
    detail::validate_launch(cfg, detail::current_launch_limits());
    if (cfg.grid == 0) {
        return;
    }
    const auto s = cfg.on != nullptr ? static_cast<hipStream_t>(cfg.on->native_handle()) : hipStream_t{};
    // hipGetLastError() returns the last error of *any* earlier call; clear it so that the check
    // below reports this launch only (errors of failed kernels are sticky and come back anyway).
    static_cast<void>(hipGetLastError());
    hipLaunchKernelGGL(detail::trampoline<Kernel>, dim3(cfg.grid), dim3(cfg.block),
                       static_cast<unsigned>(cfg.shared_bytes), s, k);
    CANOPY_CHECK(hipGetLastError());
}

/// Work-groups of this kernel the whole device holds resident at once: the occupancy calculator's
/// per-CU figure (registers, LDS, wave slots of trampoline<Kernel>) times the CU count. 0 when the
/// block size or shared memory cannot launch at all.
template <class Kernel> unsigned max_resident_blocks(unsigned block, std::size_t shared_bytes = 0) {
    const detail::launch_limits lim = detail::current_launch_limits();
    if (block == 0 || block > lim.max_block || shared_bytes > lim.max_shared) {
        return 0;
    }
    int per_cu = 0;
    CANOPY_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_cu, reinterpret_cast<const void*>(&detail::trampoline<Kernel>), static_cast<int>(block),
        shared_bytes));
    return per_cu > 0 ? static_cast<unsigned>(per_cu) * lim.compute_units : 0U;
}

} // namespace canopy
