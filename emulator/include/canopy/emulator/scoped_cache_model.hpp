// canopy/emulator/scoped_cache_model.hpp — the scoped-cache memory model (SCM).
//
// The hardware model of Wickerson et al., "Remote-scope promotion: clarified, rectified, and
// verified" (OOPSLA'15) §5.1-5.3, which is also Hower et al.'s example system (HRF §3.2) and how AMD
// GPUs behave: one L1 per compute unit with an entry per location (value, clean/dirty, valid/invalid),
// and an L2 that stands for device memory (here: the real memory the buffers live in). Environment
// transitions - flush a dirty entry, evict a clean one, fetch any location into any L1 - fire at
// random (from the run's chooser) before every access, so every interleaving of cache traffic the
// model allows can happen. Operations compile to cache actions by scope and order (docs/memory-model.md
// has the table): narrow scopes (sub-group, work-group) act on the L1 the work-group shares; device
// scope bypasses the L1 (writing back the accessor's own dirty copy first, dropping it after a store);
// acquire invalidates the own L1 *after* the access; release flushes it *before*; device-scope RMWs
// happen at L2. Remote (RSP) operations follow the paper's Table 3 "proposed" column, or with
// scheme::original the "original" one, which reproduces the paper's two bugs.
//
// Synchronous flushes stand for the paper's FIFO markers: a flush writes back every dirty entry of
// the L1 before the issuing work-item continues; partially flushed states are still observable
// because the environment may flush any entry at any earlier time.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "canopy/emulator/address_map.hpp"
#include "canopy/emulator/chooser.hpp"
#include "canopy/emulator/memory_counters.hpp"
#include "canopy/emulator/memory_model.hpp"

namespace canopy::emu {

enum class rsp_scheme { proposed, original };
const char* to_string(rsp_scheme s);
rsp_scheme parse_scheme(const std::string& s); // throws canopy::error naming the valid values

class scoped_cache_model final : public memory_model {
  public:
    /// `choices` decides the environment transitions (share the scheduler's chooser for replay).
    scoped_cache_model(unsigned compute_units, chooser& choices, rsp_scheme scheme = rsp_scheme::proposed,
                       cost_table costs = {});

    std::uint64_t load(work_item& w, const mm_access& a) override;
    void store(work_item& w, const mm_access& a, std::uint64_t value) override;
    std::uint64_t rmw(work_item& w, const mm_access& a, mm_rmw op, std::uint64_t operand,
                      std::uint64_t desired, bool* cas_ok) override;
    void fence(work_item& w, canopy::scope s, std::memory_order o) override;
    std::uint64_t plain_load(work_item& w, const void* p, unsigned size) override;
    void plain_store(work_item& w, void* p, unsigned size, std::uint64_t value) override;
    void barrier(unsigned cu) override;
    void kernel_end() override;

    const memory_counters& counters() const { return counters_; }

    /// Work-group local memory (OpenCL __local, the LDS): [base, base + bytes) is a work-group's
    /// scratchpad, not cached: an access to it is performed at once, in program order, and is visible to
    /// its work-group at every scope (OpenCL only asks that for work-group scope and local fences, so
    /// this is stronger than the language, never weaker). Nothing outside the work-group can name it.
    void add_scratchpad(const void* base, std::size_t bytes);

    /// Several devices: device_of_cu[cu] is the device of each compute unit. Each device then gets its
    /// own L2, a write-back cache in front of memory with the L1s' entry states and environment
    /// transitions; device scope ends at that L2 and system scope (all_svm_devices) reaches memory
    /// (release: the own L1 and L2 are flushed; acquire: both are invalidated; RMWs happen at memory).
    /// Remote (RSP) operations act on the CUs of the issuer's device only: RSP's compilation schemes
    /// know one device. With one device (the default) the L2 is memory itself, as before.
    void set_devices(const std::vector<unsigned>& device_of_cu);

    /// Appends the model's whole state (every L1's and L2's entries by address, the RMW and L2 locks,
    /// the locations the environment may fetch) in a canonical form: equal strings, equal futures.
    /// Memory itself is the caller's (it owns the buffers). For state_caching_dfs.
    void append_state(std::string& out) const;
    /// The probability-like knob of environment activity: before each access, an environment
    /// transition fires when pick(denominator) == 0 (1: always, 2: half the time).
    void set_environment_rate(unsigned denominator) { env_rate_ = denominator ? denominator : 1; }
    /// Exhaustive exploration: before each access the environment offers exactly the transitions that
    /// change the state (flush a dirty entry, evict a valid clean one, fetch a location whose copy
    /// would change), plus "none": one pick(1 + n). The same transitions as the random mode's, without
    /// the ones that do nothing, each of which would be a branch leading back to the same state.
    void set_effective_environment(bool on) { effective_env_ = on; }

