// canopy/platform/detail/hip/grid_sync.hpp — cooperative launch and grid sync on AMD GPUs.
// Included by grid_sync.hpp only.
#pragma once

#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <cstddef>
#include <string>

#include "canopy/platform/error.hpp"
#include "canopy/platform/launch.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy {

template <class Kernel> void launch_cooperative(const launch_config& cfg, const Kernel& k) {
    detail::validate_launch(cfg, detail::current_launch_limits());
    if (cfg.grid == 0) {
        return;
    }
    int dev = 0;
    int cooperative = 0;
    CANOPY_CHECK(hipGetDevice(&dev));
    CANOPY_CHECK(hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, dev));
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
    const auto s = cfg.on != nullptr ? static_cast<hipStream_t>(cfg.on->native_handle()) : hipStream_t{};
    Kernel copy = k;
    void* args[] = {&copy};
    static_cast<void>(hipGetLastError());
    CANOPY_CHECK(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&detail::trampoline<Kernel>),
                                            dim3(cfg.grid), dim3(cfg.block), args,
                                            static_cast<unsigned>(cfg.shared_bytes), s));
}

CANOPY_DEVICE inline void grid_sync() { cooperative_groups::this_grid().sync(); }

} // namespace canopy
