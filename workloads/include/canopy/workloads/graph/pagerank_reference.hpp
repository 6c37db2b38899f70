// canopy/workloads/graph/pagerank_reference.hpp — PageRank's oracles and error bounds (host-only).
//
// reference_pagerank_fixed: the sequential fixed-point power iteration, the same integer arithmetic as
// the multi-kernel and persistent strategies (pagerank_fixed.hpp; integer sums do not depend on their
// order), so they must equal it exactly. reference_pagerank: a double-precision power iteration with
// the quantized damping, run until an iteration changes the vector by at most 1e-12 in L1: within
// d * 1e-12 / (1 - d) (plus double rounding, ~1e-15 per iteration) of the exact PageRank vector x*.
//
// Error of the fixed-point power iteration against x*: one iteration computes F(x) - e with e >= 0 and
//   |e|_1 < (E + 3V) ulp (ulp = 2^-60): per arc u->v, floor(floor(d x_u) / deg u) is short by < 1 / deg u
//   + 1 ulp (E + V ulps over all arcs), the dangling products and floor(dangling / V) by < 1 ulp per
//   vertex each, the teleport term by < 1 ulp per vertex. F is an L1 contraction of factor d, so after
//   an iteration that changed the vector by delta,
//     |x_k - x*|_1 <= d |x_{k-1} - x*|_1 + |e|_1 <= d (delta + |x_k - x*|_1) + |e|_1
//     =>  |x_k - x*|_1 <= (d delta + (E + 3V) ulp) / (1 - d).
// pagerank_power_bound adds the double oracle's own error (and 1e-12 of slack for both conversions).
// The tasks strategy's bound is proved in pagerank.hpp; pagerank_tasks_bound computes it.
//
// Equal accuracy (pagerank_stopping_for_error): given an L1 error E, each strategy stops where its own
// guarantee (the bound without the oracle's error) is at most E:
//   power iteration  stop after an iteration that changed the ranks by delta <= (E (1 - d) - (E + 3V) ulp)
//                    / d (the bound above solved for delta); its iteration count is the cap, and a run
//                    that reaches the cap first has no guarantee (the CLI fails it);
//   tasks            the largest tolerance whose bound 2 (V eps + L + V ulp) / ((1 - d) y_min) is <= E,
//                    about E (1 - d) y_min / 2: residual push's error is the residual left, scaled by
//                    1 / (1 - d) and doubled by the normalisation (pagerank.hpp); the rounding loss L
//                    for a budget of takes (pagerank_tasks_take_budget), which the run then checks
//                    against its own count. That is the tasks' floor: given E (pagerank_options::error)
//                    they run rounds at falling epsilon, from 8x this one, and stop at the first whose
//                    measured guarantee (pagerank_tasks_measured_guarantee: the residual actually
//                    left, typically 1/30 of its ceiling V eps) is at most E.
// So at E = 1e-4 and d = 0.85 the power iteration stops at a change of about 1.8e-5 (about 67
// iterations from the uniform vector) and the tasks' floor is a residual of 7.5e-6 / V.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/pagerank_fixed.hpp"

namespace canopy::workloads::graph {

struct pagerank_fixed_result {
    std::vector<rank_fixed> rank;
    unsigned iterations = 0;
    rank_fixed last_change = 0; // the L1 change of the last iteration, in ulps
};

/// The multi-kernel/persistent computation, sequentially: tolerance 0 runs `iterations` iterations,
/// tolerance > 0 stops after the first iteration that changes the ranks by at most tolerance (L1) or
/// after `iterations`.
pagerank_fixed_result reference_pagerank_fixed(const csr_graph& g, double damping, unsigned iterations,
                                               double tolerance = 0);

/// Double-precision PageRank with damping_quantized(damping), uniform teleport and dangling mass, from
/// the uniform vector until the L1 change is at most `tolerance` (or max_iterations).
std::vector<double> reference_pagerank(const csr_graph& g, double damping, double tolerance = 1e-12,
                                       unsigned max_iterations = 100000);

std::vector<double> ranks_to_double(std::span<const rank_fixed> x);
double l1_distance(std::span<const double> a, std::span<const double> b);

/// The double oracle's own distance to x* (reference_pagerank at 1e-12), plus 1e-12 for the conversions
/// and sums: what a guarantee against x* adds to become a bound against the oracle.
double pagerank_oracle_error(double damping);

/// The bound on |x - x*|_1 of a fixed-point power iteration whose last iteration changed it by
/// last_change (ulps), plus the double oracle's error: compare with l1_distance to reference_pagerank.
double pagerank_power_bound(const csr_graph& g, double damping, rank_fixed last_change);

/// The bound on |x - x*|_1 of the tasks strategy run with `tolerance` (pagerank.hpp), plus the double
/// oracle's error (`takes`: as pagerank_tasks_guarantee's).
double pagerank_tasks_bound(const csr_graph& g, double damping, double tolerance, double takes);

/// The guarantees themselves (the bounds above without the double oracle's error): what a run promises
/// about its distance to x*. The tasks' rounding loss is (maxdeg + 1) ulp per take of a residual and
/// per vertex of the warm start: `takes` is a run's count of tasks (each vertex task takes at most
/// once), or a budget. There is no a-priori count: residuals of both signs (the warm start's) can
/// cancel, so the takes' magnitudes are not bounded by the ranks' sum.
double pagerank_power_guarantee(const csr_graph& g, double damping, rank_fixed last_change);
double pagerank_tasks_guarantee(const csr_graph& g, double damping, double tolerance, double takes);

/// The takes pagerank_stopping_for_error budgets for the tasks' rounding loss: 2^28 vertex tasks (mdual
/// at 1e-4 runs about 2^24). The a-priori count, 1 / epsilon, is 10^3-10^4 times the takes a run makes
/// and would make the rounding term, not the residual, decide the tolerance on a graph with hubs; a run
/// that exceeds the budget is told by its own guarantee (the CLI fails it).
inline constexpr double pagerank_tasks_take_budget = 268435456.0;

/// A stopping rule that guarantees an L1 error `error` against x*: `tolerance` is the power iteration's
/// largest change or the tasks' residual tolerance (pagerank_options::tolerance), `guarantee` the bound
/// it gives (<= error). Throws std::invalid_argument when no tolerance can (error too small for 60-bit fixed
/// point on this graph) or for error <= 0.
struct pagerank_stopping {
    double tolerance = 0;
    double guarantee = 0;
};
pagerank_stopping pagerank_stopping_for_error(const csr_graph& g, double damping, double error, bool tasks);

} // namespace canopy::workloads::graph
