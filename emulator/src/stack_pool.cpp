#include "canopy/emulator/stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "canopy/vocabulary/error.hpp"

namespace canopy::emu {

stack_pool::stack_pool(std::size_t usable_bytes) : page_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {
    size_ = (usable_bytes + page_ - 1) / page_ * page_;
    if (size_ < 4 * page_) {
        size_ = 4 * page_;
    }
}

stack_pool::~stack_pool() {
    for (const auto& s : all_) {
        ::munmap(static_cast<char*>(s.base) - page_, s.size + page_);
    }
}

stack_pool& stack_pool::shared(std::size_t usable_bytes) {
    static std::mutex m;
    static std::vector<std::unique_ptr<stack_pool>> pools;
    std::lock_guard lock(m);
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t rounded = std::max((usable_bytes + page - 1) / page * page, 4 * page);
    for (auto& p : pools) {
        if (p->stack_size() == rounded) {
            return *p;
        }
    }
    pools.push_back(std::make_unique<stack_pool>(usable_bytes));
    return *pools.back();
}

namespace {
/// vm.max_map_count (0 where it cannot be read: not Linux, or no /proc).
std::size_t max_map_count() {
    std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
    if (f == nullptr) {
        return 0;
    }
    unsigned long long n = 0;
    const int got = std::fscanf(f, "%llu", &n);
    std::fclose(f);
    return got == 1 ? static_cast<std::size_t>(n) : 0;
}

/// Mappings this process holds now (lines of /proc/self/maps; 0 where unreadable).
std::size_t mappings_now() {
    std::FILE* f = std::fopen("/proc/self/maps", "r");
    if (f == nullptr) {
        return 0;
    }
    std::size_t lines = 0;
    for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) {
        lines += c == '\n' ? 1 : 0;
    }
    std::fclose(f);
    return lines;
}
} // namespace

std::string stack_pool::room_for(std::size_t fibers) {
    std::size_t have = 0;
    {
        std::lock_guard lock(mutex_);
        have = all_.size();
    }
    if (fibers <= have) {
        return {}; // pooled stacks: no new mapping
    }
    static const std::size_t limit = max_map_count();
    const std::size_t more = 2 * (fibers - have);
    if (limit == 0 || more < limit / 4) {
        return {};
    }
    // Slack for what the launch maps besides stacks (device allocations of 1 MiB or more, the
    // allocator's arenas, thread stacks of the parallel scheduler).
    constexpr std::size_t slack = 512;
    const std::size_t now = mappings_now();
    if (now + more + slack <= limit) {
        return {};
    }
    return std::to_string(fibers) + " fibers, whose stacks need " + std::to_string(more) +
           " more memory mappings (a stack and its guard page each); with the " + std::to_string(now) +
           " this process holds, that passes vm.max_map_count = " + std::to_string(limit) +
           ". Use smaller work-groups or a smaller grid (fewer resident work-items), or raise "
           "the limit: sysctl -w vm.max_map_count=" +
           std::to_string(((now + more + slack) / 65536 + 1) * 65536);
}

stack_memory stack_pool::acquire() {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
        stack_memory s = free_.back();
        free_.pop_back();
        return s;
    }
    // MAP_NORESERVE: thousands of fibers reserve address space; only touched pages cost memory.
    void* p = ::mmap(nullptr, size_ + page_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        throw canopy::error("emulator: cannot map a " + std::to_string(size_ / 1024) +
                            " KiB fiber stack: " + std::strerror(errno) +
                            " (every resident work-item's stack is two mappings, and vm.max_map_count "
                            "limits them: use fewer resident work-items, or a smaller "
                            "CANOPY_EMU_STACK_KIB when memory is short)");
    }
    // Stacks grow down: the guard page sits at the lowest address.
    if (::mprotect(p, page_, PROT_NONE) != 0) {
        ::munmap(p, size_ + page_);
        throw canopy::error(std::string("emulator: cannot protect a stack guard page: ") +
                            std::strerror(errno) +
                            " (every resident work-item's stack is two mappings, and vm.max_map_count limits "
                            "them: use fewer resident work-items)");
    }
    stack_memory s{static_cast<char*>(p) + page_, size_};
    all_.push_back(s);
    return s;
}

void stack_pool::release(stack_memory s) {
    std::lock_guard lock(mutex_);
    free_.push_back(s);
}

} // namespace canopy::emu
