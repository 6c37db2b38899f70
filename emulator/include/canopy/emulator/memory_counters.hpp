// canopy/emulator/memory_counters.hpp — what a launch did to the memory system, and what it cost.
//
// Filled by the scoped-cache model per launch (and reusable by the runtime's stats): cache actions
// (flushes and invalidations, own and remote), lines written back, L1 hits and misses, L2 accesses,
// atomics and fences by scope x order, remote operations, environment transitions, and simulated
// cycles from a per-action cost table.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace canopy::emu {

/// Cycles charged per cache action. The defaults are order-of-magnitude latencies from published GPU
/// microbenchmarks (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking",
/// 2018: L1 hit ~28 cycles, L2 hit ~193, device memory ~400+; AMD GCN/CDNA figures are of the same
/// order), with a flush charged per line written back and a remote (RSP) action charged once per CU it
/// reaches. They are a model, not a measurement: change them with `--cost name=cycles`.
struct cost_table {
    std::uint64_t l1_hit = 28;
    // An access to work-group shared memory (LDS; a kernel's dynamic shared memory): not cached, never
    // written back or invalidated, and of an L1 hit's latency on the GPUs modelled (tens of cycles).
    std::uint64_t local_access = 28;
    std::uint64_t l1_fill = 193;       // a miss: the line comes from L2
    std::uint64_t l2_access = 193;     // a device-scope access or RMW performed at L2
    std::uint64_t flush_base = 50;     // issuing a flush and waiting for its marker
    std::uint64_t line_writeback = 60; // per dirty line a flush writes back
    std::uint64_t invalidate = 40;     // invalidating an L1
    std::uint64_t remote_per_cu = 100; // a remote flush or invalidate, per CU reached
    std::uint64_t rmw_lock = 100;      // taking the device-wide RMW locks (remote RMW / store)
    // Several devices (options::devices): an access or RMW performed at memory (system scope), which
    // crosses the link between devices, and the wait of a system-scope release for its L2's write-backs
    // to reach memory. 1,000 cycles is 1 us at 1 GHz: a remote load's round trip over NVLink is of that
    // order, PCIe's about twice it (docs/scale-out.md's model). Sweep it. One device: memory is the L2,
    // and such an access costs l2_access.
    std::uint64_t system_access = 1000;
    // A flush is charged per distinct dirty line, at most l1_lines of them: HRF Table 1's L1 is 32 KB,
    // i.e. 512 lines of 64 bytes.
    std::uint64_t line_bytes = 64;
    std::uint64_t l1_lines = 512;
    // Not charged inside a launch: the cost of one kernel launch plus the host reading back its stop
    // flag, which a host loop of launches (a multi-kernel graph strategy, the tasks strategy's rounds)
    // pays between them. The SCM never adds it; emu::launch_totals() reports it separately from the
    // launches' makespans, so that a reader can redo the sum with their own figure. 10,000 cycles is
    // 10 us at the 1 GHz the virtual devices are read at (cycles = ns): the low end of the 10-14 us that
    // Volkov & Demmel (SC 2008) measured for a synchronous relaunch, cited by Stuart & Owens (IPDPS
    // 2011) as the budget a persistent kernel's barrier must beat; an asynchronous launch alone was
    // 3-7 us, and recent GPUs publish launch latencies of ~5 us (without the read-back). Sweep it.
    std::uint64_t launch = 10000;

    /// Sets one entry by name ("l1_hit", ...); false when there is no such entry.
    bool set(const std::string& name, std::uint64_t cycles);
    void for_each(const std::function<void(const char*, std::uint64_t)>& f) const;
};

struct memory_counters {
    std::uint64_t flushes_own = 0, flushes_remote = 0;
    std::uint64_t invalidations_own = 0, invalidations_remote = 0;
    std::uint64_t lines_written_back = 0; // locations written back (flushes and the environment)
    std::uint64_t l1_hits = 0, l1_misses = 0, l2_accesses = 0;
    std::uint64_t remote_ops = 0;
    std::uint64_t env_flushes = 0, env_evictions = 0, env_fetches = 0;
    std::uint64_t plain_loads = 0, plain_stores = 0;
    // [scope: subgroup, workgroup, device, system][order: relaxed, consume, acquire, release, acq_rel,
    // seq_cst]
    std::array<std::array<std::uint64_t, 6>, 4> atomics{};
    std::array<std::array<std::uint64_t, 6>, 4> fences{};
    std::uint64_t cycles_total = 0;  // every CU's cycles added up
    std::uint64_t cycles_max_cu = 0; // the busiest CU: a model of the launch's duration
    // Timed scheduling only (options::timed): the latest work-item clock at the kernel's end, i.e. the
    // simulated duration along the critical path, compute included (0 when not timed).
    std::uint64_t cycles_makespan = 0;

    memory_counters& operator+=(const memory_counters& o);
    /// Every scalar counter by name, then "atomics.<scope>.<order>" and "fences.<scope>.<order>" for
    /// the non-zero cells: one flat list for tables and JSON.
    void for_each(const std::function<void(const std::string&, std::uint64_t)>& f) const;
};

} // namespace canopy::emu
