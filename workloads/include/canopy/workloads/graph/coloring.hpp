// canopy/workloads/graph/coloring.hpp — graph colouring in the three strategies of strategies.hpp, over
// platform/ only. The graph must be symmetric (every arc's reverse present, as often as the arc):
// colouring is about edges, and a vertex sees only its out-arcs. Self-loops are ignored. Colours are
// 0-based; the priority order is coloring_order.hpp's (a strict total order).
//
//   multi-kernel  Jones-Plassmann, Pannotia's max-based colouring: in iteration k every uncoloured
//                 vertex that comes before all its uncoloured neighbours takes colour k. One kernel per
//                 iteration over all vertices; the host reads back how many were coloured (the stop
//                 flag: the remaining count reaches 0). launches == iterations == colours.
//   persistent    the same iterations in one launch, an XF barrier after each: barriers == iterations.
//   tasks         greedy colouring in largest-degree-first order (coloring_order.hpp's ldf_before) as
//                 a dependency-counting DAG (Atos' variant): a counting kernel gives each vertex its
//                 number of higher-priority neighbours and reorders its list, those first (launches ==
//                 2); vertices with none are the seeds; a vertex task colours its vertex with the
//                 smallest colour no higher-priority neighbour has (all of them are coloured by then),
//                 then decrements the counter of each lower-priority neighbour; a neighbour whose
//                 counter reaches 0 runs next in the same lane while the lane has walked fewer than
//                 gc_inline_arcs arcs, else it is spawned. The result is the sequential greedy colouring
//                 in that order, exactly (reference_greedy_color), whatever runs where.
//
// The race-free Jones-Plassmann rule. Within iteration k colours are being written while neighbours
// read them. A vertex w is a competitor of v in iteration k when w was uncoloured at the iteration's
// start; a lane reads either no_color (not written yet) or k (coloured in this very iteration) for such
// a w, and must count both as competitors. If it ignored colour k, two adjacent vertices u before v
// could both take k: u reads v uncoloured and colours itself; then v reads u == k, ignores it, and
// finds itself the maximum. With the rule the decision depends only on the iteration's starting
// state, so the result equals the sequential simulation (reference_jones_plassmann) exactly, whatever
// the interleaving. A colour < k was written in an earlier iteration: not a competitor.
//
// Memory orders and scopes, and why:
// - Colours (multi-kernel, persistent): relaxed device-scope atomic loads and stores. They are read
//   concurrently with their one write, but both values a reader can see lead to the same decision
//   (above), so no ordering is needed; device scope because any work-group reads any vertex.
// - The coloured count: relaxed device-scope fetch_add (one per work-item); read after the kernel
//   boundary or the XF barrier (device-scope release/acquire).
// - Counters (tasks): acq_rel device-scope fetch_sub. A task writes its colour (plain st), then
//   decrements each lower neighbour's counter (release). The decrement that reaches 0 acquires; the
//   decrements of one counter form one read-modify-write chain, so each earlier decrement's release
//   sequence contains the last one: every higher-priority neighbour's colour write happens-before the
//   last decrement, which spawns the task, which the runtime's queues hand off release/acquire
//   (docs/scopes.md), or runs it next in its own lane (program order after the acquire). So the
//   task's plain ld of those colours is race-free and sees them: the colours are message-passed
//   through the counter. Counters, higher[] and the reordered lists are written by the counting
//   kernel with plain stores, ordered before the runtime launch by the kernel boundary.
// - Results: the host reads the colours after the launch(es) have finished.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"
#include "canopy/workloads/graph/coloring_order.hpp"
#include "canopy/workloads/graph/coloring_speculative.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

