// canopy/workloads/graph/pagerank.hpp — push-based PageRank in the three strategies of strategies.hpp,
// in 64-bit fixed point (pagerank_fixed.hpp: 1.0 == 2^60), over platform/ only.
//
// The PageRank vector x* of damping d (quantized: damping_quantized) is the fixed point of
//   F(x)_v = (1 - d) / V + d * sum over arcs u->v of x_u / deg(u) + d * D(x) / V,
// D(x) = the rank of the dangling vertices (no out-arc), spread uniformly. sum(x*) = 1.
//
//   multi-kernel  Jacobi power iteration: per iteration a push kernel (every vertex u adds
//                 push_share(rank[u]) = floor(floor(d * rank[u]) / deg(u)) to acc[v] for each out-arc
//                 u->v; a dangling u adds floor(d * rank[u]) to the dangling sum) and an update kernel
//                 (rank[v] = teleport + acc[v] + floor(dangling / V), acc[v] = 0, |change| summed); the
//                 host reads the L1 change back: the stop flag. launches = 2 * iterations.
//   persistent    the same two phases in one launch, an XF barrier after each: barriers = 2 * iterations.
//   tasks         asynchronous residual push (push-based Gauss-Seidel, Atos style; below).
//
// Stopping (multi-kernel, persistent): tolerance 0: exactly `iterations` iterations; tolerance > 0:
// stop after the first iteration whose L1 change is <= tolerance, or after `iterations` iterations.
// The integer sums make both strategies bit-identical to reference_pagerank_fixed
// (pagerank_reference.hpp), which also states their error bound against x*.
//
// Tasks. Residual push solves y = (1 - d) / V + d P y with P's dangling columns left zero (a dangling
// vertex absorbs its residual); x* = y / |y|_1 (x* = c y for the scalar c = (1 - d + d D(x*)) / (1 - d),
// which the uniform dangling term and sum(x*) = 1 fix), so the host divides the ranks by their sum.
// State: rank p = 0 and residual r = teleport_share everywhere; a vertex task takes its residual
// (exchange 0), adds it to p[v] and pushes push_share(taken) to each out-neighbour's residual
// (fetch_add); a push that lifts a residual from below epsilon to at least epsilon spawns that
// vertex's task (the pending flag keeps one queued task per vertex). epsilon = residual_threshold(
// tolerance, V) = floor(tolerance / V) (at least 1 ulp). The runtime's exact termination ends the run.
//
// Error bound of the tasks strategy (checked by pagerank_tasks_bound's callers, the tests):
//   Invariant: every task keeps p + (I - dP)^-1 r unchanged, except that flooring loses mass: a push of
//   a taken residual t along deg arcs sends deg * floor(floor(d t) / deg) >= d t - (deg + 1) ulp, and
//   the initial residual floor((1 - d) / V) is short of (1 - d) / V by < 1 ulp per vertex. So at the end
//   y = p + q with q = (I - dP)^-1 (r + lost) >= 0 and, since |(I - dP)^-1|_1 <= 1 / (1 - d) (P is
//   column-substochastic), |q|_1 <= (R + L + V ulp) / (1 - d), where R = sum of the residuals left.
//   (1) R < V * epsilon <= tolerance: at termination no residual is >= epsilon (below: every residual
//       that reached epsilon has a task that takes it after it got there).
//   (2) L <= (maxdeg + 1) ulp per non-empty take; a take that follows a crossing is >= epsilon and
//       the takes sum to |p|_1 <= 1, the others (a seed task duplicating a spawned one) are at most V:
//       L <= (maxdeg + 1) * (1 / epsilon + V) ulp.
//   (3) Normalising: |p / |p| - y / |y||_1 <= 2 |q|_1 / |y|_1 for p, q >= 0, and |y|_1 = 1 without
//       dangling vertices, else |y|_1 >= (1 - d)(1 + d * V_nondangling / V) (every y_v >= (1 - d) / V).
//   Hence |x - x*|_1 <= 2 (V epsilon + L + V ulp) / ((1 - d) |y|_min): about 2 * tolerance / (1 - d)
//   on a graph without dangling vertices.
//   Why every residual >= epsilon is taken: a push's fetch_add comes before its flag exchange (release)
//   in program order; a task clears its flag (acquire) before it takes. If the pusher's exchange finds
//   the flag set, the queued task's clear reads from that exchange (or a later one in its release
//   sequence), so the push happens-before the take, which therefore reads a residual that includes it
//   (coherence). If the exchange finds it clear, the pusher spawns a task, which runs after the push.
//   Either way the next take after a crossing is at or above epsilon, and a residual only falls by a take.
//
// Memory orders and scopes, and why (device scope throughout: any work-group touches any vertex):
// - acc, dangling and change (multi-kernel, persistent): relaxed fetch_add. Integer sums carry nothing
//   but themselves, and the phases are ordered by the kernel boundary or by the XF barrier's
//   device-scope release/acquire, which is what makes the update phase's relaxed reads see every push.
// - rank (multi-kernel, persistent): plain ld/st; a vertex's rank is read in the push phase and written
//   in the update phase by its owner, and the phases are ordered as above.
// - residual (tasks): relaxed fetch_add / exchange: RMWs on one location are totally ordered, so no
//   mass is lost or counted twice whatever the interleaving; the ordering with the take is the flag's.
// - pending (tasks): a release exchange to set, an acquire exchange to clear: the message passing
//   argued above (as strategies.hpp's BFS flag); neither side needs the other half.
// - rank p (tasks): relaxed fetch_add: two tasks of one vertex can run at once (one started, a new one
//   spawned by a crossing after its take); the host reads p after the launch.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/pagerank_fixed.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

