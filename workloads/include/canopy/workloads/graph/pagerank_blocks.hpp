// canopy/workloads/graph/pagerank_blocks.hpp — PageRank tasks to an L1 error target by block pull in
// generations: a task pulls the new ranks of a block of 32 vertices from its neighbours' current shares,
// and a block's next generation is spawned by the last of the blocks it pulls from to finish the current
// one, so sweeps overlap across the graph with no barrier between them. Selected by
// run_options::pagerank_pull (CLI --pagerank-tasks pull); residual push (pagerank.hpp) is the default.
//
// Why pull (docs/graph-experiment.md): a residual push of t lowers the total residual by at least
// (1 - d)|t|, and a vertex is taken once its residual crosses epsilon, so pushes per vertex grow linearly
// in the accuracy asked where Jacobi's iterations grow with its logarithm: at the 1e-4 L1 target copter2
// ran 47.7 pushes per vertex (a returning RMW per arc each) against Jacobi's 24 iterations. A pull
// recomputes a rank as Jacobi does, one load per arc; generations converge at Jacobi's rate (measured
// 0.66-0.73 of the residual left per generation on six graphs) without the loop of kernels' two launches
// per iteration. Data-driven pulls (a block re-queued when its neighbours' changes, spread by arc counts,
// cross a threshold) ran 34 pulls per vertex on copter2: the threshold's linear law again, at block grain.
//
// Fixed point as pagerank.hpp. share[u] = push_share(x_u, d_q, deg u), what u gives each out-arc; the
// pull of v is T~(x)_v = teleport + sum over in-arcs u->v of share[u] (the in-arcs are the graph itself
// when it is symmetric, else its transpose, built on the host). A dangling vertex gives nothing (it
// absorbs, as in the push: the solution is y = (1 - d) / V + d P y with P's dangling columns zero, and
// x* = y / |y|_1).
//
// Blocks (pr_make_blocks, on the host, linear in E): runs of 32 vertices in breadth-first order, so that
// a block is a connected patch and its arcs reach few blocks (4elt.graph's ids carry no locality: 64
// consecutive ids reach 109 of the 117 blocks on average). Generations: done[c] counts the completions
// notified to block c in a round; a block that finishes generation k < G notifies every block its arcs
// reach, and the notification that brings done[c] to a multiple of need[c] (the blocks that notify c)
// spawns c's next generation. A block may run a generation before every one of its sources finished
// the one before (a source that is a generation ahead notifies early); that only makes the iteration
// asynchronous. Generation 1 of every block is seeded; G per round comes from the measured residual.
//
// Error bound, a posteriori: after each round a measure kernel computes, at the x the round left (no
// task running), T~(x) - x exactly for every vertex, from x itself (not from share[]). In reals T(x) =
// (1 - d) / V + d P x and y = T(y), so x - y = (x - T(x)) + d P (x - y) and |x - y|_1 <= |T(x) - x|_1 /
// (1 - d) (P column-substochastic). |T(x) - T~(x)|_1 < (2E + V) ulp: each of the E arc terms loses below
// 1 / deg + 1 <= 2 ulp to its two floors, each vertex's teleport below 1. So |x - y|_1 <= (R + 2E + V)
// ulp / (1 - d), R = sum of |T~(x)_v - x_v| in ulps, which pagerank_tasks_measured_guarantee
// (pagerank_fixed.hpp) turns into the L1 error of x / sum(x) against x* (its residual_left = R + 2E + V,
// no takes: nothing else is lost). Rounds go on until that is at most the target. Nothing in the bound
// rests on the schedule: a pull that read an old share only converges more slowly.
//
// Memory orders and scopes (device scope throughout: any work-group runs any block):
// - rank and share: relaxed atomic loads and stores. A pull reads whatever its sources last wrote; an
//   asynchronous iteration converges from older values too, and the bound is measured after the launch,
//   when every store is visible. Relaxed, not plain: a block's two generations may overlap (above).
// - done: relaxed fetch_add. A count: its one modification order gives each multiple to one notifier,
//   so each generation is spawned once. The spawn's hand-off orders the spawner's own stores before the
//   run; the other sources' stores need no order (above).
#pragma once

