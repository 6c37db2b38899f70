// canopy/workloads/uts/joins.hpp — UTS by joins (canopy uts --joins): every subtree's counts computed
// bottom-up through join records (runtime/join.hpp), the root's being the tree's. runtime.hpp counts
// with device atomics instead; this mode exercises joins on trees of millions of nodes whose shapes
// (GEO's wide levels, BIN's 1,572-deep spine) are the hardest the sample set has.
//
// A node with n children forks one record and spawns its children into its slots; the record's
// continuation adds the children's counts and, for a node's record, the node itself, and completes the
// node's own slot. A node with more than fan_out children spawns child-index ranges instead, each a task
// that forks again: every record joins at most fan_out children, the K of its pool. A leaf completes
// its slot with (1 node, 1 leaf, its height) and forks nothing. The result of a join is (nodes, leaves,
// the deepest leaf's height): sums and a max, so the root's equals the sequential reference's counts
// whatever order the children finish in.
//
// One continuation type serves both kinds of record: a task completes its slot without knowing whether
// its parent was a node or a range, so the slot's record must run the same continuation either way
// (complete<Cont> names it). Whether to count a node is carried by the record itself, in a bit of its
// `to` slot index (slot indices are below fan_out), set by the node's fork and cleared by the
// continuation: no extra word and no extra RMW.
// A record is open from its fork to its continuation: with depth-first (lifo) sub-groups that is about
// the tree's depth times fan_out per busy sub-group; breadth-first work shared across the device can
// open more. An exhausted pool is reported after the run (join_pool::result), never a hang.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/runtime.hpp"

