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
// Warm start: p = floor(1 / V) everywhere (the power iteration's start) and r = teleport_share - p +
// what p pushes (one push kernel), the residual of that guess, of either sign: residuals and ranks are
// signed, two's complement in the same words (pagerank_fixed.hpp). From p = 0 and r = teleport the
// tasks must first build the whole rank vector (4elt: 94.6 tasks per vertex at 1e-4); from the guess
// only its error (13). A vertex task takes its residual (exchange 0), adds it to p[v] and pushes
// signed_push_share(taken) to each out-neighbour's residual (fetch_add); a push that lifts |residual|
// from below epsilon to at least epsilon spawns that vertex's task (a pending flag keeps one queued
// task per vertex; it lives in bit 0 of the vertex's residual word, pagerank_fixed.hpp's
// residual_word, so that a push, a take and the flag change one word). Seeds: every vertex with |r| >=
// epsilon. The runtime's exact termination ends a round. A tolerance runs one round at epsilon =
// residual_threshold(tolerance, V) = floor(tolerance / V) (at least 1 ulp); an error target runs rounds at
// falling epsilon, each followed by a sums kernel that measures what the guarantee needs, until the measured
// guarantee reaches the target.
//
// Error bound of the tasks strategy:
//   Invariant: every task keeps p + (I - dP)^-1 r unchanged, except that rounding loses mass: a push of
//   a taken residual t along deg arcs sends deg * share with |d t - deg * share| < (deg + 1) ulp, the
//   warm start's push of p loses as much per vertex, and the initial floor((1 - d) / V) is short of (1
//   - d) / V by < 1 ulp per vertex. So at the end y = p + q with q = (I - dP)^-1 (r + lost) and, since
//   |(I - dP)^-1|_1 <= 1 / (1 - d) (P is column-substochastic), |q|_1 <= Q = (R + L + V ulp) / (1 - d),
//   R = sum of |residual| left, L <= (maxdeg + 1) ulp per take and per vertex (the warm start).
//   A tolerance, a priori: R < V * epsilon (at termination no |residual| is >= epsilon, below), and
//   normalising costs at most a factor 2 / |y|_1 (|p / |p| - y / |y||_1 <= 2 |q|_1 / |y|_1), |y|_1 = 1
//   without dangling vertices, else >= (1 - d)(1 + d * V_nondangling / V) (every y_v >= (1 - d) / V):
//   |x - x*|_1 <= 2 (V epsilon + L + V ulp) / ((1 - d) |y|_min), about 2 * tolerance / (1 - d) on a
//   graph without dangling vertices (pagerank_tasks_guarantee, with the run's count of takes for L).
//   An error target, a posteriori: R, sum |p| and sum p measured after each round
//   (pagerank_tasks_measured_guarantee, pagerank_fixed.hpp, which also tightens the normalisation).
//   Why every |residual| >= epsilon is taken, by coherence alone: every push (fetch_add), flag set
//   (fetch_or) and take (exchange 0, which also clears the flag) of v is an RMW on v's one word, so they
//   have one total order, each reading the value just before it. A set that finds the flag clear spawns
//   one task, whose take comes later in that order (the runtime's hand-off makes the spawn happen-before
//   the task's run, and happens-before between accesses to one location is modification order). So
//   every set is followed by a take. Let T be v's last take in a round (or the round's start, when all
//   flags are clear: the last round's every set was followed by its take). No set comes after T. A push
//   after T that lifts |r_v| from below epsilon to at least epsilon finds the flag clear (only a set
//   could have set it) and so sets it: impossible. So no push after T crosses epsilon, and |r_v|, 0
//   after T (or below epsilon at the start, else its seed's set would follow), stays below epsilon.
//   A push that finds the flag set needs nothing more: the queued task's take comes later and includes
//   it. Before, the flag was a second word, which needed a release exchange to set it and an acquire
//   exchange to clear it (the message passing from push to take); on the scoped-cache model that
//   acquire invalidated the L1 once per task.
//
// Memory orders and scopes, and why (device scope throughout: any work-group touches any vertex):
// - acc, dangling and change (multi-kernel, persistent): relaxed fetch_add. Integer sums carry nothing
//   but themselves, and the phases are ordered by the kernel boundary or by the XF barrier's
//   device-scope release/acquire, which is what makes the update phase's relaxed reads see every push.
// - rank (multi-kernel, persistent): plain ld/st; a vertex's rank is read in the push phase and written
//   in the update phase by its owner, and the phases are ordered as above.
// - residual word (tasks): relaxed fetch_add / fetch_or / exchange: RMWs on one location are totally
//   ordered, so no mass is lost or counted twice whatever the interleaving, and the flag in the same word
//   orders every crossing with the take that follows it (above; as strategies.hpp's BFS label word).
//   The flag's set is a release all the same: not for correctness; pr_push_arc says why it is kept.
// - rank p (tasks): relaxed fetch_add: two tasks of one vertex can run at once (one started, a new one
//   spawned by a crossing after its take); the host reads p after the launch.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/pagerank_blocks.hpp"
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
    /// tasks only, > 0: an L1 error target against x*. The tasks run rounds at falling epsilon until the
    /// guarantee they measure (run_result::guarantee) is at most this; `tolerance`, when > 0, is then
    /// the last round's (pagerank_stopping_for_error's, whose a-priori guarantee meets the target).
    double error = 0;
};

