// platform/src/hip/device_info.cpp — canopy::query_device() on AMD GPUs (HIP).
#include <hip/hip_runtime.h>

#include <string>

#include "canopy/platform/device_info.hpp"
#include "canopy/platform/error.hpp"

namespace canopy {

device_info query_device() {
    int count = 0;
    const hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0) {
        // Not an API misuse but the machine: say so plainly (this is what a build host without a GPU
        // sees). Clear HIP's last error so that it is not reported again by the next launch.
        static_cast<void>(hipGetLastError());
        throw error(std::string("canopy::query_device: no HIP device is available (hipGetDeviceCount: ") +
                    (e != hipSuccess ? hipGetErrorString(e) : "0 devices") + ")");
    }
    int dev = 0;
    CANOPY_CHECK(hipGetDevice(&dev));
    hipDeviceProp_t p{};
    CANOPY_CHECK(hipGetDeviceProperties(&p, dev));

    device_info d;
    d.backend = "hip";
    d.name = p.name;
    if (p.gcnArchName[0] != '\0') {
        d.name +=
            std::string(" (") + p.gcnArchName + ")"; // e.g. "gfx90a:sramecc+:xnack-": says wave64 or wave32
    }
    d.compute_units = static_cast<unsigned>(p.multiProcessorCount);
    d.subgroup_size = static_cast<unsigned>(p.warpSize);
    d.max_block_size = static_cast<unsigned>(p.maxThreadsPerBlock);
    d.max_threads_per_cu = static_cast<unsigned>(p.maxThreadsPerMultiProcessor);
    // HIP 5.2's hipDeviceProp_t has no maxBlocksPerMultiProcessor (its device attribute is marked
    // "CUDA only" and fails on AMD). Every resident work-group holds at least one wavefront, so the
    // CU's wavefront slots bound the resident work-groups: max_threads_per_cu / subgroup_size (40 on
    // CDNA/GCN: 4 SIMDs x 10 waves). It is an upper bound; max_resident_blocks<K>() asks the occupancy
    // calculator, which knows each kernel's real limits.
    d.max_blocks_per_cu = d.subgroup_size != 0 ? d.max_threads_per_cu / d.subgroup_size : 0;
    d.shared_bytes_per_block = p.sharedMemPerBlock;
    d.shared_bytes_per_cu = p.maxSharedMemoryPerMultiProcessor;
    d.global_memory_bytes = p.totalGlobalMem;
    return d;
}

} // namespace canopy
