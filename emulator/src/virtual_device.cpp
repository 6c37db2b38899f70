#include "canopy/emulator/virtual_device.hpp"

#include <fmt/format.h>

#include "canopy/vocabulary/error.hpp"

namespace canopy::emu {

const std::vector<virtual_device>& presets() {
    // tiny, hrf8, wide: residency numbers chosen so that tests exercise both sides of the occupancy
    // bound with few fibers; a model of a GPU's limits, not of any product's exact ones. h100 copies a
    // product's documented per-SM limits, for effects that grow with the number of resident
    // work-groups (occupancy discovery). Every work-item is a fiber whose stack is two memory mappings
    // (guard page + stack), so a launch keeps its resident work-items well under vm.max_map_count / 2
    // (65,530 / 2 by default): on h100 use small work-groups and limit residency with shared memory.
    constexpr std::size_t kib = 1024; // sizes in size_t arithmetic (no int product widened)
    static const std::vector<virtual_device> all = {
        {"tiny", 2, 2, 512, 32, 256, 16 * kib, 32 * kib,
         "2 CUs x 2 resident work-groups, wave32: small enough for exhaustive-ish unit tests"},
        {"hrf8", 8, 4, 1024, 64, 1024, 32 * kib, 64 * kib,
         "the HRF paper's GPU (Hower et al. Table 1): 8 CUs x 4 SIMDs, wave64; 4 resident work-groups per "
         "CU"},
        // The graph experiment's larger device (docs/graph-experiment.md): hrf8's CU, 32 of them.
        {"hrf32", 32, 4, 1024, 64, 1024, 32 * kib, 64 * kib,
         "hrf8's CU (4 SIMDs, wave64, 4 resident work-groups) x 32: the graph experiment's larger device"},
        {"wide", 32, 8, 2048, 32, 1024, 48 * kib, 96 * kib,
         "a mid-size NVIDIA-like GPU: 32 SMs x 8 resident work-groups, warp32, for throughput runs"},
        // NVIDIA H100 SXM's residency limits per SM (CUDA C++ Programming Guide, compute capability 9.0:
        // 32 resident blocks, 2,048 resident threads, 1,024 threads per block, 227 KiB of shared memory
        // per block out of 228 KiB per SM). Registers are not modelled: limit residency with the block
        // size or dynamic shared memory (a UTS-like kernel of 128 work-items gets 16 per SM: 2,112).
        {"h100", 132, 32, 2048, 32, 1024, 227 * kib, 228 * kib,
         "NVIDIA H100 SXM-shaped: 132 SMs; per SM 32 resident work-groups, 2,048 resident work-items, "
         "228 KiB shared (227 KiB per work-group); warp32; registers not modelled"},
    };
    return all;
}

const virtual_device& preset(std::string_view name) {
    std::string names;
    for (const auto& d : presets()) {
        if (d.name == name) {
            return d;
        }
        names += names.empty() ? d.name : ", " + d.name;
    }
    throw canopy::error(fmt::format("unknown virtual device '{}' (presets: {})", name, names));
}

virtual_device with_subgroup_size(virtual_device base, unsigned subgroup_size) {
    if (subgroup_size != 32 && subgroup_size != 64) {
        throw canopy::error(fmt::format("sub-group size must be 32 or 64 (got {})", subgroup_size));
    }
    base.subgroup_size = subgroup_size;
    return base;
}

} // namespace canopy::emu