  private:
    struct entry {
        std::uintptr_t addr;
        unsigned size;
        std::uint64_t value;
        bool dirty;
        std::uint64_t epoch; // valid iff equal to its cache's epoch (0: never valid)
    };
    struct l1_cache {
        std::vector<entry> entries; // insertion order: iteration never depends on addresses
        address_map index;          // addr -> position in entries
        // Invalidation is O(1): bumping the epoch invalidates every entry at once (their values and
        // dirtiness stay, RSP Table 1). A flush walks only `dirty`: the addresses that became dirty
        // since the last flush, in the order they did (entries cleaned meanwhile are skipped). Both
        // keep the cost of a flush or an invalidate independent of how many locations the L1 has
        // ever held, which is what made long runs superlinear.
        std::uint64_t epoch = 1;
        std::vector<std::uintptr_t> dirty;
        unsigned rmw_holder = 0;           // 0: unlocked; else 1 + the holder's global work-item id
        const work_item* holder = nullptr; // the holder itself (its clock: timed waiting)
        std::uint64_t cycles = 0;
    };
    static bool valid(const l1_cache& c, const entry& e) { return e.epoch == c.epoch; }
    /// Installs (addr, size, v) in `c`, valid, replacing `e` when it is the entry for addr.
    void install(l1_cache& c, entry* e, std::uintptr_t addr, unsigned size, std::uint64_t v, bool dirty);
    std::uint64_t flush_dirty(l1_cache& c); // write back every dirty entry; returns the lines

    static bool device_scope(canopy::scope s) {
        return s == canopy::scope::device || s == canopy::scope::system;
    }
    static bool acquires(std::memory_order o);
    static bool releases(std::memory_order o);
    static unsigned who(const work_item& w);

    void environment(work_item& w);
    void between(work_item& w);
    entry* find(l1_cache& c, std::uintptr_t addr);
    void erase(l1_cache& c, std::uintptr_t addr);
    void write_back(l1_cache& c, entry& e);
    std::uint64_t memory_read(std::uintptr_t addr, unsigned size) const;
    void memory_write(std::uintptr_t addr, unsigned size, std::uint64_t v) const;
    // The level below an L1: its device's L2 (several devices) or memory (one device).
    std::uint64_t below_read(unsigned cu, std::uintptr_t addr, unsigned size);
    void below_write(unsigned cu, std::uintptr_t addr, unsigned size, std::uint64_t v);
    // System scope on several devices: the access is performed at memory, past the own L2.
    bool at_memory(canopy::scope s) const { return s == canopy::scope::system && !l2_.empty(); }
    std::uint64_t level_read(work_item& w, std::uintptr_t addr, unsigned size, bool memory);
    void level_write(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v, bool memory);
    void flush_l2(unsigned cu);
    void invalidate_l2(unsigned cu);
    unsigned device_of(unsigned cu) const { return l2_.empty() ? 0 : dev_of_cu_[cu]; }
    bool scratch(std::uintptr_t addr) const;
    std::uint64_t scratch_load(work_item& w, std::uintptr_t addr, unsigned size);
    void scratch_store(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v);
    void note_location(std::uintptr_t addr, unsigned size);

    std::uint64_t l1_load(work_item& w, std::uintptr_t addr, unsigned size);
    void l1_store(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v);
    void prepare_l2(work_item& w, std::uintptr_t addr, unsigned size); // write back own dirty copy
    std::uint64_t l2_load(work_item& w, std::uintptr_t addr, unsigned size, bool memory = false);
    void l2_store(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v, bool memory = false);
    void flush_own(work_item& w, bool memory = false);      // memory: also the own device's L2
    void flush_all(work_item& w);                           // every L1 of the issuer's device
    void invalidate_own(work_item& w, bool memory = false); // memory: also the own device's L2
    void invalidate_all(work_item& w);                      // every L1 of the issuer's device
    void lock_rmw_all(work_item& w);
    void unlock_rmw_all(work_item& w);
    void wait_rmw_ready(work_item& w);
    void lock_l2(work_item& w, std::uintptr_t addr);
    void unlock_l2(std::uintptr_t addr);
    void wait_l2_ready(work_item& w, std::uintptr_t addr);
    void charge(work_item& w, std::uint64_t cycles);
    void count_atomic(const mm_access& a);
    void stall(work_item& w, const work_item* until = nullptr);

    std::vector<l1_cache> l1_;
    std::vector<l1_cache> l2_; // per device, only with several devices (set_devices)
    std::vector<unsigned> dev_of_cu_;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> scratch_; // [lo, hi) ranges
    chooser& choices_;
    rsp_scheme scheme_;
    cost_table costs_;
    unsigned env_rate_ = 2;
    bool effective_env_ = false;
    struct env_move {
        std::uint8_t kind; // 0 flush, 1 evict, 2 fetch: at an L1; 3, 4, 5: the same at an L2
        unsigned cache;
        std::uintptr_t addr;
        unsigned size;
    };
    std::vector<env_move> moves_; // effective_environment's scratch
    void effective_environment();
    std::uint64_t peek_below(unsigned cu, std::uintptr_t addr, unsigned size) const;
    std::vector<std::pair<std::uintptr_t, unsigned>> locations_; // every location seen, first-use order
    address_map location_index_;
    // original scheme only: location -> (holder: 1 + global work-item id, holder's CU)
    std::unordered_map<std::uintptr_t, std::pair<unsigned, unsigned>> l2_locks_;
    memory_counters counters_;
    std::vector<std::uintptr_t> line_scratch_; // flush_dirty's distinct lines
};

} // namespace canopy::emu
