// canopy/workloads/uts/runtime.hpp — UTS on the canopy task runtime: a node is a task whose payload is
// its 20-byte state, its height and its type; it counts itself and spawns its children. A node with more
// than `fan_out` children (a BIN root has up to 2000, a GEO node up to 100) spawns child-index ranges
// instead, which split until a range is small enough to spawn its nodes: every task stages at most
// `fan_out` tasks, within the runtime's per-lane staging buffer.
//
// Counts: device-scope relaxed RMWs on 64-bit counters spread over `slots` slots (by global work-item
// id) so that work-items do not all hit one word; the host sums the slots after the run.
//
// Child counts: a task decides by decision.hpp's integer thresholds, built on the host before the run
// and read from device memory, not by the double rules: a device's log/pow/sin may be an ulp off
// glibc's and flip a floor, the table cannot.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/decision.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/rules.hpp"

namespace canopy::workloads::uts {

inline constexpr unsigned fan_out = 8; // most tasks one task stages
// Counters spread over slots by work-item (power of two). 1,024 (64 KiB) rather than 64: with 64, the
// work-items g and g + 64 of neighbouring work-groups shared a line, and on the parallel emulator two
// OS threads running them bounced it on every node (6% of a two-thread T1 run).
inline constexpr unsigned count_slots = 1024;
inline constexpr unsigned slot_words = 8; // 64-bit words per slot (64 bytes: one line per slot)
/// What one SHA-1 compression costs a sub-group, for the emulator's timing model (model_cycles): about
/// 1,000 ALU instructions per lane (80 rounds of ~12 operations, plus the message schedule), and a
/// wave64 instruction issues over 4 cycles on a 16-lane SIMD (GCN/CDNA). An estimate, not a
/// measurement; the HRF experiment varies it (--compute-cycles). GPUs ignore it.
inline constexpr unsigned sha1_model_cycles = 4000;

struct node_payload {
    std::uint32_t s[5]; // the state's 20 bytes
    int height;
    int type; // tree_type: a HYBRID tree's node is GEO or BIN
};
struct range_payload {
    std::uint32_t s[5]; // the parent's state
    int height;         // the parent's height
    unsigned lo, hi;    // child indices [lo, hi)
};

/// Scale-out rounds (rounds.hpp): a round counts nodes until `budget` have started, and hands every
/// later node to the host (`out`) instead of running it, so that the host can move it to another rank
/// or device before the next round. Off (started == nullptr) in every other traversal.
struct round_limits {
    unsigned long long* started = nullptr;   // nodes that asked to run this round (device memory)
    unsigned long long budget = 0;           // the first `budget` of them run
    node_payload* out = nullptr;             // the nodes handed back, in no particular order
    unsigned long long* out_count = nullptr; // reservations in `out` (may pass `capacity`; 64 bits: no wrap)
    unsigned capacity = 0;

    /// True when node x was handed back (the task must not run it). Relaxed RMWs at device scope: which
    /// nodes run this round and which wait for the next changes the schedule, never the counts, so the
    /// budget needs no order; the host reads `out` after the launch has ended, which orders every store
    /// before it. `out` full: the node runs here and now, so nothing is lost.
    CANOPY_DEVICE bool hand_back(const node_payload& x) const {
        if (atomic_ref<unsigned long long, scope::device>(*started).fetch_add(1, std::memory_order_relaxed) <
            budget) {
            return false;
        }
        const unsigned long long i =
            atomic_ref<unsigned long long, scope::device>(*out_count).fetch_add(1, std::memory_order_relaxed);
        if (i >= capacity) {
            return false;
        }
        out[i] = x;
        return true;
    }
};

struct shared_args {
    params p;
    unsigned long long* counters; // devices x count_slots x slot_words: [0] nodes, [1] leaves, [2] depth,
                                  // [3] 1 + the largest height beyond the decision table (0: none)
    decision_view table;          // child counts by height and random value (device memory)
    unsigned hash_cycles = sha1_model_cycles; // model_cycles per SHA-1 compression (emulator timing)
    round_limits round;                       // rounds only (rounds.hpp)
};

struct node_task;
struct range_task;

template <class Ctx>
CANOPY_DEVICE void spawn_children(Ctx& ctx, const shared_args& a, const std::uint32_t (&s)[5], int height,
                                  unsigned lo, unsigned hi);

struct node_task {
    using payload = node_payload;
    shared_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const node_payload& x, Ctx& ctx) const {
        if (a.round.started != nullptr && a.round.hand_back(x)) {
            return; // the next round runs it, here or elsewhere
        }
        node_state st;
        __builtin_memcpy(st.b, x.s, 20);
        const int n = decide_children(a.table, x.height, rng_rand(st));
        // One set of slots per device (ctx.device()): device-scope RMWs do not reach the other devices.
        unsigned long long* slot =
            a.counters + (ctx.device() * count_slots + (global_id() & (count_slots - 1))) * slot_words;
        if (n < 0) { // deeper than the table: no guess; the host fails the run (traverse_runtime)
            atomic_ref<unsigned long long, scope::device>(slot[3]).fetch_max(
                static_cast<unsigned long long>(x.height) + 1, std::memory_order_relaxed);
            return;
        }
        atomic_ref<unsigned long long, scope::device>(slot[0]).fetch_add(1, std::memory_order_relaxed);
        if (n <= 0) {
            atomic_ref<unsigned long long, scope::device>(slot[1]).fetch_add(1, std::memory_order_relaxed);
            atomic_ref<unsigned long long, scope::device> d(slot[2]);
            const auto h = static_cast<unsigned long long>(x.height);
            if (d.load(std::memory_order_relaxed) < h) { // the deepest node is a leaf
                d.fetch_max(h, std::memory_order_relaxed);
            }
            return;
        }
        spawn_children(ctx, a, x.s, x.height, 0u, static_cast<unsigned>(n));
    }
};