namespace detail {

/// Push phase for vertex u; returns what u adds to the dangling sum (0 unless u has no out-arc).
CANOPY_DEVICE inline rank_fixed pr_push(const csr_view& g, const rank_fixed* rank, rank_fixed* acc,
                                        std::uint64_t d_fx, vertex_id u, unsigned shift = 0) {
    const rank_fixed x = ld(&rank[u]); // written in the previous update phase (kernel boundary / barrier)
    const edge_id deg = g.degree(u);
    if (deg == 0) {
        return mul_frac(x, d_fx);
    }
    // shift 1: the tasks' warm start pushes into residual words (residual_word: twice the residual).
    const rank_fixed c = push_share(x, d_fx, deg) << shift;
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
    // Residual words (pagerank_fixed.hpp's residual_word): twice the residual, the pending flag in bit 0.
    rank_fixed* residual;
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

/// Adds `share` (signed, two's complement) to the residual of w = the target of arc e, spawning w's
/// vertex task when |residual| crosses epsilon and it has none queued.
template <class Ctx> CANOPY_DEVICE void pr_push_arc(Ctx& ctx, const pr_args& a, rank_fixed share, edge_id e) {
    const vertex_id w = a.g.target(e);
    using word_ref = atomic_ref<rank_fixed, scope::device>;
    // Relaxed: the residual and its flag are one word, and every RMW on it is in one modification
    // order; the header comment argues why that alone takes every residual that crosses epsilon.
    const rank_fixed old =
        word_ref(a.residual[w]).fetch_add(residual_word(as_signed(share)), std::memory_order_relaxed);
    const signed_rank before = residual_of(old);
    if ((old & residual_flag) != 0 || magnitude(before) >= a.epsilon ||
        magnitude(before + as_signed(share)) < a.epsilon) {
        return; // a task is queued (its take comes later and includes this push), or no crossing
    }
    // This push crossed epsilon with no task queued: set the flag; the RMW that finds it clear spawns.
    // Release, though coherence alone makes the protocol correct (header comment): the two-word protocol
    // had this release, and removing it measured slower on four of six graphs (timed hrf32: 4elt 486 K ->
    // 653 K cycles, Kronecker 12 5.46 M -> 6.16 M, road20k 635 K -> 735 K, ba20k 5.33 M -> 5.49 M) and
    // faster on two (copter2 4.15 M -> 3.70 M, mdual 1.40 M -> 1.30 M): 7% slower in geometric mean.
    // On the scoped-cache model it writes the lane's dirty staging lines back at the crossing; without
    // it they go back at the runtime's next device-scope release (a share, a slot handed back), where
    // the sub-group's leader waits for them (--trace, 4elt: shares 2.7 K -> 9.5 K cycles each), and
    // the rounds ran 8-25% more tasks on those four graphs. The take (below) needs no acquire.
    if ((word_ref(a.residual[w]).fetch_or(residual_flag, std::memory_order_release) & residual_flag) == 0) {
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
            // Take the residual and clear the flag in one relaxed RMW (the header comment): a push after
            // it in the word's modification order finds the flag clear and spawns a task of its own when
            // it crosses epsilon. The lanes that push this vertex's arcs get the share as a value (a
            // shuffle) and read only the graph, which no one writes in the run.
            const rank_fixed t = as_word(residual_of(atomic_ref<rank_fixed, scope::device>(a.residual[x.v])
                                                         .exchange(0, std::memory_order_relaxed)));
            // t == 0: nothing left to push; deg == 0: dangling, absorbed (normalised away on the host).
            // t and share are signed, in two's complement words.
            const edge_id deg = a.g.degree(x.v);
            if (t != 0) {
                atomic_ref<rank_fixed, scope::device>(a.rank[x.v]).fetch_add(t, std::memory_order_relaxed);
                share = deg == 0 ? 0 : as_word(signed_push_share(as_signed(t), a.d_fx, deg));
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
                // Relaxed, as a push: the RMW that finds the flag clear spawns. A stale load only skips
                // a vertex whose residual a crossing push spawns anyway, or sets the flag over a
                // residual just taken (the task takes little or nothing).
                using word_ref = atomic_ref<rank_fixed, scope::device>;
                const rank_fixed word = word_ref(a.residual[w]).load(std::memory_order_relaxed);
                if ((word & residual_flag) == 0 && magnitude(residual_of(word)) >= a.epsilon &&
                    (word_ref(a.residual[w]).fetch_or(residual_flag, std::memory_order_relaxed) &
                     residual_flag) == 0) {
                    ctx.template spawn<pr_vertex_task>(pr_vertex_payload{w});
                }
            },
            [&](vertex_id b, vertex_id e) {
                ctx.template spawn<pr_seeds_task>(pr_seeds_payload{b, e});
            });
    }
};

/// The tasks' warm start: p (= floor(1 / V) everywhere) pushed into the residual, which the host set to
/// teleport - p. Also the graph's facts the measured guarantee needs: facts[0] = max degree, facts[1] +=
/// dangling vertices (relaxed, device scope: integer sums read by the host after the kernel).
struct pr_warm_kernel {
    csr_view g;
    const rank_fixed* rank;
    rank_fixed* residual;
    rank_fixed* facts; // zeroed by the host
    std::uint64_t d_fx;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        rank_fixed dangling = 0;
        edge_id max_degree = 0;
        for (unsigned u = global_id(); u < g.num_vertices; u += stride) {
            // Into residual words (shift 1); a dangling vertex absorbs: its mass is not pushed.
            (void)pr_push(g, rank, residual, d_fx, u, 1);
            const edge_id deg = g.degree(u);
            max_degree = deg > max_degree ? deg : max_degree;
            dangling += deg == 0 ? 1 : 0;
        }
        if (max_degree != 0) {
            atomic_ref<rank_fixed, scope::device>(facts[0]).fetch_max(max_degree, std::memory_order_relaxed);
        }
        if (dangling != 0) {
            atomic_ref<rank_fixed, scope::device>(facts[1]).fetch_add(dangling, std::memory_order_relaxed);
        }
    }
};