struct pagerank_options {
    double damping = 0.85;
    /// tolerance 0: the iteration count (multi-kernel, persistent); tolerance > 0: the most iterations.
    unsigned iterations = 20;
    /// L1 tolerance: multi-kernel/persistent stop when an iteration changes the ranks by at most this;
    /// tasks take epsilon = tolerance / V (0: pagerank_tasks_default_tolerance).
    double tolerance = 0;
};

namespace detail {

/// Push phase for vertex u; returns what u adds to the dangling sum (0 unless u has no out-arc).
CANOPY_DEVICE inline rank_fixed pr_push(const csr_view& g, const rank_fixed* rank, rank_fixed* acc,
                                        std::uint64_t d_fx, vertex_id u) {
    const rank_fixed x = ld(&rank[u]); // written in the previous update phase (kernel boundary / barrier)
    const edge_id deg = g.degree(u);
    if (deg == 0) {
        return mul_frac(x, d_fx);
    }
    const rank_fixed c = push_share(x, d_fx, deg);
    if (c == 0) {
        return 0;
    }
    const edge_id end = g.end(u);
    for (edge_id e = g.begin(u); e < end; ++e) {
        // Relaxed, device scope: an integer sum, read after the phase boundary (header comment).
        atomic_ref<rank_fixed, scope::device>(acc[g.target(e)]).fetch_add(c, std::memory_order_relaxed);
    }
    return 0;
}

/// Update phase for vertex v; returns |new rank - old rank|.
CANOPY_DEVICE inline rank_fixed pr_update(rank_fixed* rank, rank_fixed* acc, rank_fixed add, vertex_id v) {
    // Relaxed: every push to acc[v] happened before the phase boundary; the reset is read next phase.
    const rank_fixed a = atomic_ref<rank_fixed, scope::device>(acc[v]).exchange(0, std::memory_order_relaxed);
    const rank_fixed nr = add + a;
    const rank_fixed old = ld(&rank[v]);
    st(&rank[v], nr);
    return nr > old ? nr - old : old - nr;
}

struct pr_push_kernel {
    csr_view g;
    const rank_fixed* rank;
    rank_fixed* acc;
    rank_fixed* dangling;
    std::uint64_t d_fx;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        rank_fixed mine = 0; // one RMW per work-item, not per dangling vertex
        for (unsigned u = global_id(); u < g.num_vertices; u += stride) {
            mine += pr_push(g, rank, acc, d_fx, u);
        }
        if (mine != 0) {
            atomic_ref<rank_fixed, scope::device>(*dangling).fetch_add(mine, std::memory_order_relaxed);
        }
    }
};

