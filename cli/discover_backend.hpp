// The device side of `canopy discover`, in plain types (compiled by the device compiler; see
// backend.hpp for why the host-only CLI files include nothing from platform/).
#pragma once

#include <string>

namespace canopy::cli {

struct discover_result {
    std::string protocol;     // "counter", "ticket" or "spin"
    unsigned discovered = 0;  // participating work-groups the protocol found
    unsigned occupancy = 0;   // true residency: the emulator's configuration / the GPU's occupancy API
    unsigned launched = 0;    // work-groups launched (a multiple of the occupancy)
    unsigned block = 0;       // work-items per work-group
    double seconds = 0;       // the launch running the protocol, host-timed
    double device_ms = 0;     // the kernel alone (platform/kernel_timer.hpp)
    std::string device_clock; // what timed device_ms ("gpu events", or the emulator's host time)
};

/// Launches `oversubscribe` x occupancy work-groups of `block` work-items that run occupancy discovery
/// with `protocol` ("counter", "ticket" or "spin") and exit. Throws canopy::error on a bad name.
discover_result run_discover(const std::string& protocol, unsigned block, unsigned oversubscribe);

} // namespace canopy::cli