namespace detail {

/// Jones-Plassmann for vertex v in iteration k: colours v with k and returns true when v is uncoloured
/// and comes before every neighbour that was uncoloured when the iteration started.
CANOPY_DEVICE inline bool jp_try(const csr_view& g, std::uint32_t* color, vertex_id v, std::uint32_t k) {
    // Relaxed, device scope: see the header comment (either value read decides the same).
    if (atomic_ref<std::uint32_t, scope::device>(color[v]).load(std::memory_order_relaxed) != no_color) {
        return false;
    }
    const edge_id end = g.end(v);
    for (edge_id e = g.begin(v); e < end; ++e) {
        const vertex_id w = g.target(e);
        if (w == v || !color_before(w, v)) {
            continue; // a self-loop, or a neighbour v beats anyway
        }
        const std::uint32_t c =
            atomic_ref<std::uint32_t, scope::device>(color[w]).load(std::memory_order_relaxed);
        if (c == no_color || c == k) {
            return false; // a competitor: uncoloured at the start of iteration k
        }
    }
    atomic_ref<std::uint32_t, scope::device>(color[v]).store(k, std::memory_order_relaxed);
    return true;
}

struct jp_kernel {
    csr_view g;
    std::uint32_t* color;
    unsigned* count;
    std::uint32_t k;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        unsigned mine = 0;
        for (unsigned v = global_id(); v < g.num_vertices; v += stride) {
            mine += jp_try(g, color, v, k) ? 1u : 0u;
        }
        if (mine != 0) {
            atomic_ref<unsigned, scope::device>(*count).fetch_add(mine, std::memory_order_relaxed);
        }
    }
};

struct jp_persistent {
    csr_view g;
    std::uint32_t* color;
    unsigned* counts;     // 3 rotating counts: iteration k adds to counts[k % 3]
    unsigned* iterations; // written once at the end by participant 0
    sync::xf_barrier barrier;
    CANOPY_DEVICE void operator()() const {
        unsigned remaining = g.num_vertices;
        for (std::uint32_t k = 0;; ++k) {
            if (sync::p_global_id() == 0) {
                // counts[(k + 1) % 3] was last read after iteration k - 2's barrier and is next added to
                // in iteration k + 1: the barriers on either side order this reset.
                atomic_ref<unsigned, scope::device>(counts[(k + 1) % 3]).store(0, std::memory_order_relaxed);
            }
            unsigned mine = 0;
            for (unsigned v = sync::p_global_id(); v < g.num_vertices; v += sync::p_global_size()) {
                mine += jp_try(g, color, v, k) ? 1u : 0u;
            }
            if (mine != 0) {
                atomic_ref<unsigned, scope::device>(counts[k % 3]).fetch_add(mine, std::memory_order_relaxed);
            }
            barrier.wait(); // the iteration's colours and count, released and acquired at device scope
            const unsigned n =
                atomic_ref<unsigned, scope::device>(counts[k % 3]).load(std::memory_order_relaxed);
            // n == 0 cannot happen while vertices remain (the first uncoloured vertex in priority
            // order always colours); stop anyway rather than spin.
            remaining = n < remaining ? remaining - n : 0;
            if (remaining == 0 || n == 0) {
                if (sync::p_global_id() == 0) {
                    st(iterations, k + 1); // read by the host after the kernel
                }
                return; // every participant read the same counts: a uniform exit
            }
        }
    }
};

// ---- tasks ----

/// The tasks' order on the device: ldf_before (coloring_order.hpp) on the vertices' degrees.
CANOPY_DEVICE inline bool gc_before(const csr_view& g, vertex_id u, vertex_id v) {
    return ldf_before(g.degree(u), u, g.degree(v), v);
}

/// The arcs a lane walks before it stops running released vertices itself (gc_chain). A vertex released
/// by a decrement runs in the lane that released it, instead of through the queues, while the lane has
/// walked fewer arcs than this: a trip through the queues costs about the same whatever the vertex, and
/// running a vertex delays the front's other children by its arcs, so small vertices chain and large
/// ones do not. Measured (timed hrf32, cycles, 4elt / copter2 / mdual): spawning every one 186 K / 463 K
/// / 370 K; 8 arcs 188 K / 463 K / 300 K; 16 arcs 196 K / 530 K / 286 K; 2 vertices whatever their arcs
/// 192 K / 548 K / 299 K.
inline constexpr edge_id gc_inline_arcs = 8;