#include <cstdint>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/pagerank_fixed.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {
namespace detail {

/// Vertices per block; it divides every sub-group width (32, 64). Blocks of 8 (a pass per front of 8)
/// measured copter2 2.54 M cycles, of 32 (four passes) 1.71 M: a front's fixed costs over more pulls.
inline constexpr vertex_id pr_block_size = 32;

/// The blocks and their adjacency. Block b holds vertices order[32 b, 32 b + 32) (the last block fewer);
/// block_of[v] is v's block. For block b, entries [offsets[b], offsets[b + 1]) of `entries` are the
/// blocks its out-arcs reach (each once).
struct pr_blocks {
    std::vector<vertex_id> order, block_of;
    std::vector<std::uint32_t> offsets, entries;
    /// need[c]: the notifying blocks whose entries name c (the completions that make one generation of
    /// c ready); a block notifies when its own need is not 0 (a block nothing notifies runs once a round).
    std::vector<std::uint32_t> need;
};

/// Built on the host from the CSR arrays, linear in E. Blocks are runs of 32 vertices in breadth-first
/// order over the out-arcs (a search from every vertex not yet reached), so that a block is a connected
/// patch and its arcs reach few other blocks. Vertex ids carry no such locality in general (4elt.graph:
/// a block of 64 consecutive ids reaches 109 of the 117 blocks on average), and then every block
/// notifies, and waits for, nearly every other: a generation becomes a barrier with a count per block
/// pair.
inline pr_blocks pr_make_blocks(const std::vector<edge_id>& off, const std::vector<vertex_id>& tgt,
                                vertex_id n) {
    const vertex_id nb = (n + pr_block_size - 1) / pr_block_size;
    pr_blocks k;
    k.order.reserve(n);
    k.block_of.assign(n, 0);
    std::vector<bool> seen_v(n, false);
    for (vertex_id s = 0; s < n; ++s) { // a breadth-first search from every vertex not yet reached
        if (seen_v[s]) {
            continue;
        }
        seen_v[s] = true;
        std::size_t head = k.order.size();
        k.order.push_back(s);
        for (; head < k.order.size(); ++head) {
            const vertex_id u = k.order[head];
            for (edge_id e = off[u]; e < off[u + 1]; ++e) {
                if (!seen_v[tgt[e]]) {
                    seen_v[tgt[e]] = true;
                    k.order.push_back(tgt[e]);
                }
            }
        }
    }
    for (vertex_id i = 0; i < n; ++i) {
        k.block_of[k.order[i]] = i / pr_block_size;
    }
    k.offsets.reserve(std::size_t{nb} + 1);
    k.offsets.push_back(0);
    std::vector<std::uint32_t> stamp(nb, ~std::uint32_t{0});
    for (vertex_id b = 0; b < nb; ++b) {
        const vertex_id hi = (b + 1) * pr_block_size < n ? (b + 1) * pr_block_size : n;
        for (vertex_id i = b * pr_block_size; i < hi; ++i) {
            const vertex_id u = k.order[i];
            for (edge_id e = off[u]; e < off[u + 1]; ++e) {
                const std::uint32_t c = k.block_of[tgt[e]];
                if (stamp[c] != b) { // each block once
                    stamp[c] = b;
                    k.entries.push_back(c);
                }
            }
        }
        k.offsets.push_back(static_cast<std::uint32_t>(k.entries.size()));
    }
    // need, to its fixed point: a block notifies only when something notifies it (else it runs once).
    k.need.assign(nb, 1);
    for (bool changed = true; changed;) {
        std::vector<std::uint32_t> next(nb, 0);
        for (vertex_id b = 0; b < nb; ++b) {
            if (k.need[b] != 0) {
                for (std::uint32_t e = k.offsets[b]; e < k.offsets[b + 1]; ++e) {
                    ++next[k.entries[e]];
                }
            }
        }
        changed = next != k.need;
        k.need.swap(next);
    }
    return k;
}

/// The first round's rate per generation (measured 0.66-0.73 on six graphs), and the most rounds (a
/// target below what the fixed point resolves would otherwise never end; the run reports its guarantee).
inline constexpr double pagerank_block_prior_rate = 0.7;
inline constexpr unsigned pagerank_block_max_rounds = 64;

struct pr_block_args {
    csr_view g;  // out-arcs: deg u for share[u]
    csr_view in; // in-arcs: what a pull reads (g itself on a symmetric graph)
    rank_fixed* rank;
    rank_fixed* share;
    const vertex_id* order; // pr_blocks::order
    const std::uint32_t* adj_offsets;
    const std::uint32_t* adj_entries;
    const std::uint32_t* need;
    std::uint32_t* done; // completions notified to each block this round, zeroed by the host
    std::uint64_t d_fx;
    rank_fixed teleport;
    std::uint32_t generations; // this round's
};
struct pr_block_payload {
    std::uint32_t b, k; // block b's generation k (1 .. generations)
};
struct pr_block_notify_payload {
    std::uint32_t lo, hi; // adjacency entries [lo, hi)
};
struct pr_block_seeds_payload {
    std::uint32_t lo, hi; // blocks [lo, hi)
};

struct pr_block_task;
struct pr_block_notify_task;

/// Counts one completion toward the entry's block; the count that completes a generation spawns it.
template <class Ctx>
CANOPY_DEVICE void pr_block_notify_entry(Ctx& ctx, const pr_block_args& a, std::uint32_t e) {
    const std::uint32_t c = ld(&a.adj_entries[e]);
    // Relaxed: a count, one modification order (header comment: what a pull reads needs no order).
    const std::uint32_t now =
        atomic_ref<std::uint32_t, scope::device>(a.done[c]).fetch_add(1, std::memory_order_relaxed) + 1;
    const std::uint32_t need = ld(&a.need[c]); // >= 1: this entry's block notifies
    if (now % need == 0 && now / need + 1 <= a.generations) {
        ctx.template spawn<pr_block_task>(pr_block_payload{c, now / need + 1});
    }
}

/// Every lane of the front: notifies each lane's block's entries together; a block with more than
/// together_max entries hands them to notify tasks (each_together_or_split).
template <class Ctx>
CANOPY_DEVICE void pr_block_notify_together(Ctx& ctx, const pr_block_args& a, std::uint32_t lo,
                                            std::uint32_t hi) {
    each_together_or_split(
        edge_id{lo}, edge_id{hi}, 0u,
        [&](unsigned, edge_id e) { pr_block_notify_entry(ctx, a, static_cast<std::uint32_t>(e)); },
        [&](edge_id b, edge_id e) {
            ctx.template spawn<pr_block_notify_task>(
                pr_block_notify_payload{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e)});
        });
}

