// canopy/emulator/virtual_device.hpp — the GPU the emulator pretends to be.
//
// A virtual device fixes what kernels can observe about the hardware: compute units, how many
// work-groups each holds resident, the sub-group size, and memory limits. Residency is the property
// that matters most: a kernel that waits on a work-group that is not resident deadlocks here exactly
// as on a GPU (Sorensen et al. §2.3), so the numbers are enforced, not advisory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::emu {

struct virtual_device {
    std::string name;
    unsigned compute_units = 0;
    unsigned blocks_per_cu = 0;  // resident work-group slots per CU
    unsigned threads_per_cu = 0; // resident work-items per CU
    unsigned subgroup_size = 0;  // 32 or 64
    unsigned max_block_size = 0; // work-items per work-group
    std::size_t shared_bytes_per_block = 0;
    std::size_t shared_bytes_per_cu = 0;
    std::string description;
};

/// The built-in presets: "tiny" (unit tests), "hrf8" (the HRF paper's GPU), "wide" (throughput),
/// "h100" (an NVIDIA H100-shaped device: 132 SMs, for occupancy at scale).
const std::vector<virtual_device>& presets();

/// The preset called `name`; throws canopy::error listing the valid names when there is none.
const virtual_device& preset(std::string_view name);

/// A copy of `base` with another sub-group size (32 or 64); throws canopy::error otherwise.
virtual_device with_subgroup_size(virtual_device base, unsigned subgroup_size);

} // namespace canopy::emu
