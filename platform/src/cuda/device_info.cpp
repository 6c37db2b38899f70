// platform/src/cuda/device_info.cpp — canopy::query_device() on NVIDIA GPUs (CUDA).
// Compiled by nvcc (canopy_kernel_sources): platform/config.hpp accepts CANOPY_BACKEND_CUDA only there.
#include <cuda_runtime.h>

#include <string>

#include "canopy/platform/device_info.hpp"
#include "canopy/platform/error.hpp"

namespace canopy {

device_info query_device() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        // Not an API misuse but the machine: say so plainly (this is what a build host without a GPU,
        // or without a driver, sees). Clear the last error so the next launch does not report it again.
        static_cast<void>(cudaGetLastError());
        throw error(std::string("canopy::query_device: no CUDA device is available (cudaGetDeviceCount: ") +
                    (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
    }
    int dev = 0;
    CANOPY_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p{};
    CANOPY_CHECK(cudaGetDeviceProperties(&p, dev));

    device_info d;
    d.backend = "cuda";
    d.name = std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ")";
    d.compute_units = static_cast<unsigned>(p.multiProcessorCount);
    d.subgroup_size = static_cast<unsigned>(p.warpSize);
    d.max_block_size = static_cast<unsigned>(p.maxThreadsPerBlock);
    d.max_blocks_per_cu = static_cast<unsigned>(p.maxBlocksPerMultiProcessor);
    d.max_threads_per_cu = static_cast<unsigned>(p.maxThreadsPerMultiProcessor);
    // canopy::launch opts kernels in to more than the default 48 KiB of dynamic shared memory, so the
    // per-block limit is the opt-in one (227 KiB on sm_90).
    d.shared_bytes_per_block = p.sharedMemPerBlockOptin;
    d.shared_bytes_per_cu = p.sharedMemPerMultiprocessor;
    d.global_memory_bytes = p.totalGlobalMem;
    return d;
}

} // namespace canopy