/// After a round (error targets): what pagerank_tasks_measured_guarantee measures, summed over the
/// vertices: sums[0] += |r_v|, sums[1] += |p_v|, sums[2] += p_v. Relaxed, device scope: integer sums
/// read by the host after the kernel.
struct pr_tasks_sums_kernel {
    csr_view g;
    const rank_fixed* rank;
    const rank_fixed* residual;
    rank_fixed* sums; // zeroed by the host
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        rank_fixed r = 0, pa = 0, ps = 0;
        for (unsigned v = global_id(); v < g.num_vertices; v += stride) {
            // The round's launch has ended: plain loads see every task's RMWs.
            const rank_fixed p = ld(&rank[v]);
            r += magnitude(residual_of(ld(&residual[v])));
            pa += magnitude(as_signed(p));
            ps += p;
        }
        using sum_ref = atomic_ref<rank_fixed, scope::device>;
        if (r != 0) {
            sum_ref(sums[0]).fetch_add(r, std::memory_order_relaxed);
        }
        if (pa != 0) {
            sum_ref(sums[1]).fetch_add(pa, std::memory_order_relaxed);
        }
        if (ps != 0) {
            sum_ref(sums[2]).fetch_add(ps, std::memory_order_relaxed);
        }
    }
};

/// A grid-stride kernel over n vertices: one work-item per vertex, at most the resident work-groups.
template <class K> launch_config vertex_grid(vertex_id n, unsigned block) {
    const unsigned resident = max_resident_blocks<K>(block);
    const unsigned want = (n + block - 1) / block;
    launch_config c;
    c.block = block;
    c.grid = resident != 0 && want > resident ? resident : want;
    return c;
}

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

