// canopy/platform/detail/gpu/grid_sync.hpp — cooperative launch and grid sync on GPUs (CUDA and HIP,
// through the vendor map). Included by grid_sync.hpp only.
#pragma once

#include <cstddef>
#include <string>

#include "canopy/platform/detail/gpu/vendor.hpp" // the runtime header before cooperative groups (HIP needs it)
#if defined(CANOPY_BACKEND_HIP)
#    include <hip/hip_cooperative_groups.h>
#else
#    include <cooperative_groups.h>
#endif
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
    CANOPY_CHECK(CANOPY_GPU_API(GetDevice)(&dev));
    if (detail::device_attribute(detail::gpu::attr_cooperative_launch, dev) == 0) {
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
    Kernel copy = k;
    void* args[] = {&copy};
    static_cast<void>(CANOPY_GPU_API(GetLastError)());
    CANOPY_CHECK(CANOPY_GPU_API(LaunchCooperativeKernel)(
        reinterpret_cast<const void*>(&detail::trampoline<Kernel>), dim3(cfg.grid), dim3(cfg.block), args,
        static_cast<unsigned>(cfg.shared_bytes), detail::stream_of(cfg)));
}

CANOPY_DEVICE inline void grid_sync() { cooperative_groups::this_grid().sync(); }

} // namespace canopy