namespace canopy::workloads::uts {

/// A subtree's counts, the result each join delivers: its nodes, and its leaves and deepest leaf's height
/// (absolute, not relative to the subtree) in one word, leaves << 24 | depth. Two 8-byte words, not
/// three: a continuation reads up to fan_out of them right after the acquire that invalidated its L1,
/// each word a miss on the scoped-cache model, while its sub-group waits (docs/runtime.md, "Where a
/// join's cycles go"). 40 bits of leaves (10^12: T1XXL, the largest tree in notes/uts-reference.md, has
/// 4.2 x 10^9 nodes) and 24 of depth (T3's binomial spine is 1,572 deep); past either, the depth field
/// is counts_overflow, which max() carries to the root, and the host reports it instead of a count.
struct subtree_counts {
    unsigned long long nodes;
    unsigned long long leaves_depth;
};

inline constexpr unsigned depth_bits = 24;
inline constexpr unsigned long long depth_mask = (1ull << depth_bits) - 1;
inline constexpr unsigned long long counts_overflow = depth_mask; // the depth field when a field overflowed
inline constexpr unsigned long long max_leaves = (1ull << (64 - depth_bits)) - 1;

CANOPY_HOST_DEVICE inline unsigned long long leaves_of(const subtree_counts& c) {
    return c.leaves_depth >> depth_bits;
}
CANOPY_HOST_DEVICE inline unsigned long long depth_of(const subtree_counts& c) {
    return c.leaves_depth & depth_mask;
}

/// A leaf at `height`: one node, one leaf (counts_overflow when the height does not fit).
CANOPY_HOST_DEVICE inline subtree_counts leaf_counts(int height) {
    const auto h = static_cast<unsigned long long>(height);
    return {1, 1ull << depth_bits | (h < counts_overflow ? h : counts_overflow)};
}

CANOPY_HOST_DEVICE inline subtree_counts add_counts(const subtree_counts& x, const subtree_counts& y) {
    const unsigned long long lx = leaves_of(x), ly = leaves_of(y), dx = depth_of(x), dy = depth_of(y);
    const unsigned long long leaves = lx + ly; // both below 2^40: no wrap in 64 bits
    const unsigned long long depth = leaves > max_leaves ? counts_overflow : dx > dy ? dx : dy;
    return {x.nodes + y.nodes, (leaves & max_leaves) << depth_bits | depth};
}

using uts_join_view = runtime::join_view<subtree_counts, fan_out>;

struct join_node_payload {
    std::uint32_t s[5];
    int height;
    int type;
    runtime::join_slot to; // where this subtree's counts go
};
struct join_range_payload {
    std::uint32_t s[5];
    int height;
    unsigned lo, hi;
    runtime::join_slot to;
};

struct join_args {
    shared_args a; // counters: only [3], the "deeper than the table" flag, is used here
    uts_join_view j;
};

struct join_node_task;
struct join_range_task;
struct join_subtree_sum;

/// The mark (join_view::fork's) of a node's own record: its continuation counts the node.
inline constexpr unsigned node_record_mark = 1u;

/// Forks one record for children [lo, hi) of the node (s, height) and spawns them (or ranges of them)
/// into its slots; `mark` is node_record_mark when the record is the node's own, 0 for a range's.
/// Returns without spawning when the pool ran out (reported after the run).
template <class Ctx>
CANOPY_DEVICE void fork_children(Ctx& ctx, const join_args& g, const std::uint32_t (&s)[5], int height,
                                 unsigned lo, unsigned hi, runtime::join_slot to, unsigned mark) {
    const unsigned n = hi - lo;
    if (n <= fan_out) {
        const runtime::join_record rec = g.j.fork(ctx, n, to, mark);
        if (!rec.valid()) {
            return;
        }
        node_state parent;
        __builtin_memcpy(parent.b, s, 20);
        const int ct = static_cast<int>(child_type(g.a.p, height));
        for (unsigned i = lo; i < hi; ++i) {
            const node_state c = spawn_state(parent, i, g.a.p.granularity);
            model_cycles(g.a.hash_cycles * static_cast<unsigned>(g.a.p.granularity));
            join_node_payload np;
            __builtin_memcpy(np.s, c.b, 20);
            np.height = height + 1;
            np.type = ct;
            np.to = rec.slot(i - lo);
            runtime::spawn<join_node_task>(ctx, np);
        }
        return;
    }
    const unsigned chunk = (n + fan_out - 1) / fan_out;
    const runtime::join_record rec = g.j.fork(ctx, (n + chunk - 1) / chunk, to, mark);
    if (!rec.valid()) {
        return;
    }
    unsigned k = 0;
    for (unsigned b = lo; b < hi; b += chunk, ++k) {
        join_range_payload rp;
        __builtin_memcpy(rp.s, s, 20);
        rp.height = height;
        rp.lo = b;
        rp.hi = b + chunk < hi ? b + chunk : hi;
        rp.to = rec.slot(k);
        runtime::spawn<join_range_task>(ctx, rp);
    }
}

struct join_node_task {
    using payload = join_node_payload;
    join_args g;
    template <class Ctx> CANOPY_DEVICE void operator()(const join_node_payload& x, Ctx& ctx) const {
        node_state st;
        __builtin_memcpy(st.b, x.s, 20);
        const int n = decide_children(g.a.table, x.height, rng_rand(st));
        if (n < 0) {
            // Deeper than the table: flag it (the host throws after the run) and complete the slot with
            // nothing, so the run still ends with its root completed once.
            unsigned long long* slot = g.a.counters + (global_id() & (count_slots - 1)) * slot_words;
            atomic_ref<unsigned long long, scope::device>(slot[3]).fetch_max(
                static_cast<unsigned long long>(x.height) + 1, std::memory_order_relaxed);
            g.j.complete<join_subtree_sum>(ctx, x.to, subtree_counts{});
            return;
        }
        if (n == 0) {
            g.j.complete<join_subtree_sum>(ctx, x.to, leaf_counts(x.height));
            return;
        }
        // Whether n fits one record or needs ranges, this node's record counts the node.
        fork_children(ctx, g, x.s, x.height, 0u, static_cast<unsigned>(n), x.to, node_record_mark);
    }
};

struct join_range_task {
    using payload = join_range_payload;
    join_args g;
    template <class Ctx> CANOPY_DEVICE void operator()(const join_range_payload& x, Ctx& ctx) const {
        fork_children(ctx, g, x.s, x.height, x.lo, x.hi, x.to, 0u);
    }
};

/// The continuation of every record: the children's counts, plus the node itself for a node's record.
struct join_subtree_sum {
    using payload = runtime::join_payload;
    join_args g;
    template <class Ctx> CANOPY_DEVICE void operator()(const runtime::join_payload& p, Ctx& ctx) const {
        // The visiting take: no array of fan_out results in local memory (join.hpp).
        subtree_counts c{0, 0};
        runtime::join_taken r =
            g.j.take(ctx, p, [&c](unsigned, const subtree_counts& v) { c = add_counts(c, v); });
        if (r.mark == node_record_mark) {
            c.nodes += 1;
        }
        g.j.complete<join_subtree_sum>(ctx, r.to, c);
    }
};

/// Join records canopy uts --joins allocates by default (about 212 bytes each: 212 MiB). On an H100
/// (1,584 work-groups breadth-first at once) 2^18 ran out on T1 under steal-emulated and 2^19 on T1L;
/// 2^20 held every tree under every policy (docs/gpu-check.md, fourth run).
inline constexpr unsigned default_join_records = 1u << 20;

/// traverse_runtime's counts computed by joins: the root's subtree counts, delivered to the host.
/// Throws canopy::error after the run when the pool ran out (naming `records` and the fix) or a node
/// was deeper than the decision table. `track_peak`: count the records open at once (join_pool::
/// track_peak: three relaxed device atomics per join, off for measured runs) into join_peak.
inline runtime_result traverse_runtime_joins(const params& p, const runtime::config& cfg,
                                             unsigned records = default_join_records,
                                             unsigned hash_cycles = sha1_model_cycles,
                                             unsigned max_table_rows = default_max_rows,
                                             bool track_peak = false) {
    if (cfg.devices > 1) {
        throw error("canopy uts: a join tree counts through one device's pool (device-scope joins): run it "
                    "on one device");
    }
    if (cfg.staging_capacity < fan_out) {
        // A node stages at most fan_out children; a completing task at most one continuation.
        throw error("canopy uts: the staging buffer must hold at least " + std::to_string(fan_out) +
                    " tasks per lane");
    }
    device_buffer<unsigned long long> counters(count_slots * slot_words);
    counters.fill_zero();
    const decision_table table = build_decision_table(p, max_table_rows);
    const device_buffer<std::uint32_t> table_words(table.words);
    runtime::join_pool<subtree_counts, fan_out> pool(records);
    pool.track_peak(track_peak);
    const join_args g{{p, counters.data(), table.view(table_words.data()), hash_cycles, {}}, pool.view()};
    runtime::task_set<join_node_task, join_range_task, join_subtree_sum> ts{
        join_node_task{g}, join_range_task{g}, join_subtree_sum{g}};
    const node_state root = root_state(p.root_seed);
    join_node_payload rp;
    std::memcpy(rp.s, root.b, 20);
    rp.height = 0;
    rp.type = static_cast<int>(root_type(p));
    rp.to = runtime::join_root_slot;
    ts.seed<join_node_task>(rp);
    runtime_result r;
    r.stats = ts.run(cfg);
    r.table_rows = table.segments;
    r.table_limit = table.limit;
    r.join_peak = pool.peak_open();
    // Only its check that no node was deeper than the table: the counts come from the join tree.
    (void)sum_counters(counters, table, max_table_rows);
    subtree_counts c{};
    try {
        c = pool.result();
    } catch (const error& e) {
        throw error(std::string(e.what()) + " [canopy uts --joins: --join-records sets the capacity, now " +
                    std::to_string(records) + "]");
    }
    if (depth_of(c) == counts_overflow) {
        throw error("canopy uts --joins: the tree has more than 2^40 leaves or a leaf deeper than 2^24 - 2, "
                    "which a join's subtree counts do not hold; run it without --joins (counted by device "
                    "atomics)");
    }
    r.c.nodes = c.nodes;
    r.c.leaves = leaves_of(c);
    r.c.depth = static_cast<int>(depth_of(c));
    return r;
}

} // namespace canopy::workloads::uts