/// The tasks' ranks: x* = y / sum(y) (header comment). The words are signed (the push's warm start;
/// the pull's are non-negative, below 2^62), and their sum is positive whenever the guarantee is finite.
inline void to_normalised_ranks(run_result<double>& r, const std::vector<rank_fixed>& x) {
    double sum = 0;
    for (rank_fixed v : x) {
        sum += static_cast<double>(as_signed(v)) * rank_ulp;
    }
    r.labels.resize(x.size());
    for (std::size_t v = 0; v < x.size(); ++v) {
        r.labels[v] = sum > 0 ? static_cast<double>(as_signed(x[v])) * rank_ulp / sum
                              : 1.0 / static_cast<double>(x.size());
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
    const launch_config c1 = vertex_grid<pr_push_kernel>(g.num_vertices, o.block);
    const launch_config c2 = vertex_grid<pr_update_kernel>(g.num_vertices, o.block);
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

/// PageRank tasks to an error target by block pull (pagerank_blocks.hpp): rounds of generations, each
/// round stopping where the rate it measures says the target is met, and a measure after each, until the
/// measured guarantee meets the target.
inline run_result<double> pagerank_tasks_blocks(const csr_view& g, const pagerank_options& p,
                                                const run_options& o) {
    run_result<double> r;
    check_tasks_staging(
        o, together_staging, "PageRank tasks need",
        " (a lane stages its split's pieces and one block task per adjacency entry it notifies)");
    const vertex_id n = g.num_vertices;
    const edge_id m = g.num_edges;
    const std::uint64_t d_fx = damping_fixed(p.damping);
    const double d = damping_quantized(p.damping);
    const auto t0 = std::chrono::steady_clock::now();
    // The host's part, linear in E: the renumbered transpose and the blocks (pagerank_blocks.hpp).
    std::vector<edge_id> off(std::size_t{n} + 1);
    std::vector<vertex_id> tgt(m);
    copy_device_to_host(off.data(), g.offsets, off.size());
    copy_device_to_host(tgt.data(), g.targets, tgt.size());
    const device_info dev = query_device();
    const unsigned F = dev.subgroup_size != 0 ? dev.subgroup_size : 1;
    const edge_id budget =
        o.pagerank_block_arcs != 0 ? o.pagerank_block_arcs : pr_default_block_arcs(m, dev, o.block);
    const pr_layout k = pr_make_layout(off, tgt, n, budget, F);
    const std::uint32_t nb = k.blocks();
    if (nb > pr_gen_count_mask) {
        throw error("canopy graph: PageRank tasks by pull count at most " +
                    std::to_string(pr_gen_count_mask) + " blocks a generation (this graph needs " +
                    std::to_string(nb) +
                    "); use --pagerank-tasks push, or a larger block (run_options::pagerank_block_arcs)");
    }
    vertex_id dangling = 0;
    for (vertex_id v = 0; v < n; ++v) {
        dangling += off[v + 1] == off[v] ? 1 : 0;
    }
    device_buffer<edge_id> in_off(k.in_offsets), out_degree(k.out_degree);
    device_buffer<vertex_id> in_src(k.in_sources.empty() ? std::vector<vertex_id>{0} : k.in_sources);
    const csr_view in{in_off.data(), in_src.data(), nullptr, n, m};
    std::vector<std::uint64_t> meta_h(std::size_t{nb} + 1),
        entries_h(std::max<std::size_t>(k.entries.size(), 1));
    for (std::uint32_t b = 0; b <= nb; ++b) {
        meta_h[b] = pr_block_meta(k.block_first[b], k.offsets[b]);
    }
    for (std::size_t e = 0; e < k.entries.size(); ++e) {
        entries_h[e] = pr_block_entry(k.entries[e], k.need[k.entries[e]]);
    }
    device_buffer<std::uint64_t> meta(meta_h), entries(entries_h);
    // A dense round (pr_layout::dense) runs every block with in-arcs every generation, no notifications:
    // those blocks, first in the layout, are the active ones, and the others run once a round.
    const bool dense = k.dense();
    std::vector<std::uint32_t> need_h = k.need;
    if (dense) {
        for (std::uint32_t b = 0; b < nb; ++b) {
            need_h[b] = b < k.arc_blocks ? 1u : 0u;
        }
    }
    const std::uint32_t active = dense ? k.arc_blocks : k.active;
    device_buffer<std::uint32_t> need(need_h), done(nb);
    // The cap on a round's generations: --iterations (1000 under an error target).
    const std::uint32_t cap = p.iterations;
    device_buffer<std::uint64_t> gen(std::size_t{cap} + 2), meas(std::size_t{cap} + 2);
    device_buffer<std::uint32_t> stop(1);
    // The power iteration's start, and its shares (in new ids).
    const rank_fixed x0 = initial_rank(n);
    device_buffer<rank_fixed> rank(std::vector<rank_fixed>(n, x0));
    // Uploaded, as the loop of kernels uploads its start: x0's shares, one per vertex, in the even half
    // (what generation 1 pulls; the measure writes there too).
    device_buffer<rank_fixed> share([&] {
        std::vector<rank_fixed> s0(2 * std::size_t{n}, 0);
        for (vertex_id v = 0; v < n; ++v) {
            s0[v] = k.out_degree[v] == 0 ? 0 : push_share(x0, d_fx, k.out_degree[v]);
        }
        return s0;
    }());
    device_buffer<rank_fixed> sums(2);
    const rank_fixed teleport = teleport_share(d_fx, n);
    kernel_timer t;
    std::uint64_t kernels = 0;
    const auto measure = [&] {
        sums.fill_zero();
        const launch_config mc = vertex_grid<pr_block_measure_kernel>(nb * F, o.block);
        timed_launch(&t, [&] {
            launch(mc, pr_block_measure_kernel{in, out_degree.data(), meta.data(), nb, rank.data(),
                                               share.data(), sums.data(), d_fx, teleport});
        });
        ++kernels;
        const std::vector<rank_fixed> v = sums.to_vector();
        // |T(x) - T~(x)|_1 < (2E + V) ulp (pagerank_blocks.hpp); nothing else is lost: no takes.
        return pagerank_tasks_measure{v[0] + 2 * m + n, v[1], v[1], 0, 0, dangling, n};
    };
    runtime::config c = o.tasks;
    c.block = o.block;
    // The residual the target allows: the guarantee is about R / (1 - d) without dangling vertices and
    // about 2 R / ((1 - d) |y|) with them (pagerank_tasks_measured_guarantee), less the bound's (2E + V).
    const double allowed = p.error * (1 - d) * pagerank_y_min(d, n, dangling) / (dangling == 0 ? 1 : 2) *
                               static_cast<double>(rank_one) -
                           static_cast<double>(2 * m + n);
    const std::uint64_t allowed_units =
        allowed <= 0 ? 0 : static_cast<std::uint64_t>(allowed / static_cast<double>(1u << pr_gen_count_bits));
    r.guarantee = std::numeric_limits<double>::infinity();
    // The first round stops itself (pr_block_count_generation); a later one where pr_followup_stop says.
    std::uint32_t round_stop = cap;
    for (unsigned rounds = 0; r.guarantee > p.error && rounds < pagerank_block_max_rounds; ++rounds) {
        done.fill_zero();
        gen.fill_zero();
        meas.fill_zero();
        stop.upload(&round_stop, 1);
        const pr_block_args a{in,           out_degree.data(),
                              meta.data(),  entries.data(),
                              need.data(),  rank.data(),
                              share.data(), done.data(),
                              gen.data(),   meas.data(),
                              stop.data(),  d_fx,
                              teleport,     active,
                              dense,        cap,
                              allowed_units};
        runtime::task_set<pr_block_task, pr_block_notify_task, pr_block_range_task, pr_block_seeds_task> ts{
            pr_block_task{a}, pr_block_notify_task{a}, pr_block_range_task{a}, pr_block_seeds_task{a}};
        seed_vertex_ranges<pr_block_seeds_task>(ts, nb, c);
        r.add_round(ts.run(c, &t));
        ++kernels;
        // The generations the round ran: the last that any block counted (r.generations).
        const std::vector<std::uint64_t> counts = gen.to_vector();
        unsigned last = 0; // the last generation any block counted
        for (unsigned i = 1; i < counts.size() && (counts[i] & pr_gen_count_mask) != 0; ++i) {
            last = i;
        }
        r.generations += active == 0 ? 1 : last;
        const pagerank_tasks_measure mr = measure();
        r.guarantee = pagerank_tasks_measured_guarantee(mr, p.damping);
        if (r.guarantee > p.error) { // a near miss, usually: the next round's stop from the exact residual
            round_stop = pr_followup_stop(
                meas.to_vector(), static_cast<double>(mr.residual_left) - static_cast<double>(2 * m + n),
                allowed, d, cap);
        }
    }
    r.launches = kernels;
    const std::vector<rank_fixed> x = rank.to_vector();
    std::vector<rank_fixed> mine(n);
    for (vertex_id v = 0; v < n; ++v) {
        mine[v] = x[k.position[v]]; // back to the caller's ids
    }
    r.stop_clocks(t0, t);
    to_normalised_ranks(r, mine);
    return r;
}

inline run_result<double> pagerank_tasks(const csr_view& g, const pagerank_options& p, const run_options& o) {
    if (o.pagerank_pull) {
        return pagerank_tasks_blocks(g, p, o);
    }
    run_result<double> r;
    check_tasks_staging(o, together_staging, "PageRank tasks need",
                        " (a lane stages its split's pieces and one task per arc it pushes)");
    const vertex_id n = g.num_vertices;
    const std::uint64_t d_fx = damping_fixed(p.damping);
    const auto t0 = std::chrono::steady_clock::now();
    // The warm start (header comment): p = floor(1 / V) everywhere, the power iteration's start, and r =
    // teleport - p + what p pushes, the residual of that guess (the push kernel adds the last term).
    const rank_fixed x0 = initial_rank(n);
    device_buffer<rank_fixed> rank(std::vector<rank_fixed>(n, x0));
    device_buffer<rank_fixed> residual(
        std::vector<rank_fixed>(n, residual_word(as_signed(teleport_share(d_fx, n)) - as_signed(x0))));
    device_buffer<rank_fixed> sums(3); // the warm start's facts, then each round's measure
    sums.fill_zero();
    kernel_timer t;
    timed_launch(&t, [&] {
        launch(vertex_grid<pr_warm_kernel>(n, o.block),
               pr_warm_kernel{g, rank.data(), residual.data(), sums.data(), d_fx});
    });
    std::uint64_t kernels = 1;
    runtime::config c = o.tasks;
    c.block = o.block;
    // One round: one runtime launch, seeded with every vertex whose |residual| is at least epsilon.
    const auto round = [&](rank_fixed epsilon) {
        const pr_args a{g, rank.data(), residual.data(), d_fx, epsilon};
        runtime::task_set<pr_vertex_task, pr_range_task, pr_seeds_task> ts{
            pr_vertex_task{a}, pr_range_task{a}, pr_seeds_task{a}};
        seed_vertex_ranges<pr_seeds_task>(ts, n, c);
        r.add_round(ts.run(c, &t));
        ++kernels;
    };
    if (p.error <= 0) {
        // A tolerance: one round at epsilon = tolerance / V; the guarantee is the a-priori one.
        round(residual_threshold(p.tolerance > 0 ? p.tolerance : pagerank_tasks_default_tolerance, n));
    } else {
        // An error target: rounds at falling epsilon until the measured guarantee reaches it. The residual
        // left is typically 1/30 of its ceiling V epsilon, so the first round tries 8x the epsilon whose
        // ceiling would do; the state carries over, so a round that falls short is not wasted. Each
        // further round costs a launch, a scan for seeds and a sums kernel (an empty one: about 70 K
        // cycles on 4elt, timed hrf32). Start factors measured there: 4elt 760 K cycles at 8x, 753 K at 1x,
        // 746 K at 32x; copter2 5.8 M at 8x, 7.0 M at 1x; Kronecker 12 4.3 M at 8x, 6.4 M at 16x. The
        // next epsilon aims at 0.7x the target, assuming the residual left scales with epsilon, within
        // [1/16, 1/2] of the last.
        const std::vector<rank_fixed> facts = sums.to_vector(); // max degree, dangling vertices
        const auto measure = [&] {
            sums.fill_zero();
            const launch_config sc = vertex_grid<pr_tasks_sums_kernel>(n, o.block);
            timed_launch(&t, [&] {
                launch(sc, pr_tasks_sums_kernel{g, rank.data(), residual.data(), sums.data()});
            });
            ++kernels;
            const std::vector<rank_fixed> v = sums.to_vector();
            return pagerank_tasks_measure{
                v[0], v[1], v[2], r.tasks, facts[0], static_cast<vertex_id>(facts[1]), n};
        };
        const double d = damping_quantized(p.damping);
        const double y_min = pagerank_y_min(d, n, static_cast<vertex_id>(facts[1]));
        const rank_fixed floor_eps = residual_threshold(
            p.tolerance > 0 ? p.tolerance : p.error * (1 - d) * y_min / 2, n); // the ceiling's epsilon
        rank_fixed eps = floor_eps * 8 > floor_eps ? floor_eps * 8 : floor_eps;
        for (;;) {
            round(eps);
            r.guarantee = pagerank_tasks_measured_guarantee(measure(), p.damping);
            if (r.guarantee <= p.error) {
                break;
            }
            if (eps == floor_eps) {
                break; // the ceiling's epsilon: short of the target only by rounding (too many takes)
            }
            const double f = 0.7 * p.error / r.guarantee;
            const double step = f < 1.0 / 16 ? 1.0 / 16 : f > 0.5 ? 0.5 : f;
            const double next = static_cast<double>(eps) * step;
            eps = next <= static_cast<double>(floor_eps) ? floor_eps : static_cast<rank_fixed>(next);
        }
    }
    r.launches = kernels;
    const std::vector<rank_fixed> x = rank.to_vector();
    r.stop_clocks(t0, t);
    to_normalised_ranks(r, x);
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
    if (!(p.error >= 0 && std::isfinite(p.error))) {
        throw error("canopy graph: the PageRank error target must be finite and >= 0");
    }
    if (p.iterations == 0) {
        throw error("canopy graph: PageRank needs at least one iteration");
    }
    if (o.how == strategy::tasks && o.pagerank_pull && !(p.error > 0)) {
        throw error("canopy graph: PageRank tasks by pull stop at an L1 error target (--error), which they "
                    "measure after each round; a tolerance is residual push's rule (--pagerank-tasks push)");
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