struct pr_update_kernel {
    csr_view g;
    rank_fixed* rank;
    rank_fixed* acc;
    rank_fixed* dangling; // complete: the push kernel has finished
    rank_fixed* change;
    rank_fixed teleport;
    CANOPY_DEVICE void operator()() const {
        const rank_fixed add =
            teleport +
            atomic_ref<rank_fixed, scope::device>(*dangling).load(std::memory_order_relaxed) / g.num_vertices;
        const unsigned stride = grid_dim() * block_dim();
        rank_fixed mine = 0;
        for (unsigned v = global_id(); v < g.num_vertices; v += stride) {
            mine += pr_update(rank, acc, add, v);
        }
        if (mine != 0) {
            atomic_ref<rank_fixed, scope::device>(*change).fetch_add(mine, std::memory_order_relaxed);
        }
    }
};

struct pr_persistent_phases {
    csr_view g;
    rank_fixed* rank;
    rank_fixed* acc;
    rank_fixed* dangling; // 2 rotating sums: iteration k pushes into dangling[k & 1]
    rank_fixed* change;   // 3 rotating sums: iteration k's update adds to change[k % 3]
    unsigned* iterations; // written once at the end by participant 0
    std::uint64_t d_fx;
    rank_fixed teleport;
    rank_fixed tolerance; // 0: run max_iterations
    unsigned max_iterations;
    sync::xf_barrier barrier;
    CANOPY_DEVICE void operator()() const {
        for (unsigned k = 0;; ++k) {
            rank_fixed mine = 0;
            for (unsigned u = sync::p_global_id(); u < g.num_vertices; u += sync::p_global_size()) {
                mine += pr_push(g, rank, acc, d_fx, u);
            }
            if (mine != 0) {
                atomic_ref<rank_fixed, scope::device>(dangling[k & 1])
                    .fetch_add(mine, std::memory_order_relaxed);
            }
            barrier.wait(); // the pushes and the dangling sum, released and acquired at device scope
            if (sync::p_global_id() == 0) {
                // dangling[(k + 1) & 1] was last read in update k - 1 and is next added to in push k + 1;
                // change[(k + 1) % 3] was last read after iteration k - 2 and is next added to in update
                // k + 1: barriers on either side order these resets.
                atomic_ref<rank_fixed, scope::device>(dangling[(k + 1) & 1])
                    .store(0, std::memory_order_relaxed);
                atomic_ref<rank_fixed, scope::device>(change[(k + 1) % 3])
                    .store(0, std::memory_order_relaxed);
            }
            const rank_fixed add =
                teleport +
                atomic_ref<rank_fixed, scope::device>(dangling[k & 1]).load(std::memory_order_relaxed) /
                    g.num_vertices;
            mine = 0;
            for (unsigned v = sync::p_global_id(); v < g.num_vertices; v += sync::p_global_size()) {
                mine += pr_update(rank, acc, add, v);
            }
            if (mine != 0) {
                atomic_ref<rank_fixed, scope::device>(change[k % 3])
                    .fetch_add(mine, std::memory_order_relaxed);
            }
            barrier.wait(); // the new ranks and the change
            const rank_fixed c =
                atomic_ref<rank_fixed, scope::device>(change[k % 3]).load(std::memory_order_relaxed);
            if (k + 1 >= max_iterations || (tolerance != 0 && c <= tolerance)) {
                if (sync::p_global_id() == 0) {
                    st(iterations, k + 1); // read by the host after the kernel
                }
                return; // every participant read the same change: a uniform exit
            }
        }
    }
};

// ---- tasks ----