/// The pull of one vertex: its new rank from its neighbours' current shares; stores rank and share.
CANOPY_DEVICE inline void pr_block_pull(const pr_block_args& a, vertex_id v) {
    using word_ref = atomic_ref<rank_fixed, scope::device>;
    rank_fixed y = a.teleport;
    const edge_id end = a.in.end(v);
    for (edge_id e = a.in.begin(v); e < end; ++e) {
        // Relaxed: any recent share will do (header comment); the graph itself is read-only.
        y += word_ref(a.share[a.in.target(e)]).load(std::memory_order_relaxed);
    }
    const edge_id deg = a.g.degree(v);
    word_ref(a.rank[v]).store(y, std::memory_order_relaxed);
    word_ref(a.share[v]).store(deg == 0 ? 0 : push_share(y, a.d_fx, deg), std::memory_order_relaxed);
}

/// Sub-group-cooperative (task_context.hpp): the front's blocks are pulled F / 32 at a time, a lane per
/// vertex (the 32 lanes of group g pull the block of lane first + g); then the front notifies the
/// blocks' entries together. At most front_width blocks a front (task_context.hpp's type_front_width):
/// at the sub-group's width, a sub-group's children fill one front, which it runs pass after pass while
/// the other sub-groups idle (4elt, blocks of 64: 94% of the lane-cycles waiting for a pick; generations
/// of blocks of 8: 1.49 M cycles at 64 a front, 552 K at 8).
struct pr_block_task {
    using payload = pr_block_payload;
    static constexpr bool cooperative = true;
    static constexpr unsigned front_width = 8;
    pr_block_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        const unsigned F = subgroup_size(); // 32 or 64: a multiple of the block size
        const unsigned groups = F / pr_block_size;
        const unsigned count = lane_count(ballot(valid)); // the valid lanes are the first `count`
        const unsigned lane = lane_id();
        const vertex_id n = a.g.num_vertices;
        const std::uint32_t mine_b = valid ? x.b : 0u;
        // Gathered first, then pulled with no collective in between (as each_together does): a lane's
        // pulls differ in degree, and a collective between passes would make every pass cost its
        // slowest lane (copter2: 32% of the lane-cycles waiting there).
        constexpr unsigned most = front_width; // passes: at most front_width (a group per pass)
        std::uint32_t blocks[most];
        unsigned passes = 0;
        for (unsigned first = 0; first < count; first += groups) {
            const unsigned owner = first + lane / pr_block_size;
            blocks[passes] = shuffle(mine_b, owner < F ? owner : 0);
            blocks[passes] = owner < count ? blocks[passes] : ~std::uint32_t{0};
            ++passes;
        }
        for (unsigned p = 0; p < passes; ++p) {
            const vertex_id i = blocks[p] * pr_block_size + lane % pr_block_size;
            if (blocks[p] != ~std::uint32_t{0} && i < n) {
                pr_block_pull(a, ld(&a.order[i]));
            }
        }
        std::uint32_t lo = 0, hi = 0;
        if (valid && x.k < a.generations && ld(&a.need[x.b]) != 0) {
            lo = ld(&a.adj_offsets[x.b]);
            hi = ld(&a.adj_offsets[x.b + 1]);
        }
        pr_block_notify_together(ctx, a, lo, hi);
    }
};

