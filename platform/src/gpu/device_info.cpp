// platform/src/gpu/device_info.cpp — canopy::query_device() on GPUs (CUDA and HIP, through the vendor
// map). Compiled by the backend's device compiler (canopy_kernel_sources): platform/config.hpp accepts
// CANOPY_BACKEND_CUDA only under nvcc.
#include <string>

#include "canopy/platform/detail/gpu/vendor.hpp"
#include "canopy/platform/device_info.hpp"
#include "canopy/platform/error.hpp"

namespace canopy {

device_info query_device() {
    namespace gpu = detail::gpu;
    int count = 0;
    const gpu::error_t e = CANOPY_GPU_API(GetDeviceCount)(&count);
    if (e != gpu::success || count == 0) {
        // Not an API misuse but the machine: say so plainly (this is what a build host without a GPU,
        // or without a driver, sees). Clear the last error so the next launch does not report it again.
        static_cast<void>(CANOPY_GPU_API(GetLastError)());
        throw error(std::string("canopy::query_device: no ") + gpu::api_name + " device is available (" +
                    gpu::backend_name + "GetDeviceCount: " +
                    (e != gpu::success ? CANOPY_GPU_API(GetErrorString)(e) : "0 devices") + ")");
    }
    int dev = 0;
    CANOPY_CHECK(CANOPY_GPU_API(GetDevice)(&dev));
    gpu::device_prop_t p{};
    CANOPY_CHECK(CANOPY_GPU_API(GetDeviceProperties)(&p, dev));

    device_info d;
    d.backend = gpu::backend_name;
    d.compute_units = static_cast<unsigned>(p.multiProcessorCount);
    d.subgroup_size = static_cast<unsigned>(p.warpSize);
    d.max_block_size = static_cast<unsigned>(p.maxThreadsPerBlock);
    d.max_threads_per_cu = static_cast<unsigned>(p.maxThreadsPerMultiProcessor);
    d.global_memory_bytes = p.totalGlobalMem;
#if defined(CANOPY_BACKEND_HIP)
    d.name = p.name;
    if (p.gcnArchName[0] != '\0') {
        d.name +=
            std::string(" (") + p.gcnArchName + ")"; // e.g. "gfx90a:sramecc+:xnack-": says wave64 or wave32
    }
    // HIP 5.2's hipDeviceProp_t has no maxBlocksPerMultiProcessor (its device attribute is marked
    // "CUDA only" and fails on AMD). Every resident work-group holds at least one wavefront, so the
    // CU's wavefront slots bound the resident work-groups: max_threads_per_cu / subgroup_size (40 on
    // CDNA/GCN: 4 SIMDs x 10 waves). It is an upper bound; max_resident_blocks<K>() asks the occupancy
    // calculator, which knows each kernel's real limits.
    d.max_blocks_per_cu = d.subgroup_size != 0 ? d.max_threads_per_cu / d.subgroup_size : 0;
    d.shared_bytes_per_block = p.sharedMemPerBlock;
    d.shared_bytes_per_cu = p.maxSharedMemoryPerMultiProcessor;
#else
    d.name = std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ")";
    d.max_blocks_per_cu = static_cast<unsigned>(p.maxBlocksPerMultiProcessor);
    // canopy::launch opts kernels in to more than the default 48 KiB of dynamic shared memory, so the
    // per-block limit is the opt-in one (227 KiB on sm_90).
    d.shared_bytes_per_block = p.sharedMemPerBlockOptin;
    d.shared_bytes_per_cu = p.sharedMemPerMultiprocessor;
#endif
    return d;
}

} // namespace canopy