/// What a lane of the DAG colouring stages at most: a seed range's lane chains fewer than fan_out arcs
/// before its last vertex (at most one task each), whose release stages at most fan_out tasks or
/// pieces, and spawns at most fan_out seeds. (A vertex task: fewer than gc_inline_arcs, then fan_out.)
inline constexpr unsigned gc_staging = 3 * fan_out;

struct gc_args {
    csr_view g;             // targets reordered: each list's higher-priority neighbours first
    const unsigned* higher; // v's higher-priority neighbours: the first higher[v] arcs of its list
    std::uint32_t* color;
    unsigned* counter; // higher-priority neighbours not yet coloured
};
struct gc_vertex_payload {
    vertex_id v;
};
struct gc_range_payload {
    edge_id lo, hi; // arcs [lo, hi) of v
    vertex_id v;
};
struct gc_seeds_payload {
    vertex_id lo, hi; // vertices [lo, hi)
};

/// Counts every vertex's higher-priority neighbours and writes its list reordered, those first (the
/// rest, self-loops included, after): no task compares priorities (a degree load per neighbour), and a
/// seed is a vertex with higher[v] == 0.
struct gc_count_kernel {
    csr_view g;
    vertex_id* ordered; // g's targets, each list reordered
    unsigned* higher;
    unsigned* counter;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        for (unsigned v = global_id(); v < g.num_vertices; v += stride) {
            unsigned n = 0;
            for (edge_id e = g.begin(v); e < g.end(v); ++e) {
                const vertex_id w = g.target(e);
                n += w != v && gc_before(g, w, v) ? 1u : 0u;
            }
            edge_id up = g.begin(v), down = g.begin(v) + n;
            for (edge_id e = g.begin(v); e < g.end(v); ++e) {
                const vertex_id w = g.target(e);
                st(&ordered[w != v && gc_before(g, w, v) ? up++ : down++], w);
            }
            // Read by the runtime launch, after the kernel boundary.
            st(&counter[v], n);
            st(&higher[v], n);
        }
    }
};

struct gc_vertex_task;
struct gc_range_task;

/// Decrements the counters of v's lower-priority neighbours along arcs [lo, hi) (the reordered list's
/// tail: all lower, or v itself), spawning each one that reaches 0, except the first when `next` asks
/// for it (gc_chain runs it here); a range longer than fan_out is split into at most fan_out range tasks.
template <class Ctx>
CANOPY_DEVICE void gc_release(Ctx& ctx, const gc_args& a, vertex_id v, edge_id lo, edge_id hi,
                              vertex_id* next = nullptr) {
    each_or_split(
        lo, hi,
        [&](edge_id e) {
            const vertex_id w = a.g.target(e);
            if (w == v) {
                return;
            }
            // acq_rel: releases v's colour to w's task, acquires the other neighbours' (header comment).
            if (atomic_ref<unsigned, scope::device>(a.counter[w]).fetch_sub(1u, std::memory_order_acq_rel) ==
                1) {
                if (next != nullptr && *next == no_vertex) {
                    *next = w; // runs in this lane, after this acquire: as a spawned task after its pick
                } else {
                    ctx.template spawn<gc_vertex_task>(gc_vertex_payload{w});
                }
            }
        },
        [&](edge_id b, edge_id e) {
            ctx.template spawn<gc_range_task>(gc_range_payload{b, e, v});
        });
}

/// A piece of a long adjacency list, split off by gc_release.
struct gc_range_task {
    using payload = gc_range_payload;
    gc_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        gc_release(ctx, a, x.v, x.lo, x.hi);
    }
};

