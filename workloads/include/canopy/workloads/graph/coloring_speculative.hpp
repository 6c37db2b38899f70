// canopy/workloads/graph/coloring_speculative.hpp — speculative greedy colouring as tasks (Gebremedhin
// and Manne's, run the way Atos runs it: assignment and conflict detection in one queue, no barrier
// between the phases), over platform/ only. The graph must be symmetric; self-loops are ignored.
//
// One task type does both phases for its vertex v:
//   1. clear v's queued flag;
//   2. assign: the smallest colour no neighbour has *now* (first fit over the neighbours' current
//      colours, 64 candidates per pass), stored to color[v];
//   3. a sequentially consistent fence at device scope;
//   4. detect: every neighbour w holding v's colour is a conflict; the later of the two in sc_keeps's
//      strict total order (the larger degree first, then coloring_order.hpp's priority) recolours: v
//      spawns the loser's task (itself or w) unless the loser's queued flag says one is queued already;
//      past fan_out - 1 losers in one task (a hub), v recolours itself instead (bounded spawns).
// The seeds are every vertex, dealt in a stride order (i * stride mod V, stride coprime to V) so that a
// front's vertices are spread over the graph (on a mesh, consecutive ids are neighbours, and a front of
// them coloured at once would conflict on most of its lanes); a seed range's lane does steps 2-4 for
// its vertices itself, so only re-colourings go through the queues as vertex tasks.
//
// Why the result is a proper colouring at quiescence (the runtime's exact termination). Take an edge
// {u, v} and each end's last assignment (its last store to color[]), each followed in its task by the
// fence and the detection loads. The two seq_cst fences are ordered; the task whose fence comes later
// reads the other's last store (a store sequenced before a seq_cst fence that precedes, in that order,
// a fence sequenced before a load: the load sees that store or a later one, and there is no later
// one). So if the final colours were equal, that task saw the conflict and made one end recolour:
// either it spawned a task (whose assignment comes after: not the last, a contradiction), or the
// loser's flag was set by a queued task that had not cleared it. That task clears the flag (acquire)
// after the detector set it (release, after its colour loads), so its assignment follows the
// detector's load of the loser's colour, and is a later store than the one the detector read:
// again not the last. Hence no edge ends with equal colours. The fences are what make detection
// symmetric: without them (store buffering) both ends may read each other's old colour and keep a
// conflict.
//
// Memory orders and scopes, and why (device scope throughout: any work-group colours any vertex):
// - color[]: relaxed loads and stores; the proof above needs only the seq_cst fences' order, and the
//   first fit's reads are a heuristic (a stale colour costs a conflict, detected).
// - queued[]: a release exchange to set (the detector, after its loads), an acquire exchange to clear
//   (the task, before its assignment): the message passing of the proof.
// - Results: the host reads the colours after the launch.
#pragma once

#include <cstdint>

#include "canopy/platform/platform.hpp"
#include "canopy/workloads/graph/coloring_order.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

