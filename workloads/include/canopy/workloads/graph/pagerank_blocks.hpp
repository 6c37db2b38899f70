// canopy/workloads/graph/pagerank_blocks.hpp — PageRank tasks to an L1 error target by block pull in
// generations: a task pulls the new ranks of a block of vertices from their in-neighbours' current
// shares, with every lane of its sub-group taking an equal slice of the block's in-arcs, and a block's
// next generation is spawned by the last of the blocks it pulls from to finish the current one, so
// sweeps overlap across the graph with no barrier between them. Each generation's change is summed as
// it completes, and the round stops where the rate it measures says the target is met. Selected by
// run_options::pagerank_pull (CLI --pagerank-tasks pull); residual push (pagerank.hpp) is the default.
//
// Why pull (docs/graph-experiment.md): a residual push of t lowers the total residual by at least
// (1 - d)|t|, and a vertex is taken once its residual crosses epsilon, so pushes per vertex grow linearly
// in the accuracy asked where Jacobi's iterations grow with its logarithm: at the 1e-4 L1 target copter2
// ran 47.7 pushes per vertex (a returning RMW per arc each) against Jacobi's 24 iterations. A pull
// recomputes a rank as Jacobi does, one load per arc, and generations converge at Jacobi's rate (the
// sweeps overlap, but a block reads mostly the generation before) without the loop of kernels' two
// launches and two passes over the vertices per iteration.
//
// Why slices of arcs, not a lane per vertex: a front costs its slowest lane. With a lane per vertex, a
// mesh's lanes waited 24% of the run for the lane with the largest degree (copter2, site profile), and a
// power-law graph's hub was one lane walking its whole in-list while every block waited for it
// (Kronecker 12: 1,284 in-arcs, 0.27x the loop of kernels). Here lane l sums arcs [a0 + l s, a0 + (l + 1)
// s) of the block, s = ceil(A / F): no lane holds more than one arc over the mean, whatever the degrees,
// and a vertex whose arcs span several lanes is summed by a segmented scan over the lanes (one
// collective). Whole blocks are one front each (front_width 1), sized by arcs, not vertices.
//
// Fixed point as pagerank.hpp. share[u] = push_share(x_u, d_q, deg u), what u gives each out-arc; the
// pull of v is T~(x)_v = teleport + sum over in-arcs u->v of share[u] (the transpose's arcs). A dangling
// vertex gives nothing (it absorbs, as in the push: the solution is y = (1 - d) / V + d P y with P's
// dangling columns zero, and x* = y / |y|_1).
//
// Layout (pr_make_layout, on the host, linear in E): the vertices are renumbered so that every block is
// a run of consecutive ids whose in-arcs are consecutive in the renumbered transpose. Blocks are grown
// breadth-first up to an arc budget (seeds taken in a breadth-first order of the whole graph), so that
// a block is a compact patch of a mesh: on copter2 at 2,048 arcs, 67% of a block's arcs come from the
// block itself and a block notifies 18.5 others, against 39% and 15 for cuts of one breadth-first order
// (shells). A vertex with more in-arcs than the budget is a block alone; vertices without in-arcs come
// last, in blocks of their own (their rank is the teleport term, pulled once a round). The ranks the run
// returns are mapped back to the caller's ids.
//
// Generations, in one of two kinds of round, chosen by the block graph (pr_layout::dense):
// - Sparse (a mesh: a block's arcs reach a few blocks near it). done[c] counts the completions notified
//   to block c in a round; a block that finishes a generation notifies every block its out-arcs reach,
//   and the notification that brings done[c] to a multiple of need[c] (the blocks that notify c) spawns
//   c's next generation. A block may run a generation before every one of its sources finished the one
//   before (a source that is a generation ahead notifies early), and it reads its sources' latest
//   shares, some already of its own generation: an asynchronous, partly Gauss-Seidel sweep, which on the
//   meshes needs fewer generations than Jacobi's iterations (mdual 12-14 against 18, road20k 28 against
//   34) and waits less than one that counted each generation apart (mdual, a counter per parity: 2.7 M
//   cycles against 1.0 M).
// - Dense (a power-law graph: a block's arcs reach a large part of all blocks). There, every block
//   waits for nearly every other anyway, the notifications cost about as much as the pull, and the
//   asynchronous sweep excites what Jacobi from the uniform start leaves alone (Kronecker 12's many tiny
//   components and pairs, whose error then decays at d per generation: 29 generations against Jacobi's
//   11). So the round is a barrier made of tasks: no notifications; generation k pulls the shares of
//   k - 1 from one half of share[] and writes the other (a Jacobi sweep exactly), and the block whose
//   count completes generation k (below) spawns generation k + 1 of every block, in range tasks of one
//   front each, which the sub-groups they are shared to split and spawn.
// Generation 1 of every block is seeded; a block with no in-arcs (or nothing that notifies it) runs once
// a round.
//
// Stopping within a round: every block that takes part in generations adds, to gen[k], the L1 change of
// its ranks in generation k (the rank store is an exchange, which returns the old rank) together with a
// count, in one word; the block whose add completes the count knows generation k's whole change, which
// for a Jacobi sweep is the residual of the generation before. Once that change, one step of the measured
// rate ahead, is below a share of what the target allows (pr_stop_dense, pr_stop_sparse), it lowers stop
// to k, and blocks spawn next generations only up to stop; a sparse round also predicts a stop up to
// pr_stop_ahead generations ahead, pessimistically (pr_block_count_generation). Not further ahead: the
// rate climbs while the fast-decaying part of the error dies out (a mesh's from 0.2 to 0.8 over 24
// sweeps), so a stop predicted from an early rate comes too soon (4elt: a stop of 10 where 23 were
// needed), and the generations a stop refuses cannot be taken back. Nothing in the bound rests on this:
// a round that stops early is measured, and another round follows, its stop set by the host from the
// measured residual and the last round's rates (pagerank_tasks_blocks).
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
// - rank and share: relaxed atomic exchange, loads and stores. A pull reads whatever its sources last
//   wrote; an asynchronous iteration converges from older values too, and the bound is measured after the
//   launch, when every store is visible. Relaxed, not plain: in a sparse round a block's two generations
//   may overlap (above), and a pull may read a share while its owner writes it. In a dense round the
//   barrier's spawns order generation k - 1's stores before generation k's pulls only as a schedule (no
//   release or acquire in between); a pull that read an older share would make the sweep less exact,
//   never the bound wrong.
// - done: relaxed fetch_add. A count: its one modification order gives each multiple to one notifier,
//   so each generation is spawned once. The spawn's hand-off orders the spawner's own stores before the
//   run; the other sources' stores need no order (above).
// - gen, meas and stop: relaxed. gen[k]'s change and count are one word, so the add that completes the
//   count reads every block's change (one modification order); meas and stop only steer the round (a
//   stale stop runs a generation more, which the measure after the round sees).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/pagerank_fixed.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {
namespace detail {

/// A block's in-arcs per lane, at most and at least (pr_block_arcs): fewer and the runtime's cost per
/// front (pick, count, pack: ~3 K cycles on timed hrf32) outweighs the pull; more and a graph has too
/// few blocks to keep the device's sub-groups busy.
inline constexpr edge_id pr_block_arcs_per_lane_max = 32;
inline constexpr edge_id pr_block_arcs_per_lane_min = 4;
/// Blocks per resident sub-group the budget aims at (pr_block_arcs): the slack that lets generations
/// overlap when a block waits for its slowest source.
inline constexpr edge_id pr_blocks_per_subgroup = 3;

/// The arc budget of a block on a device of `subgroups` resident sub-groups of `lanes` lanes: E / (3
/// subgroups), within [4, 32] arcs per lane.
constexpr edge_id pr_block_arcs(edge_id arcs, std::uint64_t subgroups, unsigned lanes) {
    const edge_id want = arcs / (pr_blocks_per_subgroup * (subgroups == 0 ? 1 : subgroups));
    const edge_id lo = pr_block_arcs_per_lane_min * lanes, hi = pr_block_arcs_per_lane_max * lanes;
    return want < lo ? lo : want > hi ? hi : want;
}

/// The arc budget for a run on device `d` whose launch has work-groups of `block`: pr_block_arcs over the
/// sub-groups it holds resident (a CU's work-groups of `block` work-items, within its work-items).
inline edge_id pr_default_block_arcs(edge_id arcs, const device_info& d, unsigned block) {
    const unsigned F = d.subgroup_size != 0 ? d.subgroup_size : 1;
    const std::uint64_t by_groups = std::uint64_t{d.max_blocks_per_cu} * ((block + F - 1) / F);
    const std::uint64_t by_items = d.max_threads_per_cu / F;
    const std::uint64_t per_cu = by_groups < by_items ? by_groups : by_items;
    return pr_block_arcs(arcs, std::uint64_t{d.compute_units} * (per_cu != 0 ? per_cu : 1), F);
}

/// The pull's layout, in renumbered ids. Vertex i of the layout is the caller's order[i]
/// (position[order[i]] == i). in_offsets / in_sources: the transpose in new ids (the arcs u -> v as
/// sources u of v, consecutive per v); out_degree[i]: new vertex i's out-degree. Block b holds new ids
/// [block_first[b], block_first[b + 1]), whose in-arcs are in_offsets[block_first[b]] ..
/// in_offsets[block_first[b + 1]]; blocks [arc_blocks, blocks) hold the vertices without in-arcs.
/// entries [offsets[b], offsets[b + 1]) are the blocks b's out-arcs reach (each once).
struct pr_layout {
    std::vector<vertex_id> order, position;
    std::vector<edge_id> in_offsets, out_degree;
    std::vector<vertex_id> in_sources;
    std::vector<vertex_id> block_first;
    std::uint32_t arc_blocks = 0;
    std::vector<std::uint32_t> offsets, entries;
    /// need[c]: the notifying blocks whose entries name c (the completions that make one generation of
    /// c ready); a block notifies when its own need is not 0 (a block nothing notifies runs once a round).
    std::vector<std::uint32_t> need;
    /// Blocks whose need is not 0: the ones each generation's count waits for.
    std::uint32_t active = 0;
    std::uint32_t blocks() const { return static_cast<std::uint32_t>(block_first.size() - 1); }
    /// A dense block graph: a block's out-arcs reach more than an eighth of the blocks on average (a
    /// power-law graph's: Kronecker 12 at 256 arcs a block, 167 of 427). Every block then waits for
    /// nearly every other each generation, a barrier in all but name, and the notifications cost about
    /// as much as the pull (69,728 for 96,790 arcs); the last notifier of a generation spawned ~400 blocks
    /// into its own queue. Such a round is run as a barrier of tasks instead (pr_block_args::dense).
    bool dense() const {
        const std::uint64_t nb = blocks();
        return nb > 1 && std::uint64_t{entries.size()} * 8 > nb * nb;
    }
};

/// Built on the host from the CSR arrays (out-arcs), linear in E. Blocks are grown breadth-first over
/// the out-arcs from seeds taken in a breadth-first order of the whole graph, each until the next vertex
/// would take its in-arcs past `budget` (a vertex with more is a block alone), so that a block is a
/// compact patch; when a patch's search runs dry before the budget, the block goes on from the next seed.
/// Vertices without in-arcs go last, `lanes` to a block (a lane each).
inline pr_layout pr_make_layout(const std::vector<edge_id>& off, const std::vector<vertex_id>& tgt,
                                vertex_id n, edge_id budget, unsigned lanes) {
    pr_layout k;
    const edge_id m = off.empty() ? 0 : off[n];
    std::vector<edge_id> indeg(n, 0);
    for (edge_id e = 0; e < m; ++e) {
        ++indeg[tgt[e]];
    }
    // A breadth-first order of the whole graph: where the blocks' seeds come from.
    std::vector<vertex_id> bfs;
    bfs.reserve(n);
    {
        std::vector<bool> seen(n, false);
        for (vertex_id s = 0; s < n; ++s) {
            if (seen[s]) {
                continue;
            }
            seen[s] = true;
            for (std::size_t head = bfs.size(), end = (bfs.push_back(s), bfs.size()); head < end;
                 ++head, end = bfs.size()) {
                const vertex_id u = bfs[head];
                for (edge_id e = off[u]; e < off[u + 1]; ++e) {
                    if (!seen[tgt[e]]) {
                        seen[tgt[e]] = true;
                        bfs.push_back(tgt[e]);
                    }
                }
            }
        }
    }
    constexpr vertex_id unplaced = ~vertex_id{0};
    k.position.assign(n, unplaced);
    k.order.reserve(n);
    k.block_first.push_back(0);
    {
        std::deque<vertex_id> queue;
        edge_id arcs = 0; // in the open block
        std::size_t next_seed = 0;
        const auto place = [&](vertex_id u) {
            if (arcs != 0 && arcs + indeg[u] > budget) { // close the open block first
                k.block_first.push_back(static_cast<vertex_id>(k.order.size()));
                arcs = 0;
                queue.clear(); // the next block grows from u
            }
            k.position[u] = static_cast<vertex_id>(k.order.size());
            k.order.push_back(u);
            arcs += indeg[u];
            for (edge_id e = off[u]; e < off[u + 1]; ++e) {
                if (k.position[tgt[e]] == unplaced && indeg[tgt[e]] != 0) {
                    queue.push_back(tgt[e]);
                }
            }
        };
        for (;;) {
            vertex_id u = unplaced;
            while (!queue.empty() && u == unplaced) {
                u = queue.front();
                queue.pop_front();
                u = k.position[u] == unplaced ? u : unplaced;
            }
            while (u == unplaced && next_seed < bfs.size()) {
                const vertex_id s = bfs[next_seed++];
                u = k.position[s] == unplaced && indeg[s] != 0 ? s : unplaced;
            }
            if (u == unplaced) {
                break;
            }
            place(u);
        }
        if (arcs != 0) {
            k.block_first.push_back(static_cast<vertex_id>(k.order.size()));
        }
    }
    k.arc_blocks = static_cast<std::uint32_t>(k.block_first.size() - 1);
    for (vertex_id v = 0; v < n; ++v) { // no in-arcs: last, a lane each
        if (indeg[v] == 0) {
            k.position[v] = static_cast<vertex_id>(k.order.size());
            k.order.push_back(v);
            if ((k.order.size() - k.block_first.back()) % lanes == 0 || k.order.size() == n) {
                k.block_first.push_back(static_cast<vertex_id>(k.order.size()));
            }
        }
    }
    if (k.block_first.back() != n) {
        k.block_first.push_back(n);
    }
    // The transpose in new ids, and the out-degrees.
    k.in_offsets.assign(std::size_t{n} + 1, 0);
    k.out_degree.resize(n);
    for (vertex_id i = 0; i < n; ++i) {
        k.in_offsets[i + 1] = k.in_offsets[i] + indeg[k.order[i]];
        k.out_degree[i] = off[k.order[i] + 1] - off[k.order[i]];
    }
    k.in_sources.resize(m);
    {
        std::vector<edge_id> at(k.in_offsets.begin(), k.in_offsets.end() - 1);
        for (vertex_id i = 0; i < n; ++i) {
            const vertex_id u = k.order[i];
            for (edge_id e = off[u]; e < off[u + 1]; ++e) {
                k.in_sources[at[k.position[tgt[e]]]++] = i;
            }
        }
    }
    // The block adjacency over the out-arcs: whom a block's new shares are for.
    const std::uint32_t nb = k.blocks();
    std::vector<std::uint32_t> block_of(n);
    for (std::uint32_t b = 0; b < nb; ++b) {
        for (vertex_id i = k.block_first[b]; i < k.block_first[b + 1]; ++i) {
            block_of[i] = b;
        }
    }
    k.offsets.reserve(std::size_t{nb} + 1);
    k.offsets.push_back(0);
    std::vector<std::uint32_t> stamp(nb, ~std::uint32_t{0});
    for (std::uint32_t b = 0; b < nb; ++b) {
        for (vertex_id i = k.block_first[b]; i < k.block_first[b + 1]; ++i) {
            const vertex_id u = k.order[i];
            for (edge_id e = off[u]; e < off[u + 1]; ++e) {
                const std::uint32_t c = block_of[k.position[tgt[e]]];
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
        for (std::uint32_t b = 0; b < nb; ++b) {
            if (k.need[b] != 0) {
                for (std::uint32_t e = k.offsets[b]; e < k.offsets[b + 1]; ++e) {
                    ++next[k.entries[e]];
                }
            }
        }
        changed = next != k.need;
        k.need.swap(next);
    }
    k.active = static_cast<std::uint32_t>(
        std::count_if(k.need.begin(), k.need.end(), [](std::uint32_t x) { return x != 0; }));
    return k;
}

/// The most rounds (a target below what the fixed point resolves would otherwise never end; the run
/// reports its guarantee).
inline constexpr unsigned pagerank_block_max_rounds = 64;

/// gen[k]'s word: the generation's change in units of 2^24 ulps above bit 24, the blocks counted below.
/// A round's changes sum to at most 2^62 ulps (|x_new - x_old|_1 <= 4: ranks below 2^61), i.e. 2^38
/// units in 40 bits; the layout refuses more than 2^24 - 1 blocks.
inline constexpr unsigned pr_gen_count_bits = 24;
inline constexpr std::uint64_t pr_gen_count_mask = (std::uint64_t{1} << pr_gen_count_bits) - 1;
/// The share of what the target allows that a round aims its last change at (pr_block_count_generation),
/// in a dense and a sparse round, and the most generations ahead a sparse round's stop is predicted.
inline constexpr double pr_stop_dense = 0.9, pr_stop_sparse = 0.6;
inline constexpr unsigned pr_stop_ahead = 6;

/// A round after one that missed the target (pagerank_tasks_blocks): the generations that bring the
/// measured residual (ulps, exact: the measure kernel's) under pr_stop_followup of what the target allows
/// (ulps), at the worst of the last round's last three completed rates plus 0.05 (meas: its changes per
/// generation), or at `fallback` (the damping: Jacobi's change shrinks at least that fast) when fewer are
/// known. At least 1, at most cap. Why the host's: a round's own stop knows only the generations'
/// changes, and the residual they leave ranged from 0.5x (mdual) to 1.1x (4elt) the last change, so a
/// stop that errs short is answered by the exact measure, in the one or two generations it asks for,
/// rather than by a second round that runs four before it knows a rate.
inline constexpr double pr_stop_followup = 0.8;
inline std::uint32_t pr_followup_stop(const std::vector<std::uint64_t>& meas, double residual, double allowed,
                                      double fallback, std::uint32_t cap) {
    std::size_t last = meas.size();
    while (last > 1 && meas[last - 1] == 0) {
        --last;
    }
    // meas[1 .. last) are the completed generations' changes (meas[0] is unused: generations count from 1).
    double worst = 0;
    unsigned rates = 0;
    for (std::size_t i = last; i >= 3 && rates < 3; --i, ++rates) {
        const double now = static_cast<double>(meas[i - 1]), before = static_cast<double>(meas[i - 2]);
        worst = std::max(worst, before > now ? now / before : 1.0);
    }
    const double r = rates == 0 ? fallback : std::min(0.95, worst + 0.05);
    const double want = pr_stop_followup * allowed;
    double g = 1;
    if (residual > want && want > 0) {
        g = std::ceil(std::log(want / residual) / std::log(r));
    }
    return static_cast<std::uint32_t>(std::clamp(g, 1.0, static_cast<double>(cap)));
}

/// A block's word in pr_block_args::meta (blocks + 1 words): its first vertex and its first adjacency
/// entry, so that a block task reads its range of vertices and of entries in two loads (words b, b + 1).
constexpr std::uint64_t pr_block_meta(vertex_id first, std::uint32_t entry) {
    return std::uint64_t{first} | std::uint64_t{entry} << 32;
}
/// An adjacency entry (pr_block_args::entries): the block it names and that block's need, so that a
/// notification reads both in one load.
constexpr std::uint64_t pr_block_entry(std::uint32_t block, std::uint32_t need) {
    return std::uint64_t{block} | std::uint64_t{need} << 32;
}

struct pr_block_args {
    csr_view in;                  // the transpose, in new ids (in.targets: sources)
    const edge_id* out_degree;    // new ids (graph structure, read as csr_view reads the CSR)
    const std::uint64_t* meta;    // pr_block_meta per block, and one past the last
    const std::uint64_t* entries; // pr_block_entry
    const std::uint32_t* need;    // read by the seeds only (a notified block's need is in its entry)
    rank_fixed* rank;
    // 2 n: a dense round's generation k writes share[(k & 1) n + v] and pulls the other half (a Jacobi
    // sweep); a sparse round reads and writes the first half (the latest shares: header comment).
    rank_fixed* share;
    std::uint32_t* done; // completions notified to each block this round (sparse rounds), zeroed by the host
    std::uint64_t* gen;  // per generation: change (units) << 24 | blocks counted; zeroed by the host
    std::uint64_t* meas; // per completed generation: its change in units; zeroed by the host
    std::uint32_t* stop; // the last generation to run; set by the host to the cap
    std::uint64_t d_fx;
    rank_fixed teleport;
    std::uint32_t active; // blocks with need != 0: what completes gen[k]'s count
    // Dense block graphs (pr_layout::dense): no notifications; generation k's last block spawns
    // generation k + 1 of blocks [0, active) (pr_block_range_task): a barrier, made of tasks.
    bool dense;
    std::uint32_t cap;     // the most generations a round runs
    std::uint64_t allowed; // the residual the target allows, in units of 2^24 ulps
};
struct pr_block_payload {
    std::uint32_t b, k; // block b's generation k (1 .. stop), pr_block_alone set when nothing notifies b
};
/// In pr_block_payload::k: a block nothing notifies (need 0) runs once a round, counted by no generation.
inline constexpr std::uint32_t pr_block_alone = std::uint32_t{1} << 31;
/// Notifications a lane of a block task makes itself; a block with more entries than F times this
/// hands them to notify tasks (each a piece of the adjacency: split_range).
inline constexpr std::uint32_t pr_notify_per_lane = 16;
struct pr_block_notify_payload {
    std::uint32_t lo, hi; // adjacency entries [lo, hi)
};
struct pr_block_seeds_payload {
    std::uint32_t lo, hi; // blocks [lo, hi)
};
struct pr_block_range_payload {
    std::uint32_t lo, hi, k; // blocks [lo, hi), generation k (a dense round's)
};

struct pr_block_task;
struct pr_block_notify_task;
struct pr_block_range_task;

/// Every lane of the sub-group: pulls the vertices [v0, v1), all with in-arcs, whose in-arcs are
/// consecutive. Lane l sums arcs [a0 + l s, a0 + (l + 1) s), s = ceil(A / F), each arc's src(u); a
/// vertex whose arcs span lanes gets the earlier lanes' part from a segmented scan (the element: the
/// lane's part of its last vertex, with bit 63 set when that vertex starts in the lane; sums stay below
/// 2^62). done(v, sum) runs once per vertex, on the lane holding its last arc, with its whole sum. One
/// collective, reached by every lane.
template <class Src, class Done>
CANOPY_DEVICE void pr_pull_arcs(const csr_view& in, vertex_id v0, vertex_id v1, Src&& src, Done&& done) {
    constexpr std::uint64_t starts = std::uint64_t{1} << 63;
    const unsigned F = subgroup_size();
    const edge_id a0 = in.begin(v0), a1 = in.begin(v1);
    const edge_id s = (a1 - a0 + F - 1) / F;
    const edge_id p0 = a0 + s * lane_id();
    const edge_id p1 = p0 + s < a1 ? p0 + s : a1;
    std::uint64_t element = starts; // an empty slice: a segment of its own, nothing in it
    // The vertex of arc p0 when it started in an earlier lane and ends in this slice: its earlier part
    // comes from the scan, and this lane's part is carried_part.
    bool carried_ends = false;
    vertex_id carried_v = 0;
    rank_fixed carried_part = 0;
    if (p0 < p1) {
        // The vertex of arc p0: the last v in [v0, v1) with begin(v) <= p0 (a binary search over the
        // graph's offsets).
        vertex_id lo = v0, hi = v1; // begin(lo) <= p0 < begin(hi)
        while (hi - lo > 1) {
            const vertex_id mid = lo + (hi - lo) / 2;
            (in.begin(mid) <= p0 ? lo : hi) = mid;
        }
        const bool carried = in.begin(lo) < p0;
        vertex_id v = lo;
        edge_id end = in.end(v);
        rank_fixed sum = 0;
        // v's part of this slice is complete at p == end (v's last arc was the one before) or at p1.
        const auto complete = [&] {
            if (carried && v == lo) {
                carried_ends = true;
                carried_v = v;
                carried_part = sum;
            } else {
                done(v, sum); // v started in this slice and ends in it
            }
        };
        for (edge_id p = p0; p < p1; ++p) {
            if (p == end) {
                complete();
                sum = 0;
                ++v;
                end = in.end(v);
            }
            sum += src(in.target(p));
        }
        if (end == p1) {
            complete();
        }
        // The scan's element: this lane's part of its last vertex, flagged when that vertex starts here.
        element = (in.begin(v) >= p0 ? starts : 0) | sum;
    }
    // The inclusive segmented sum of the lane before: its last vertex's arcs from that vertex's start.
    const std::uint64_t before =
        exclusive_scan(element, std::uint64_t{0}, [](std::uint64_t a, std::uint64_t b) {
            return (a & starts) | (b & starts) |
                   ((b & starts) != 0 ? b & ~starts : (a & ~starts) + (b & ~starts));
        });
    if (carried_ends) {
        done(carried_v, (before & ~starts) + carried_part);
    }
}

/// Counts one completion toward the entry's block; the count that completes a generation spawns the
/// next, up to the round's stop (read only then: one relaxed load per spawn, not per front).
template <class Ctx>
CANOPY_DEVICE void pr_block_notify_entry(Ctx& ctx, const pr_block_args& a, std::uint32_t e) {
    const std::uint64_t w = ld(&a.entries[e]);
    const std::uint32_t c = static_cast<std::uint32_t>(w), need = static_cast<std::uint32_t>(w >> 32);
    // Relaxed: a count, one modification order (header comment: what a pull reads needs no order).
    const std::uint32_t now =
        atomic_ref<std::uint32_t, scope::device>(a.done[c]).fetch_add(1, std::memory_order_relaxed) + 1;
    if (now % need == 0 && // need >= 1: this entry's block notifies
        now / need + 1 <= atomic_ref<std::uint32_t, scope::device>(*a.stop).load(std::memory_order_relaxed)) {
        ctx.template spawn<pr_block_task>(pr_block_payload{c, now / need + 1});
    }
}

/// Every lane of a cooperative front: notifies each lane's entries [lo, hi) together; a range longer
/// than together_max goes to notify tasks (each_together_or_split).
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

/// One lane, after its block's generation k: adds the block's change to gen[k]; the add that completes
/// the count sets meas[k] and, once the change one step of the measured rate ahead is small enough, the
/// round's stop (header comment). True when this add completed generation k.
CANOPY_DEVICE inline bool pr_block_count_generation(const pr_block_args& a, std::uint32_t k,
                                                    rank_fixed change) {
    using word_ref = atomic_ref<std::uint64_t, scope::device>;
    const std::uint64_t units = change >> pr_gen_count_bits;
    // Relaxed: the change and the count are one word, so the add that completes the count read every
    // earlier add (one modification order).
    const std::uint64_t word =
        word_ref(a.gen[k]).fetch_add(units << pr_gen_count_bits | 1, std::memory_order_relaxed) +
        (units << pr_gen_count_bits | 1);
    if ((word & pr_gen_count_mask) != a.active) {
        return false;
    }
    const std::uint64_t total = word >> pr_gen_count_bits; // generation k's change: x_{k-1}'s residual
    word_ref(a.meas[k]).store(total, std::memory_order_relaxed);
    // The generations before's, when their completers' stores are visible (relaxed: steering only; a
    // rate not known is taken as 1).
    std::uint64_t before[4] = {total, 0, 0, 0};
    for (unsigned b = 1; b < 4 && b < k; ++b) {
        before[b] = word_ref(a.meas[k - b]).load(std::memory_order_relaxed);
    }
    double rates[3];
    for (unsigned b = 0; b < 3; ++b) {
        rates[b] = before[b + 1] > before[b]
                       ? static_cast<double>(before[b]) / static_cast<double>(before[b + 1])
                       : 1.0;
    }
    // What the target allows, with a margin: a dense round's sweep is Jacobi's, whose next change is the
    // residual x_k leaves; a sparse round's generations are a mix, and what it leaves (the residual and
    // the mass still moving between blocks, which normalising costs) was up to 1.4x its last change
    // (copter2: a second round after a first that stopped at 0.9).
    const double want = (a.dense ? pr_stop_dense : pr_stop_sparse) * static_cast<double>(a.allowed);
    // Generation k + 1's change, about the residual x_k leaves, one step of the measured rate ahead: once
    // it is below what the target allows, generation k is the last a block is spawned for.
    if (static_cast<double>(total) * rates[0] <= want) {
        atomic_ref<std::uint32_t, scope::device>(*a.stop).fetch_min(k, std::memory_order_relaxed);
        return true;
    }
    // A sparse round's blocks run up to a few generations ahead of the last to complete one, so a stop
    // found one step ahead comes late (mdual: stop 12, blocks at 15 to 17). Further ahead, then, but only
    // near the end and pessimistically: the rate climbs while the fast-decaying part of the error dies out
    // (a mesh's from 0.2 to 0.8 over 24 sweeps) and an asynchronous one wobbles, and the generations a
    // stop refuses cannot be taken back. So: the largest of the last three rates plus 0.05, and only
    // when that predicts at most pr_stop_ahead generations more.
    if (!a.dense && before[3] != 0) {
        const double worst = rates[0] > rates[1] ? (rates[0] > rates[2] ? rates[0] : rates[2])
                                                 : (rates[1] > rates[2] ? rates[1] : rates[2]);
        const double r = worst + 0.05 < 0.99 ? worst + 0.05 : 0.99;
        unsigned g = 1;
        for (double c = static_cast<double>(total) * r * r; c > want && g <= pr_stop_ahead; c *= r) {
            ++g;
        }
        if (g <= pr_stop_ahead) {
            atomic_ref<std::uint32_t, scope::device>(*a.stop).fetch_min(k + g, std::memory_order_relaxed);
        }
    }
    return true;
}

/// Sub-group-cooperative (task_context.hpp), one block a front: the front's lanes pull the block's
/// vertices by slices of its in-arcs (pr_pull_arcs), store the new ranks and shares, count the
/// generation, then notify the blocks the block's out-arcs reach.
struct pr_block_task {
    using payload = pr_block_payload;
    static constexpr bool cooperative = true;
    static constexpr unsigned front_width = 1;
    pr_block_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        // A front holds one task: lane 0's (the valid lanes are the first).
        const std::uint64_t bk = broadcast(valid ? std::uint64_t{x.b} | std::uint64_t{x.k} << 32 : 0, 0);
        if (!broadcast(valid, 0)) {
            return;
        }
        const std::uint32_t b = static_cast<std::uint32_t>(bk), k = static_cast<std::uint32_t>(bk >> 32);
        // Every lane reads both words (two loads in parallel, no collective to share them).
        const std::uint64_t m0 = ld(&a.meta[b]), m1 = ld(&a.meta[b + 1]);
        const vertex_id v0 = static_cast<vertex_id>(m0), v1 = static_cast<vertex_id>(m1);
        using word_ref = atomic_ref<rank_fixed, scope::device>;
        // A dense round's generation k writes the half of its parity and pulls the other, the generation
        // before's (a Jacobi sweep); a sparse round's the first half, the latest (header comment).
        const std::size_t n = a.in.num_vertices;
        const std::size_t mine = a.dense && (k & 1) != 0 ? n : 0, theirs = a.dense && (k & 1) == 0 ? n : 0;
        rank_fixed change = 0; // this lane's part of the block's L1 change
        const auto store = [&](vertex_id v, rank_fixed sum) {
            const rank_fixed y = a.teleport + sum;
            // Relaxed (header comment); the exchange returns the rank this one replaces.
            const rank_fixed old = word_ref(a.rank[v]).exchange(y, std::memory_order_relaxed);
            change += y > old ? y - old : old - y;
            const edge_id deg = a.out_degree[v];
            word_ref(a.share[mine + v])
                .store(deg == 0 ? 0 : push_share(y, a.d_fx, deg), std::memory_order_relaxed);
        };
        if (a.in.begin(v0) == a.in.begin(v1)) { // no in-arcs: the teleport term, a lane a vertex
            for (vertex_id v = v0 + lane_id(); v < v1; v += subgroup_size()) {
                store(v, 0);
            }
        } else {
            pr_pull_arcs(
                a.in, v0, v1,
                [&](vertex_id u) {
                    // Relaxed: any recent share will do (header comment); the graph itself is read-only.
                    return word_ref(a.share[theirs + u]).load(std::memory_order_relaxed);
                },
                store);
        }
        if ((k & pr_block_alone) != 0) {
            return; // nothing notifies this block: it runs once a round, counted by no generation
        }
        // The block's change: the last lane's inclusive sum counts the generation.
        const rank_fixed total = exclusive_sum(change) + change;
        if (lane_id() == subgroup_size() - 1 && pr_block_count_generation(a, k, total) && a.dense &&
            k + 1 <= atomic_ref<std::uint32_t, scope::device>(*a.stop).load(std::memory_order_relaxed)) {
            // A dense round: the generation's last block spawns the next, every block of it, in pieces
            // (split_range) of one front each, so that the sub-groups the pieces are shared to spawn
            // the blocks and not this one alone.
            split_range(0u, a.active, [&](std::uint32_t pb, std::uint32_t pe) {
                ctx.template spawn<pr_block_range_task>(pr_block_range_payload{pb, pe, k + 1});
            });
        }
        if (a.dense) {
            return;
        }
        // The notifications, a lane per entry; a block with more entries hands them to notify tasks.
        const std::uint32_t lo = static_cast<std::uint32_t>(m0 >> 32),
                            hi = static_cast<std::uint32_t>(m1 >> 32);
        if (hi - lo > subgroup_size() * pr_notify_per_lane) {
            if (lane_id() == 0) {
                split_range(lo, hi, [&](std::uint32_t pb, std::uint32_t pe) {
                    ctx.template spawn<pr_block_notify_task>(pr_block_notify_payload{pb, pe});
                });
            }
            return;
        }
        for (std::uint32_t e = lo + lane_id(); e < hi; e += subgroup_size()) {
            pr_block_notify_entry(ctx, a, e);
        }
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

/// A dense round's next generation: blocks [lo, hi), a front a piece (front_width 1), split further
/// while a piece is longer than fan_out.
struct pr_block_range_task {
    using payload = pr_block_range_payload;
    static constexpr unsigned front_width = 1;
    pr_block_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        each_or_split(
            x.lo, x.hi,
            [&](std::uint32_t b) {
                ctx.template spawn<pr_block_task>(pr_block_payload{b, x.k});
            },
            [&](std::uint32_t b, std::uint32_t e) {
                ctx.template spawn<pr_block_range_task>(pr_block_range_payload{b, e, x.k});
            });
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
                const std::uint32_t alone = ld(&a.need[b]) == 0 ? pr_block_alone : 0u;
                ctx.template spawn<pr_block_task>(pr_block_payload{b, 1u | alone});
            },
            [&](std::uint32_t b, std::uint32_t e) {
                ctx.template spawn<pr_block_seeds_task>(pr_block_seeds_payload{b, e});
            });
    }
};

/// After a round: r_v = T~(x)_v - x_v from x itself (header comment), and sums[0] += |r_v|, sums[1] +=
/// x_v, share[v] = push_share(x_v) (the next round's pulls start from shares that match x). A sub-group
/// a block at a time (blocks sg, sg + S, ...), its lanes by slices of the block's arcs (pr_pull_arcs), so
/// that a hub's in-list is not one lane's. Relaxed, device scope: integer sums read after the kernel; x
/// and the graph are only read here, share only written.
struct pr_block_measure_kernel {
    csr_view in;
    const edge_id* out_degree;
    const std::uint64_t* meta; // pr_block_meta
    std::uint32_t blocks;
    const rank_fixed* rank;
    rank_fixed* share;
    rank_fixed* sums; // zeroed by the host
    std::uint64_t d_fx;
    rank_fixed teleport;
    CANOPY_DEVICE void operator()() const {
        const unsigned F = subgroup_size();
        const unsigned per_block = subgroups_per_block();
        const unsigned sg = block_id() * per_block + thread_id() / F;
        const unsigned sgs = grid_dim() * per_block;
        rank_fixed r = 0, s = 0;
        const auto finish = [&](vertex_id v, rank_fixed sum) {
            // The last round's launch has ended: plain loads see every task's stores.
            const rank_fixed y = teleport + sum;
            const rank_fixed x = ld(&rank[v]);
            r += y > x ? y - x : x - y;
            s += x;
            const edge_id deg = out_degree[v];
            st(&share[v], deg == 0 ? 0 : push_share(x, d_fx, deg));
        };
        for (unsigned b = sg; b < blocks; b += sgs) { // uniform across the sub-group's lanes
            const vertex_id v0 = static_cast<vertex_id>(ld(&meta[b])),
                            v1 = static_cast<vertex_id>(ld(&meta[b + 1]));
            if (in.begin(v0) == in.begin(v1)) {
                for (vertex_id v = v0 + lane_id(); v < v1; v += F) {
                    finish(v, 0);
                }
                continue;
            }
            pr_pull_arcs(
                in, v0, v1, [&](vertex_id u) { return push_share(ld(&rank[u]), d_fx, out_degree[u]); },
                finish);
        }
        using sum_ref = atomic_ref<rank_fixed, scope::device>;
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
