// platform/src/cpu/peer.cpp — canopy/platform/peer.hpp on the emulator: one device per process (its
// several devices live inside one launch, emu::options::devices, where host memory is every device's).
#include "canopy/platform/peer.hpp"

#include <string>

#include "canopy/platform/error.hpp"

namespace canopy {

unsigned device_count() { return 1; }

bool can_access_peer(unsigned device, unsigned peer) {
    if (device != 0 || peer != 0) {
        throw error("canopy: the emulator is one device (0); its several devices are inside one launch "
                    "(runtime::config::devices), not peers (asked about " +
                    std::to_string(device) + " and " + std::to_string(peer) + ")");
    }
    return true;
}

void enable_peer_access(unsigned peer) { static_cast<void>(can_access_peer(0, peer)); }

} // namespace canopy
