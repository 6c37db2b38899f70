// platform/src/gpu/peer.cpp — canopy/platform/peer.hpp on GPUs (CUDA and HIP, through the vendor map).
// Compiled by the backend's device compiler (canopy_kernel_sources), as device_info.cpp is.
#include "canopy/platform/peer.hpp"

#include <string>

#include "canopy/platform/detail/gpu/vendor.hpp"
#include "canopy/platform/error.hpp"

namespace canopy {

namespace {
int checked(unsigned device) {
    const unsigned n = device_count();
    if (device >= n) {
        throw error("canopy: device " + std::to_string(device) + " does not exist (" + std::to_string(n) +
                    " visible)");
    }
    return static_cast<int>(device);
}
} // namespace

unsigned device_count() {
    int count = 0;
    if (CANOPY_GPU_API(GetDeviceCount)(&count) != detail::gpu::success) {
        static_cast<void>(CANOPY_GPU_API(GetLastError)()); // no driver or no device: none, not an error
        return 0;
    }
    return count > 0 ? static_cast<unsigned>(count) : 0u;
}

bool can_access_peer(unsigned device, unsigned peer) {
    const int d = checked(device), p = checked(peer);
    if (d == p) {
        return true;
    }
    int ok = 0;
    CANOPY_CHECK(CANOPY_GPU_API(DeviceCanAccessPeer)(&ok, d, p));
    return ok != 0;
}

void enable_peer_access(unsigned peer) {
    const int p = checked(peer);
    int current = 0;
    CANOPY_CHECK(CANOPY_GPU_API(GetDevice)(&current));
    if (current == p) {
        return;
    }
    if (!can_access_peer(static_cast<unsigned>(current), static_cast<unsigned>(p))) {
        throw error("canopy: device " + std::to_string(current) + " cannot reach device " +
                    std::to_string(p) +
                    "'s memory (no peer-to-peer path): put what both use in host-pinned memory instead");
    }
    const detail::gpu::error_t e = CANOPY_GPU_API(DeviceEnablePeerAccess)(p, 0);
    if (e == CANOPY_GPU_API(ErrorPeerAccessAlreadyEnabled)) {
        static_cast<void>(CANOPY_GPU_API(GetLastError)()); // enabled before: idempotent
        return;
    }
    CANOPY_CHECK(e);
}

} // namespace canopy
