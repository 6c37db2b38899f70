// The registry behind canopy/emulator/allocations.hpp: an ordered map from start address to size and
// site, under a mutex (allocations are host-side and rare; lookups happen only when a report is made).
#include "canopy/emulator/allocations.hpp"

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "site_format.hpp"

namespace canopy::emu {

namespace {

struct allocation {
    std::size_t bytes = 0;
    canopy::site where;
};

struct registry {
    std::mutex m;
    std::map<std::uintptr_t, allocation> live;
};

registry& reg() {
    static registry r; // never destroyed before the buffers of static objects: function-local static
    return r;
}

} // namespace

void note_allocation(const void* p, std::size_t bytes, canopy::site where) {
    if (p == nullptr) {
        return;
    }
    std::lock_guard lock(reg().m);
    reg().live[reinterpret_cast<std::uintptr_t>(p)] = allocation{bytes, where};
}

void forget_allocation(const void* p) noexcept {
    if (p == nullptr) {
        return;
    }
    std::lock_guard lock(reg().m);
    reg().live.erase(reinterpret_cast<std::uintptr_t>(p));
}

std::string describe_allocation(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(reg().m);
    auto it = reg().live.upper_bound(a);
    if (it == reg().live.begin()) {
        return {};
    }
    it = std::prev(it);
    if (a >= it->first + it->second.bytes) {
        return {};
    }
    return fmt::format("the {}-byte buffer allocated at {}, byte {}", it->second.bytes,
                       format_site(it->second.where), a - it->first);
}

} // namespace canopy::emu