/// Colours v, then each vertex its release hands back, while the lane has walked fewer than `budget`
/// arcs (`walked` counts them, across calls: a seed range's lane shares one budget). v is coloured
/// with the smallest colour no higher-priority neighbour has (64 candidates per pass; all of them are
/// coloured: their decrements brought v here), then releases its lower-priority neighbours.
template <class Ctx>
CANOPY_DEVICE void gc_chain(Ctx& ctx, const gc_args& a, vertex_id v, edge_id& walked, edge_id budget) {
    for (;;) {
        const edge_id lo = a.g.begin(v), hi = a.g.end(v), mid = lo + ld(&a.higher[v]);
        std::uint32_t chosen = 0;
        for (std::uint32_t base = 0;; base += 64) {
            std::uint64_t used = 0;
            for (edge_id e = lo; e < mid; ++e) {
                const std::uint32_t c = ld(&a.color[a.g.target(e)]); // message-passed by the decrement
                if (c >= base && c - base < 64) {
                    used |= std::uint64_t{1} << (c - base);
                }
            }
            if (used != ~std::uint64_t{0}) {
                unsigned b = 0;
                while ((used >> b) & 1u) {
                    ++b;
                }
                chosen = base + b;
                break;
            }
        }
        st(&a.color[v], chosen); // released by the decrements below
        walked += hi - lo;
        vertex_id next = no_vertex;
        gc_release(ctx, a, v, mid, hi, walked < budget ? &next : nullptr);
        if (next == no_vertex) {
            return;
        }
        v = next;
    }
}

struct gc_vertex_task {
    using payload = gc_vertex_payload;
    gc_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        edge_id walked = 0;
        gc_chain(ctx, a, x.v, walked, gc_inline_arcs);
    }
};

/// The seeds: the vertices with no higher-priority neighbour (higher[], not the counters, which running
/// tasks may already be decrementing), split like a range. A lane colours its seeds itself (a seed
/// reads no colour) while it has walked fewer than fan_out arcs, and spawns the rest.
struct gc_seeds_task {
    using payload = gc_seeds_payload;
    gc_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        edge_id walked = 0;
        each_or_split(
            x.lo, x.hi,
            [&](vertex_id v) {
                if (ld(&a.higher[v]) != 0) {
                    return;
                }
                if (walked < fan_out) {
                    gc_chain(ctx, a, v, walked, fan_out);
                } else {
                    ctx.template spawn<gc_vertex_task>(gc_vertex_payload{v});
                }
            },
            [&](vertex_id b, vertex_id e) {
                ctx.template spawn<gc_seeds_task>(gc_seeds_payload{b, e});
            });
    }
};

inline launch_config grid_for(unsigned resident, vertex_id n, unsigned block) {
    const unsigned want = (n + block - 1) / block;
    launch_config c;
    c.block = block;
    c.grid = resident != 0 && want > resident ? resident : want;
    return c;
}

inline run_result<std::uint32_t> color_multi_kernel(const csr_view& g, const run_options& o) {
    run_result<std::uint32_t> r;
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<std::uint32_t> color(std::vector<std::uint32_t>(g.num_vertices, no_color));
    device_buffer<unsigned> count(1);
    const launch_config cfg = grid_for(max_resident_blocks<jp_kernel>(o.block), g.num_vertices, o.block);
    kernel_timer t;
    for (unsigned remaining = g.num_vertices, k = 0; remaining != 0; ++k) {
        count.fill_zero();
        timed_launch(&t, [&] { launch(cfg, jp_kernel{g, color.data(), count.data(), k}); });
        ++r.launches;
        ++r.iterations;
        unsigned n = 0;
        count.download(&n, 1); // the stop flag: the remaining count
        if (n == 0) {
            throw error("canopy graph: Jones-Plassmann coloured no vertex in an iteration (a bug)");
        }
        remaining -= n < remaining ? n : remaining;
    }
    r.labels = color.to_vector();
    r.stop_clocks(t0, t);
    return r;
}