/// Sub-group-cooperative, like pr_block_task's notifications.
struct pr_block_notify_task {
    using payload = pr_block_notify_payload;
    static constexpr bool cooperative = true;
    pr_block_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        pr_block_notify_together(ctx, a, valid ? x.lo : 0, valid ? x.hi : 0);
    }
};

/// The seeds: every block's first generation.
struct pr_block_seeds_task {
    using payload = pr_block_seeds_payload;
    pr_block_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        each_or_split(
            x.lo, x.hi,
            [&](std::uint32_t b) {
                ctx.template spawn<pr_block_task>(pr_block_payload{b, 1});
            },
            [&](std::uint32_t b, std::uint32_t e) {
                ctx.template spawn<pr_block_seeds_task>(pr_block_seeds_payload{b, e});
            });
    }
};

/// After a round (and before the first): r_v = T~(x)_v - x_v from x itself (header comment), and
/// sums[0] += |r_v|, sums[1] += x_v, share[v] = push_share(x_v) (the next round's pulls start from shares
/// that match x). Relaxed, device scope: integer sums read after the kernel; x and the graph are only
/// read here, share only written.
struct pr_block_measure_kernel {
    csr_view in;                // in-arcs
    const edge_id* out_offsets; // deg u = out_offsets[u + 1] - out_offsets[u]
    const rank_fixed* rank;
    rank_fixed* share;
    rank_fixed* sums; // zeroed by the host
    std::uint64_t d_fx;
    rank_fixed teleport;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        rank_fixed r = 0, s = 0;
        using sum_ref = atomic_ref<rank_fixed, scope::device>;
        for (unsigned v = global_id(); v < in.num_vertices; v += stride) {
            // The last round's launch has ended: plain loads see every task's stores.
            rank_fixed y = teleport;
            const edge_id end = in.end(v);
            for (edge_id e = in.begin(v); e < end; ++e) {
                const vertex_id u = in.target(e); // an arc u -> v: deg u >= 1
                y += push_share(ld(&rank[u]), d_fx, ld(&out_offsets[u + 1]) - ld(&out_offsets[u]));
            }
            const rank_fixed x = ld(&rank[v]);
            const rank_fixed rv = y > x ? y - x : x - y;
            const edge_id deg = ld(&out_offsets[v + 1]) - ld(&out_offsets[v]);
            st(&share[v], deg == 0 ? 0 : push_share(x, d_fx, deg));
            r += rv;
            s += x;
        }
        if (r != 0) {
            sum_ref(sums[0]).fetch_add(r, std::memory_order_relaxed);
        }
        if (s != 0) {
            sum_ref(sums[1]).fetch_add(s, std::memory_order_relaxed);
        }
    }
};

} // namespace detail
} // namespace canopy::workloads::graph
