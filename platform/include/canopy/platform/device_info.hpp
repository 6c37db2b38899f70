// canopy/platform/device_info.hpp — what the current device is and how much it can hold.
#pragma once

#include <cstddef>
#include <string>

#include "canopy/platform/config.hpp"

namespace canopy {

struct device_info {
    std::string backend;                    // "cpu", "hip" or "cuda"
    std::string name;                       // GPU name, or "emulator:<preset>"
    unsigned compute_units = 0;             // CUs / SMs (emulator: virtual CUs)
    unsigned subgroup_size = 0;             // 32 or 64
    unsigned max_block_size = 0;            // work-items per work-group
    unsigned max_blocks_per_cu = 0;         // hardware limit on resident work-groups per CU
    unsigned max_threads_per_cu = 0;        // resident work-items per CU
    std::size_t shared_bytes_per_block = 0; // block-shared memory a work-group may use
    std::size_t shared_bytes_per_cu = 0;    // block-shared memory per CU (limits residency)
    std::size_t global_memory_bytes = 0;    // device memory (emulator: host memory)
};

/// The device kernels launch on (GPU: the current device; emulator: its current virtual device).
device_info query_device();

/// Resident work-groups per CU for a kernel that needs nothing but `block_size` work-items and
/// `shared_bytes` of shared memory: the occupancy formula every backend applies.
inline unsigned resident_blocks_per_cu(const device_info& d, unsigned block_size, std::size_t shared_bytes) {
    if (block_size == 0 || block_size > d.max_block_size || shared_bytes > d.shared_bytes_per_block) {
        return 0;
    }
    unsigned n = d.max_blocks_per_cu;
    const unsigned by_threads = d.max_threads_per_cu / block_size;
    n = by_threads < n ? by_threads : n;
    if (shared_bytes > 0) {
        const auto by_shared = static_cast<unsigned>(d.shared_bytes_per_cu / shared_bytes);
        n = by_shared < n ? by_shared : n;
    }
    return n;
}

} // namespace canopy