struct pr_args {
    csr_view g;
    rank_fixed* rank;
    rank_fixed* residual;
    unsigned* pending; // 1 while a vertex task for the vertex is queued and has not started
    std::uint64_t d_fx;
    rank_fixed epsilon;
};
struct pr_vertex_payload {
    vertex_id v;
};
struct pr_range_payload {
    edge_id lo, hi;   // arcs [lo, hi) of the pushing vertex
    rank_fixed share; // what each arc carries
};
struct pr_seeds_payload {
    vertex_id lo, hi; // vertices [lo, hi)
};

struct pr_vertex_task;
struct pr_range_task;

/// Adds `share` to the residual of w = the target of arc e, spawning w's vertex task when its residual
/// crosses epsilon and it has none queued.
template <class Ctx> CANOPY_DEVICE void pr_push_arc(Ctx& ctx, const pr_args& a, rank_fixed share, edge_id e) {
    const vertex_id w = a.g.target(e);
    // Relaxed: the residual is its own data; see the header comment for the order with the take.
    const rank_fixed old =
        atomic_ref<rank_fixed, scope::device>(a.residual[w]).fetch_add(share, std::memory_order_relaxed);
    if (old >= a.epsilon || old + share < a.epsilon) {
        return; // no crossing: a task is queued or running for w, or the residual stays small
    }
    // Release: publishes the push to the queued task this exchange may find (it acquires as it clears
    // the flag, before its take). Nothing is read through the flag here: no acquire.
    if (atomic_ref<unsigned, scope::device>(a.pending[w]).exchange(1u, std::memory_order_release) == 0) {
        ctx.template spawn<pr_vertex_task>(pr_vertex_payload{w});
    }
}

/// Every lane of the front: pushes the front's arc ranges together, as BFS and SSSP relax theirs; a
/// range longer than together_max becomes range tasks (each_together_or_split). Staging: a lane's split
/// pieces and one task per arc it pushes (together_staging).
template <class Ctx>
CANOPY_DEVICE void pr_push_together(Ctx& ctx, const pr_args& a, edge_id lo, edge_id hi, rank_fixed share) {
    each_together_or_split(
        lo, hi, share, [&](rank_fixed s, edge_id e) { pr_push_arc(ctx, a, s, e); },
        [&](edge_id b, edge_id e) {
            ctx.template spawn<pr_range_task>(pr_range_payload{b, e, share});
        });
}

/// Sub-group-cooperative (task_context.hpp): called on every lane of its front.
struct pr_vertex_task {
    using payload = pr_vertex_payload;
    static constexpr bool cooperative = true;
    pr_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        edge_id lo = 0, hi = 0;
        rank_fixed share = 0;
        if (valid) {
            // Clear the flag first (acquire: pairs with the pushers' release), then take the residual.
            // The clear publishes nothing: no release. The lanes that push this vertex's arcs get the
            // share as a value (a shuffle) and read only the graph, which no one writes in the run.
            atomic_ref<unsigned, scope::device>(a.pending[x.v]).exchange(0u, std::memory_order_acquire);
            const rank_fixed t =
                atomic_ref<rank_fixed, scope::device>(a.residual[x.v]).exchange(0, std::memory_order_relaxed);
            // t == 0: a duplicate (another task of v took it); deg == 0: dangling, absorbed (normalised
            // away on the host).
            const edge_id deg = a.g.degree(x.v);
            if (t != 0) {
                atomic_ref<rank_fixed, scope::device>(a.rank[x.v]).fetch_add(t, std::memory_order_relaxed);
                share = deg == 0 ? 0 : push_share(t, a.d_fx, deg);
            }
            if (share != 0) {
                lo = a.g.begin(x.v);
                hi = a.g.end(x.v);
            }
        }
        pr_push_together(ctx, a, lo, hi, share);
    }
};

/// Sub-group-cooperative, like pr_vertex_task.
struct pr_range_task {
    using payload = pr_range_payload;
    static constexpr bool cooperative = true;
    pr_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        pr_push_together(ctx, a, valid ? x.lo : 0, valid ? x.hi : 0, x.share);
    }
};

