// canopy/platform/detail/cuda/launch.hpp — kernel launch and occupancy on NVIDIA GPUs (CUDA).
// Included by launch.hpp only.
//
// Every kernel type K gets one __global__ trampoline<K>, which receives the functor by value (its
// captures are the kernel's arguments) and calls it. The launch is asynchronous; a bad configuration
// is reported at once (canopy::error naming the fix), a failing kernel at the next synchronization.
//
// Dynamic shared memory above the default 48 KiB per block needs an opt-in per kernel
// (cudaFuncAttributeMaxDynamicSharedMemorySize); launch and max_resident_blocks do it, so the limit
// kernel code sees is the device's opt-in maximum (device_info::shared_bytes_per_block).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "canopy/platform/error.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy::detail {

template <class K> __global__ void trampoline(K k) { k(); }

/// What a launch may ask of the current device.
struct launch_limits {
    unsigned max_block = 0;         // threads per block
    unsigned max_grid = 0;          // blocks per grid (x)
    std::size_t default_shared = 0; // shared bytes per block without opt-in (48 KiB)
    std::size_t max_shared = 0;     // shared bytes per block with opt-in
    unsigned compute_units = 0;     // SMs
};

inline launch_limits current_launch_limits() {
    int dev = 0;
    CANOPY_CHECK(cudaGetDevice(&dev));
    int block = 0;
    int grid = 0;
    int shared = 0;
    int shared_optin = 0;
    int sms = 0;
    CANOPY_CHECK(cudaDeviceGetAttribute(&block, cudaDevAttrMaxThreadsPerBlock, dev));
    CANOPY_CHECK(cudaDeviceGetAttribute(&grid, cudaDevAttrMaxGridDimX, dev));
    CANOPY_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, dev));
    CANOPY_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CANOPY_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return {static_cast<unsigned>(block), static_cast<unsigned>(grid), static_cast<std::size_t>(shared),
            static_cast<std::size_t>(shared_optin), static_cast<unsigned>(sms)};
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

/// Lets trampoline<K> use `bytes` of dynamic shared memory when that is above the default limit.
template <class K> void opt_in_shared(std::size_t bytes, const launch_limits& lim) {
    if (bytes > lim.default_shared) {
        CANOPY_CHECK(cudaFuncSetAttribute(&trampoline<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
    }
}

} // namespace canopy::detail

namespace canopy {

/// Launches k on cfg.grid blocks of cfg.block threads, on cfg.on (nullptr: the default stream).
/// An empty grid launches nothing.
template <class Kernel> void launch(const launch_config& cfg, const Kernel& k) {
    const detail::launch_limits lim = detail::current_launch_limits();
    detail::validate_launch(cfg, lim);
    if (cfg.grid == 0) {
        return;
    }
    detail::opt_in_shared<Kernel>(cfg.shared_bytes, lim);
    const auto s = cfg.on != nullptr ? static_cast<cudaStream_t>(cfg.on->native_handle()) : cudaStream_t{};
    // cudaGetLastError() returns the last error of *any* earlier call; clear it so that the check
    // below reports this launch only (errors of failed kernels are sticky and come back anyway).
    static_cast<void>(cudaGetLastError());
    detail::trampoline<Kernel><<<cfg.grid, cfg.block, cfg.shared_bytes, s>>>(k);
    CANOPY_CHECK(cudaGetLastError());
}

/// Blocks of this kernel the whole device holds resident at once: the occupancy calculator's per-SM
/// figure (registers, shared memory, thread and block slots of trampoline<Kernel>) times the SM count.
/// 0 when the block size or shared memory cannot launch at all.
template <class Kernel> unsigned max_resident_blocks(unsigned block, std::size_t shared_bytes = 0) {
    const detail::launch_limits lim = detail::current_launch_limits();
    if (block == 0 || block > lim.max_block || shared_bytes > lim.max_shared) {
        return 0;
    }
    detail::opt_in_shared<Kernel>(shared_bytes, lim);
    int per_sm = 0;
    CANOPY_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, detail::trampoline<Kernel>,
                                                               static_cast<int>(block), shared_bytes));
    return per_sm > 0 ? static_cast<unsigned>(per_sm) * lim.compute_units : 0U;
}

} // namespace canopy