inline run_result<std::uint32_t> color_persistent(const csr_view& g, const run_options& o) {
    run_result<std::uint32_t> r;
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<std::uint32_t> color(std::vector<std::uint32_t>(g.num_vertices, no_color));
    device_buffer<unsigned> counts(3);
    counts.fill_zero();
    device_buffer<unsigned> iterations(1);
    iterations.fill_zero();
    kernel_timer t;
    r.workgroups = launch_persistent_phases<jp_persistent>(
        o.block,
        [&](sync::xf_barrier barrier) {
            return jp_persistent{g, color.data(), counts.data(), iterations.data(), barrier};
        },
        &t);
    r.launches = 1;
    unsigned its = 0;
    iterations.download(&its, 1);
    r.iterations = its;
    r.barriers = its;
    r.labels = color.to_vector();
    r.stop_clocks(t0, t);
    return r;
}

/// The speculative colouring spawns at most fan_out tasks per lane (a split range, or the losers a
/// task re-queues).
inline void check_color_staging(const run_options& o) {
    check_tasks_staging(o, fan_out, "the tasks strategy needs");
}

inline run_result<std::uint32_t> color_tasks(const csr_view& g, const run_options& o) {
    run_result<std::uint32_t> r;
    check_tasks_staging(o, gc_staging, "the DAG colouring's tasks need");
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<std::uint32_t> color(std::vector<std::uint32_t>(g.num_vertices, no_color));
    device_buffer<unsigned> counter(g.num_vertices);
    device_buffer<unsigned> higher(g.num_vertices);
    device_buffer<vertex_id> ordered(g.num_edges);
    kernel_timer t; // the counting kernel and the runtime's: the span holds the runtime's set-up between
    timed_launch(&t, [&] {
        launch(grid_for(max_resident_blocks<gc_count_kernel>(o.block), g.num_vertices, o.block),
               gc_count_kernel{g, ordered.data(), higher.data(), counter.data()});
    });
    csr_view og = g;
    og.targets = ordered.data();
    const gc_args a{og, higher.data(), color.data(), counter.data()};
    runtime::config c = o.tasks;
    c.block = o.block;
    runtime::task_set<gc_vertex_task, gc_range_task, gc_seeds_task> ts{gc_vertex_task{a}, gc_range_task{a},
                                                                       gc_seeds_task{a}};
    seed_vertex_ranges<gc_seeds_task>(ts, g.num_vertices, c);
    r.one_round(ts.run(c, &t), 2); // the counting kernel and the runtime launch
    r.labels = color.to_vector();
    r.stop_clocks(t0, t);
    return r;
}

/// Speculative greedy (coloring_speculative.hpp): one runtime launch, every vertex seeded.
inline run_result<std::uint32_t> color_tasks_speculative(const csr_view& g, const run_options& o) {
    run_result<std::uint32_t> r;
    check_color_staging(o);
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<std::uint32_t> color(std::vector<std::uint32_t>(g.num_vertices, no_color));
    device_buffer<unsigned> queued(g.num_vertices);
    queued.fill_zero();
    const sc_args a{g, color.data(), queued.data(), coprime_stride(g.num_vertices)};
    runtime::config c = o.tasks;
    c.block = o.block;
    runtime::task_set<sc_vertex_task, sc_seeds_task> ts{sc_vertex_task{a}, sc_seeds_task{a}};
    seed_vertex_ranges<sc_seeds_task>(ts, g.num_vertices, c);
    kernel_timer t;
    r.one_round(ts.run(c, &t));
    r.labels = color.to_vector();
    r.stop_clocks(t0, t);
    return r;
}

} // namespace detail

/// Colours the symmetric graph `g` (a view of device memory: device_graph) with strategy o.how; labels
/// are the colours (0-based).
inline run_result<std::uint32_t> run_color(const csr_view& g, const run_options& o = {}) {
    if (g.num_vertices == 0) {
        return {};
    }
    switch (o.how) {
    case strategy::multi_kernel: return detail::color_multi_kernel(g, o);
    case strategy::persistent: return detail::color_persistent(g, o);
    case strategy::tasks:
        return o.color_speculative ? detail::color_tasks_speculative(g, o) : detail::color_tasks(g, o);
    }
    throw error("canopy graph: unknown strategy");
}

} // namespace canopy::workloads::graph