/// The seeds: every vertex whose residual is at least epsilon, split like a range.
struct pr_seeds_task {
    using payload = pr_seeds_payload;
    pr_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        each_or_split(
            x.lo, x.hi,
            [&](vertex_id w) {
                // Relaxed: a stale read only adds a duplicate task (which takes little or nothing) or
                // skips a vertex whose residual was taken (a crossing spawns it again).
                if (atomic_ref<rank_fixed, scope::device>(a.residual[w]).load(std::memory_order_relaxed) >=
                        a.epsilon &&
                    atomic_ref<unsigned, scope::device>(a.pending[w])
                            .exchange(1u, std::memory_order_release) == 0) {
                    ctx.template spawn<pr_vertex_task>(pr_vertex_payload{w});
                }
            },
            [&](vertex_id b, vertex_id e) {
                ctx.template spawn<pr_seeds_task>(pr_seeds_payload{b, e});
            });
    }
};

inline rank_fixed tolerance_fixed(double tolerance) {
    const double t = tolerance * static_cast<double>(rank_one);
    return t <= 0 ? 0 : t >= 9.2e18 ? rank_fixed{1} << 63 : static_cast<rank_fixed>(t);
}

inline void to_ranks(run_result<double>& r, const std::vector<rank_fixed>& x) {
    r.labels.resize(x.size());
    for (std::size_t v = 0; v < x.size(); ++v) {
        r.labels[v] = rank_to_double(x[v]);
    }
}

inline run_result<double> pagerank_multi_kernel(const csr_view& g, const pagerank_options& p,
                                                const run_options& o) {
    run_result<double> r;
    const std::uint64_t d_fx = damping_fixed(p.damping);
    const rank_fixed tol = tolerance_fixed(p.tolerance);
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<rank_fixed> rank(std::vector<rank_fixed>(g.num_vertices, initial_rank(g.num_vertices)));
    device_buffer<rank_fixed> acc(g.num_vertices);
    acc.fill_zero();
    device_buffer<rank_fixed> sums(2); // dangling, change
    const unsigned r1 = max_resident_blocks<pr_push_kernel>(o.block);
    const unsigned r2 = max_resident_blocks<pr_update_kernel>(o.block);
    const unsigned want = (g.num_vertices + o.block - 1) / o.block;
    launch_config c1, c2;
    c1.block = c2.block = o.block;
    c1.grid = r1 != 0 && want > r1 ? r1 : want;
    c2.grid = r2 != 0 && want > r2 ? r2 : want;
    kernel_timer t;
    for (unsigned k = 0; k < p.iterations; ++k) {
        sums.fill_zero();
        timed_launch(&t, [&] { launch(c1, pr_push_kernel{g, rank.data(), acc.data(), sums.data(), d_fx}); });
        timed_launch(&t, [&] {
            launch(c2, pr_update_kernel{g, rank.data(), acc.data(), sums.data(), sums.data() + 1,
                                        teleport_share(d_fx, g.num_vertices)});
        });
        r.launches += 2;
        ++r.iterations;
        rank_fixed change = 0;
        sums.download_at(1, &change, 1); // the stop flag
        if (tol != 0 && change <= tol) {
            break;
        }
    }
    to_ranks(r, rank.to_vector());
    r.stop_clocks(t0, t);
    return r;
}

inline run_result<double> pagerank_persistent(const csr_view& g, const pagerank_options& p,
                                              const run_options& o) {
    run_result<double> r;
    const std::uint64_t d_fx = damping_fixed(p.damping);
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<rank_fixed> rank(std::vector<rank_fixed>(g.num_vertices, initial_rank(g.num_vertices)));
    device_buffer<rank_fixed> acc(g.num_vertices);
    acc.fill_zero();
    device_buffer<rank_fixed> sums(5); // dangling[2], change[3]
    sums.fill_zero();
    device_buffer<unsigned> iterations(1);
    iterations.fill_zero();
    kernel_timer t;
    r.workgroups = launch_persistent_phases<pr_persistent_phases>(
        o.block,
        [&](sync::xf_barrier barrier) {
            return pr_persistent_phases{g,
                                        rank.data(),
                                        acc.data(),
                                        sums.data(),
                                        sums.data() + 2,
                                        iterations.data(),
                                        d_fx,
                                        teleport_share(d_fx, g.num_vertices),
                                        tolerance_fixed(p.tolerance),
                                        p.iterations,
                                        barrier};
        },
        &t);
    r.launches = 1;
    unsigned its = 0;
    iterations.download(&its, 1);
    r.iterations = its;
    r.barriers = 2 * std::uint64_t{its}; // two phases per iteration, a barrier after each
    to_ranks(r, rank.to_vector());
    r.stop_clocks(t0, t);
    return r;
}