namespace detail {

struct sc_args {
    csr_view g;
    std::uint32_t* color;
    unsigned* queued; // 1 while a task for the vertex is queued and has not started
    vertex_id stride; // the seeds' order: vertex i * stride mod V (coprime to V)
};
struct sc_vertex_payload {
    vertex_id v;
};
struct sc_seeds_payload {
    vertex_id lo, hi; // seed indices [lo, hi)
};

struct sc_vertex_task;

/// Of two clashing vertices, true when w keeps its colour and v recolours: the larger degree keeps it
/// (ties: coloring_order.hpp's priority), a strict total order. Hubs keep their colours and the many
/// small vertices around them move, as largest-degree-first greedy colours hubs first (Kronecker 12:
/// 63 colours by priority alone, 60 so, 40 by largest-degree-first greedy; docs/graph-experiment.md).
CANOPY_DEVICE inline bool sc_keeps(const csr_view& g, vertex_id w, vertex_id v) {
    return ldf_before(g.degree(w), w, g.degree(v), v);
}

/// The smallest colour none of v's neighbours holds at the moment of reading, 64 candidates per pass.
CANOPY_DEVICE inline std::uint32_t sc_first_fit(const sc_args& a, vertex_id v) {
    const edge_id lo = a.g.begin(v), hi = a.g.end(v);
    for (std::uint32_t base = 0;; base += 64) {
        std::uint64_t used = 0;
        for (edge_id e = lo; e < hi; ++e) {
            const vertex_id w = a.g.target(e);
            if (w == v) {
                continue;
            }
            // Relaxed: a heuristic read (a stale colour costs a conflict, which detection finds).
            const std::uint32_t c =
                atomic_ref<std::uint32_t, scope::device>(a.color[w]).load(std::memory_order_relaxed);
            if (c != no_color && c >= base && c - base < 64) {
                used |= std::uint64_t{1} << (c - base);
            }
        }
        if (used != ~std::uint64_t{0}) {
            unsigned b = 0;
            while ((used >> b) & 1u) {
                ++b;
            }
            return base + b;
        }
    }
}

/// Queues w's task unless one is queued already. Release: the caller's colour loads come before.
template <class Ctx> CANOPY_DEVICE void sc_requeue(Ctx& ctx, const sc_args& a, vertex_id w) {
    if (atomic_ref<unsigned, scope::device>(a.queued[w]).exchange(1u, std::memory_order_release) == 0) {
        ctx.template spawn<sc_vertex_task>(sc_vertex_payload{w});
    }
}

/// Steps 2-4 for v: assign, fence, detect (the seeds run it inline, a task after clearing its flag).
template <class Ctx> CANOPY_DEVICE void sc_assign_and_detect(Ctx& ctx, const sc_args& a, vertex_id v) {
    const std::uint32_t mine = sc_first_fit(a, v);
    atomic_ref<std::uint32_t, scope::device>(a.color[v]).store(mine, std::memory_order_relaxed);
    // The store before every detection load below, in the one order of all seq_cst fences: of two
    // adjacent vertices' last assignments, the later fence's loads see the other's colour.
    fence<scope::device>(std::memory_order_seq_cst);
    bool again = false;
    unsigned requeued = 0;
    for (edge_id e = a.g.begin(v); e < a.g.end(v) && !again; ++e) {
        const vertex_id w = a.g.target(e);
        if (w == v ||
            atomic_ref<std::uint32_t, scope::device>(a.color[w]).load(std::memory_order_relaxed) != mine) {
            continue;
        }
        if (sc_keeps(a.g, w, v) || requeued + 1 >= fan_out) {
            // v recolours (once, after the loop): v is the later, or v would re-queue more losers
            // than a lane may spawn (a hub that many neighbours clashed with): the proof needs only
            // that one end of each clash be assigned again, and v's first fit then avoids them all.
            again = true;
        } else {
            sc_requeue(ctx, a, w);
            ++requeued;
        }
    }
    if (again) {
        sc_requeue(ctx, a, v);
    }
}

struct sc_vertex_task {
    using payload = sc_vertex_payload;
    sc_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        // Acquire: pairs with the release of whoever queued this task (header comment's proof).
        atomic_ref<unsigned, scope::device>(a.queued[x.v]).exchange(0u, std::memory_order_acquire);
        sc_assign_and_detect(ctx, a, x.v);
    }
};

/// The seeds: every vertex once, in the stride order, split like a range.
struct sc_seeds_task {
    using payload = sc_seeds_payload;
    sc_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        each_or_split(
            x.lo, x.hi,
            [&](vertex_id i) {
                const vertex_id v = static_cast<vertex_id>(static_cast<std::uint64_t>(i) * a.stride %
                                                           static_cast<std::uint64_t>(a.g.num_vertices));
                // The first assignment inline, not through a queued task: every vertex needs one, and
                // the proof asks only that each assignment be followed by the fence and detection.
                sc_assign_and_detect(ctx, a, v);
            },
            [&](vertex_id b, vertex_id e) {
                ctx.template spawn<sc_seeds_task>(sc_seeds_payload{b, e});
            });
    }
};

/// A stride coprime to n near n times the golden ratio's fraction (1 for n <= 2): consecutive seeds
/// land far apart.
inline vertex_id coprime_stride(vertex_id n) {
    if (n <= 2) {
        return 1;
    }
    const auto gcd = [](std::uint64_t x, std::uint64_t y) {
        while (y != 0) {
            const std::uint64_t t = x % y;
            x = y;
            y = t;
        }
        return x;
    };
    std::uint64_t s = static_cast<std::uint64_t>(static_cast<double>(n) * 0.6180339887) | 1u;
    while (gcd(s, n) != 1) {
        s += 2;
    }
    return static_cast<vertex_id>(s % n == 0 ? 1 : s % n);
}

} // namespace detail

} // namespace canopy::workloads::graph
