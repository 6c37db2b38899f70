// The registry behind canopy/emulator/allocations.hpp: an ordered map from start address to size and
// site, under a mutex (allocations are host-side and rare; lookups happen only when a report is made).
#include "canopy/emulator/allocations.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "canopy/vocabulary/error.hpp"
#include "site_format.hpp"

namespace canopy::emu {

namespace {

struct allocation {
    std::size_t bytes = 0;
    canopy::site where;
    std::size_t mapped = 0; // bytes of the anonymous mapping, or 0: aligned_alloc
};

#if defined(CANOPY_ASAN)
constexpr bool map_large = false; // ASan's heap redzones check device buffers: keep the allocator
#else
constexpr bool map_large = true;
#endif
constexpr std::size_t map_from = std::size_t{1} << 20;

struct registry {
    std::mutex m;
    std::map<std::uintptr_t, allocation> live;
};

registry& reg() {
    static registry r; // never destroyed before the buffers of static objects: function-local static
    return r;
}

} // namespace

void* allocate_device(std::size_t bytes, canopy::site where) {
    const std::size_t rounded = (bytes + 255) / 256 * 256;
    void* p = nullptr;
    std::size_t mapped = 0;
    if (map_large && rounded >= map_from) {
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        mapped = (rounded + page - 1) / page * page;
        p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            p = nullptr;
        }
    } else {
        p = std::aligned_alloc(256, rounded == 0 ? 256 : rounded);
    }
    if (p == nullptr) {
        throw canopy::error(
            fmt::format("emulator: out of memory allocating {} bytes of device memory", bytes));
    }
    std::lock_guard lock(reg().m);
    reg().live[reinterpret_cast<std::uintptr_t>(p)] = allocation{bytes, where, mapped};
    return p;
}

void free_device(void* p) noexcept {
    if (p == nullptr) {
        return;
    }
    std::size_t mapped = 0;
    {
        std::lock_guard lock(reg().m);
        auto it = reg().live.find(reinterpret_cast<std::uintptr_t>(p));
        if (it != reg().live.end()) {
            mapped = it->second.mapped;
            reg().live.erase(it);
        }
    }
    if (mapped != 0) {
        ::munmap(p, mapped);
    } else {
        std::free(p);
    }
}

void fill_device(void* dst, int byte, std::size_t bytes) {
    if (bytes == 0) {
        return;
    }
    auto* d = static_cast<std::byte*>(dst);
    if (byte == 0 && map_large && bytes >= map_from) {
        const auto a = reinterpret_cast<std::uintptr_t>(dst);
        bool mapped = false;
        {
            std::lock_guard lock(reg().m);
            auto it = reg().live.upper_bound(a);
            if (it != reg().live.begin()) {
                it = std::prev(it);
                mapped = it->second.mapped != 0 && a + bytes <= it->first + it->second.mapped;
            }
        }
        if (mapped) {
            // The whole pages inside [dst, dst + bytes) go back to the kernel and read as zero; the
            // partial pages at either end are written.
            const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
            const std::uintptr_t lo = (a + page - 1) / page * page;
            const std::uintptr_t hi = (a + bytes) / page * page;
            if (lo < hi && ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED) == 0) {
                std::memset(d, 0, lo - a);
                std::memset(reinterpret_cast<std::byte*>(hi), 0, a + bytes - hi);
                return;
            }
        }
    }
    std::memset(d, byte, bytes);
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