inline run_result<double> pagerank_tasks(const csr_view& g, const pagerank_options& p, const run_options& o) {
    run_result<double> r;
    if (o.tasks.staging_capacity < together_staging) {
        throw error("canopy graph: PageRank tasks need a staging buffer of at least " +
                    std::to_string(together_staging) +
                    " tasks per lane (a lane stages its split's pieces and one task per arc it pushes)");
    }
    const std::uint64_t d_fx = damping_fixed(p.damping);
    const double tolerance = p.tolerance > 0 ? p.tolerance : pagerank_tasks_default_tolerance;
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<rank_fixed> rank(g.num_vertices);
    rank.fill_zero();
    device_buffer<rank_fixed> residual(
        std::vector<rank_fixed>(g.num_vertices, teleport_share(d_fx, g.num_vertices)));
    device_buffer<unsigned> pending(g.num_vertices);
    pending.fill_zero();
    const pr_args a{
        g, rank.data(), residual.data(), pending.data(), d_fx, residual_threshold(tolerance, g.num_vertices)};
    runtime::config c = o.tasks;
    c.block = o.block;
    runtime::task_set<pr_vertex_task, pr_range_task, pr_seeds_task> ts{pr_vertex_task{a}, pr_range_task{a},
                                                                       pr_seeds_task{a}};
    ts.template seed<pr_seeds_task>(pr_seeds_payload{0, g.num_vertices});
    kernel_timer t;
    r.one_round(ts.run(c, &t));
    const std::vector<rank_fixed> x = rank.to_vector();
    r.stop_clocks(t0, t);
    // x* = y / |y|_1 (header comment).
    double sum = 0;
    for (rank_fixed v : x) {
        sum += rank_to_double(v);
    }
    r.labels.resize(x.size());
    for (std::size_t v = 0; v < x.size(); ++v) {
        r.labels[v] = sum > 0 ? rank_to_double(x[v]) / sum : 1.0 / static_cast<double>(x.size());
    }
    return r;
}

} // namespace detail

/// PageRank of `g` (a view of device memory: device_graph) with strategy o.how; labels are the ranks
/// (sum 1 up to rounding). Throws canopy::error for a damping outside [0, 1), a negative or non-finite
/// tolerance, or 0 iterations.
inline run_result<double> run_pagerank(const csr_view& g, const pagerank_options& p,
                                       const run_options& o = {}) {
    if (!(p.damping >= 0 && p.damping < 1)) {
        throw error("canopy graph: the PageRank damping must be in [0, 1) (got " + std::to_string(p.damping) +
                    ")");
    }
    if (!(p.tolerance >= 0 && std::isfinite(p.tolerance))) {
        throw error("canopy graph: the PageRank tolerance must be finite and >= 0");
    }
    if (p.iterations == 0) {
        throw error("canopy graph: PageRank needs at least one iteration");
    }
    if (g.num_vertices == 0) {
        return {};
    }
    switch (o.how) {
    case strategy::multi_kernel: return detail::pagerank_multi_kernel(g, p, o);
    case strategy::persistent: return detail::pagerank_persistent(g, p, o);
    case strategy::tasks: return detail::pagerank_tasks(g, p, o);
    }
    throw error("canopy graph: unknown strategy");
}

} // namespace canopy::workloads::graph
