// canopy/emulator/stack_pool.hpp — fiber stacks: mmap'ed, with a PROT_NONE guard page, reused.
//
// A work-item that overflows its stack hits the guard page and faults at once instead of silently
// corrupting its neighbour (HIP-CPU's 7 KiB malloc'ed stacks overflow silently). Stacks are pooled:
// a persistent kernel creates thousands of fibers, and mmap/munmap per fiber would dominate.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace canopy::emu {

struct stack_memory {
    void* base = nullptr; // lowest address of the usable stack (just above the guard page)
    std::size_t size = 0; // usable bytes
};

class stack_pool {
  public:
    explicit stack_pool(std::size_t usable_bytes);
    ~stack_pool();
    stack_pool(const stack_pool&) = delete;
    stack_pool& operator=(const stack_pool&) = delete;

    /// The process-wide pool for stacks of `usable_bytes` (rounded to pages): launches reuse each
    /// other's stacks, so a launch costs no mmap once the pool is warm. Pools live until exit.
    static stack_pool& shared(std::size_t usable_bytes);

    /// Before a launch starts: empty when `fibers` stacks fit under vm.max_map_count (each stack is two
    /// mappings: the stack and its guard page), else what they need and the fixes, for the launch's
    /// error. Past the limit an mmap or mprotect would fail halfway into the launch instead, with no
    /// numbers. Cheap when far below the limit (no /proc read, no string).
    std::string room_for(std::size_t fibers);
    stack_memory acquire();
    void release(stack_memory s);
    std::size_t stack_size() const { return size_; }

  private:
    std::size_t size_;
    std::size_t page_;
    std::mutex mutex_;
    std::vector<stack_memory> free_;
    std::vector<stack_memory> all_;
};

} // namespace canopy::emu
