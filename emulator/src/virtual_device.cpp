#include "canopy/emulator/virtual_device.hpp"

#include <fmt/format.h>

#include "canopy/platform/error.hpp"

namespace canopy::emu {

const std::vector<virtual_device>& presets() {
    // Residency numbers are chosen so that tests exercise both sides of the occupancy bound with
    // few fibers; they are a model of a GPU's limits, not of any product's exact ones.
    static const std::vector<virtual_device> all = {
        {"tiny", 2, 2, 512, 32, 256, 16 * 1024, 32 * 1024,
         "2 CUs x 2 resident work-groups, wave32: small enough for exhaustive-ish unit tests"},
        {"hrf8", 8, 4, 1024, 64, 1024, 32 * 1024, 64 * 1024,
         "the HRF paper's GPU (Hower et al. Table 1): 8 CUs x 4 SIMDs, wave64; 4 resident work-groups per "
         "CU"},
        {"wide", 32, 8, 2048, 32, 1024, 48 * 1024, 96 * 1024,
         "a mid-size NVIDIA-like GPU: 32 SMs x 8 resident work-groups, warp32, for throughput runs"},
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
