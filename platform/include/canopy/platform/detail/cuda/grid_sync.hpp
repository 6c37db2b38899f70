// canopy/platform/detail/cuda/grid_sync.hpp — cooperative launch and grid sync on NVIDIA GPUs.
// Included by grid_sync.hpp only.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "canopy/platform/error.hpp"
#include "canopy/platform/launch.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy {

template <class Kernel> void launch_cooperative(const launch_config& cfg, const Kernel& k) {
    const detail::launch_limits lim = detail::current_launch_limits();
    detail::validate_launch(cfg, lim);
    if (cfg.grid == 0) {
        return;
    }
    int dev = 0;
    int cooperative = 0;
    CANOPY_CHECK(cudaGetDevice(&dev));
    CANOPY_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev));
    if (cooperative == 0) {
        throw error("canopy::launch_cooperative: this device cannot launch cooperative kernels");
    }
    const unsigned resident = max_resident_blocks<Kernel>(cfg.block, cfg.shared_bytes);
    if (cfg.grid > resident) {
        throw error("canopy::launch_cooperative: grid of " + std::to_string(cfg.grid) +
                    " work-groups exceeds the " + std::to_string(resident) +
                    " the device holds resident at once; a cooperative launch must be co-resident "
                    "(launch at most max_resident_blocks work-groups)");
    }
    detail::opt_in_shared<Kernel>(cfg.shared_bytes, lim);
    const auto s = cfg.on != nullptr ? static_cast<cudaStream_t>(cfg.on->native_handle()) : cudaStream_t{};
    Kernel copy = k;
    void* args[] = {&copy};
    static_cast<void>(cudaGetLastError());
    CANOPY_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&detail::trampoline<Kernel>),
                                             dim3(cfg.grid), dim3(cfg.block), args, cfg.shared_bytes, s));
}

CANOPY_DEVICE inline void grid_sync() { cooperative_groups::this_grid().sync(); }

} // namespace canopy
