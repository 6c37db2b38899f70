// canopy discover, device side: occupancy discovery (sync/discovery.hpp) on the current backend.
#include "discover_backend.hpp"

#include <chrono>

#include "canopy/platform/platform.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"

namespace canopy::cli {

namespace {
struct nothing {
    CANOPY_DEVICE void operator()() const {}
};
} // namespace

discover_result run_discover(const std::string& protocol, unsigned block, unsigned oversubscribe) {
    sync::discovery_protocol p{};
    if (protocol == "counter") {
        p = sync::discovery_protocol::counter;
    } else if (protocol == "ticket") {
        p = sync::discovery_protocol::ticket;
    } else if (protocol == "spin") {
        p = sync::discovery_protocol::spin;
    } else {
        throw error("canopy discover: unknown protocol '" + protocol + "' (counter, ticket or spin)");
    }
    discover_result r;
    r.protocol = protocol;
    r.block = block;
    r.occupancy = sync::persistent_grid<nothing>(block);
    r.launched = r.occupancy * (oversubscribe == 0 ? 1 : oversubscribe);
    sync::discovery_context ctx(r.launched, p);
    const auto t0 = std::chrono::steady_clock::now();
    kernel_timer t;
    r.discovered = sync::launch_persistent({.grid = r.launched, .block = block}, ctx, nothing{}, &t);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.device_ms = t.total().span_ms;
    r.device_clock = device_clock;
    return r;
}

} // namespace canopy::cli