struct range_task {
    using payload = range_payload;
    shared_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const range_payload& x, Ctx& ctx) const {
        spawn_children(ctx, a, x.s, x.height, x.lo, x.hi);
    }
};

template <class Ctx>
CANOPY_DEVICE void spawn_children(Ctx& ctx, const shared_args& a, const std::uint32_t (&s)[5], int height,
                                  unsigned lo, unsigned hi) {
    const unsigned n = hi - lo;
    if (n <= fan_out) {
        node_state parent;
        __builtin_memcpy(parent.b, s, 20);
        const int ct = static_cast<int>(child_type(a.p, height));
        for (unsigned i = lo; i < hi; ++i) {
            const node_state c = spawn_state(parent, i, a.p.granularity);
            model_cycles(a.hash_cycles * static_cast<unsigned>(a.p.granularity));
            node_payload np;
            __builtin_memcpy(np.s, c.b, 20);
            np.height = height + 1;
            np.type = ct;
            ctx.template spawn<node_task>(np);
        }
        return;
    }
    const unsigned chunk = (n + fan_out - 1) / fan_out;
    for (unsigned b = lo; b < hi; b += chunk) {
        range_payload rp;
        __builtin_memcpy(rp.s, s, 20);
        rp.height = height;
        rp.lo = b;
        rp.hi = b + chunk < hi ? b + chunk : hi;
        ctx.template spawn<range_task>(rp);
    }
}

/// The root's task payload.
inline node_payload root_payload(const params& p) {
    const node_state root = root_state(p.root_seed);
    node_payload rp;
    std::memcpy(rp.s, root.b, 20);
    rp.height = 0;
    rp.type = static_cast<int>(root_type(p));
    return rp;
}

/// A runtime configuration with queues deep enough for the sample trees: a depth-first sub-group can
/// hold many fronts (T3's binomial spine under a steal policy overflowed the default 32 private fronts).
inline runtime::config default_config(runtime::policy pol, unsigned block = 64) {
    runtime::config c;
    c.policy = pol;
    c.block = block;
    c.private_capacity = 256;
    c.workgroup_capacity = 64;
    c.device_capacity = 256;
    return c;
}

struct runtime_result {
    counts c;
    runtime::stats stats;
    std::uint32_t table_rows = 0;  // the decision table's distinct rows (segments)
    std::uint32_t table_limit = 0; // heights it covers (open_ended: every height)
    std::uint32_t join_peak = 0;   // by joins with track_peak: the most records open at once (else 0)
};

/// The counts in the device's count slots, added up; throws canopy::error when a node was deeper than
/// the decision table (slot word 3), naming the table's reach.
inline counts sum_counters(const device_buffer<unsigned long long>& counters, const decision_table& table,
                           unsigned max_table_rows) {
    const std::vector<unsigned long long> v = counters.to_vector();
    counts c;
    unsigned long long beyond = 0;
    for (std::size_t i = 0; i < v.size() / slot_words; ++i) { // every device's slots
        beyond = v[i * slot_words + 3] > beyond ? v[i * slot_words + 3] : beyond;
        c.nodes += v[i * slot_words + 0];
        c.leaves += v[i * slot_words + 1];
        const int d = static_cast<int>(v[i * slot_words + 2]);
        c.depth = d > c.depth ? d : c.depth;
    }
    if (beyond != 0) {
        throw error("canopy uts: a node at height " + std::to_string(beyond - 1) +
                    " is deeper than the child-count table, which covers heights 0 to " +
                    std::to_string(table.limit - 1) + " (" + std::to_string(table.segments) +
                    " rows, at most " + std::to_string(max_table_rows) +
                    "): the tree is too deep for an exact decision on the device");
    }
    return c;
}

/// Traverses the tree of `p` on the runtime under `cfg` (the emulator's options are the caller's).
/// `hash_cycles`: what one SHA-1 compression costs in the emulator's timing model (model_cycles).
/// `max_table_rows`: decision.hpp's bound on the table; a node deeper than the table throws
/// canopy::error after the run.
inline runtime_result traverse_runtime(const params& p, const runtime::config& cfg,
                                       unsigned hash_cycles = sha1_model_cycles,
                                       unsigned max_table_rows = default_max_rows) {
    if (cfg.staging_capacity < fan_out) {
        throw error("canopy uts: the staging buffer must hold at least " + std::to_string(fan_out) +
                    " tasks per lane");
    }
    device_buffer<unsigned long long> counters(std::size_t{count_slots} * slot_words *
                                               (cfg.devices > 1 ? cfg.devices : 1u));
    counters.fill_zero();
    const decision_table table = build_decision_table(p, max_table_rows);
    const device_buffer<std::uint32_t> table_words(table.words);
    const shared_args a{p, counters.data(), table.view(table_words.data()), hash_cycles, {}};
    runtime::task_set<node_task, range_task> ts{node_task{a}, range_task{a}};
    ts.seed<node_task>(root_payload(p));
    runtime_result r;
    r.stats = ts.run(cfg);
    r.table_rows = table.segments;
    r.table_limit = table.limit;
    r.c = sum_counters(counters, table, max_table_rows);
    return r;
}

} // namespace canopy::workloads::uts
