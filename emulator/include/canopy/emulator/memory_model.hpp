// canopy/emulator/memory_model.hpp — the seam where a memory model plugs into the emulator.
//
// Every canopy::atomic_ref operation, fence and ld/st of an emulated kernel reaches memory through
// this interface when a model is installed for the launch (work_item::model != nullptr); without one
// the accesses are plain std::atomic_ref operations with the requested memory order ("coherent"
// memory, what the parallel scheduler always uses). The scoped-cache model (SCM, issue 3) implements
// this interface: per-CU L1s with clean/dirty/valid entries, an L2, and cache actions chosen by scope
// and order; it runs under the deterministic scheduler, which makes every access a yield point first.
#pragma once

#include <atomic>
#include <cstdint>

#include "canopy/vocabulary/scope.hpp"

namespace canopy::emu {

struct work_item;

enum class mm_rmw : std::uint8_t { add, sub, and_, or_, xor_, min, max, exchange, cas };

/// One access, as the model sees it. Values travel as the low `size` bytes of a uint64_t.
struct mm_access {
    void* address = nullptr;
    unsigned size = 0; // 4 or 8 (atomics); 1..8 (plain)
    canopy::scope scope = canopy::scope::device;
    std::memory_order order = std::memory_order_relaxed;
    std::memory_order failure_order = std::memory_order_relaxed; // CAS only
    bool is_signed = false;                                      // min/max only
    bool remote = false; // remote-scope promotion (RSP, Orr et al.): emulator only, litmus and steal-rsp
};

class memory_model {
  public:
    virtual ~memory_model() = default;
    virtual std::uint64_t load(work_item& w, const mm_access& a) = 0;
    virtual void store(work_item& w, const mm_access& a, std::uint64_t value) = 0;
    /// Returns the old value; for cas, `operand` is the expected value and `desired` the new one,
    /// and `*cas_ok` tells whether it succeeded.
    virtual std::uint64_t rmw(work_item& w, const mm_access& a, mm_rmw op, std::uint64_t operand,
                              std::uint64_t desired, bool* cas_ok) = 0;
    virtual void fence(work_item& w, canopy::scope s, std::memory_order o) = 0;
    virtual std::uint64_t plain_load(work_item& w, const void* p, unsigned size) = 0;
    virtual void plain_store(work_item& w, void* p, unsigned size, std::uint64_t value) = 0;
    /// A block_barrier() completed in work-group `block` on compute unit `cu` (a work-group-scope
    /// acq_rel fence for every work-item in it).
    virtual void barrier(unsigned cu) = 0;
    /// The kernel ended: everything it wrote must be in device memory for the host to read.
    virtual void kernel_end() = 0;
};

} // namespace canopy::emu
