// PageRank's sequential oracles and error bounds (pagerank_reference.hpp).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "canopy/workloads/graph/pagerank_reference.hpp"

namespace canopy::workloads::graph {

pagerank_fixed_result reference_pagerank_fixed(const csr_graph& g, double damping, unsigned iterations,
                                               double tolerance) {
    const vertex_id n = g.num_vertices();
    const std::uint64_t d_fx = damping_fixed(damping);
    const rank_fixed teleport = teleport_share(d_fx, n);
    const double tol_d = tolerance * static_cast<double>(rank_one);
    const rank_fixed tol = tol_d <= 0        ? 0
                           : tol_d >= 9.2e18 ? rank_fixed{1} << 63
                                             : static_cast<rank_fixed>(tol_d);
    pagerank_fixed_result r;
    r.rank.assign(n, initial_rank(n));
    std::vector<rank_fixed> acc(n, 0);
    for (unsigned k = 0; k < iterations && n != 0; ++k) {
        rank_fixed dangling = 0;
        for (vertex_id u = 0; u < n; ++u) {
            const edge_id deg = g.degree(u);
            if (deg == 0) {
                dangling += mul_frac(r.rank[u], d_fx);
                continue;
            }
            const rank_fixed c = push_share(r.rank[u], d_fx, deg);
            for (vertex_id v : g.neighbours(u)) {
                acc[v] += c;
            }
        }
        const rank_fixed add = teleport + dangling / n;
        rank_fixed change = 0;
        for (vertex_id v = 0; v < n; ++v) {
            const rank_fixed nr = add + acc[v];
            change += nr > r.rank[v] ? nr - r.rank[v] : r.rank[v] - nr;
            r.rank[v] = nr;
            acc[v] = 0;
        }
        r.iterations = k + 1;
        r.last_change = change;
        if (tol != 0 && change <= tol) {
            break;
        }
    }
    return r;
}

std::vector<double> reference_pagerank(const csr_graph& g, double damping, double tolerance,
                                       unsigned max_iterations) {
    const vertex_id n = g.num_vertices();
    const double d = damping_quantized(damping);
    std::vector<double> x(n, n == 0 ? 0.0 : 1.0 / n), acc(n, 0.0);
    for (unsigned k = 0; k < max_iterations && n != 0; ++k) {
        double dangling = 0;
        for (vertex_id u = 0; u < n; ++u) {
            const edge_id deg = g.degree(u);
            if (deg == 0) {
                dangling += d * x[u];
                continue;
            }
            const double c = d * x[u] / static_cast<double>(deg);
            for (vertex_id v : g.neighbours(u)) {
                acc[v] += c;
            }
        }
        const double add = (1 - d) / n + dangling / n;
        double change = 0;
        for (vertex_id v = 0; v < n; ++v) {
            const double nr = add + acc[v];
            change += std::fabs(nr - x[v]);
            x[v] = nr;
            acc[v] = 0;
        }
        if (change <= tolerance) {
            break;
        }
    }
    return x;
}

std::vector<double> ranks_to_double(std::span<const rank_fixed> x) {
    std::vector<double> r(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        r[i] = rank_to_double(x[i]);
    }
    return r;
}

double l1_distance(std::span<const double> a, std::span<const double> b) {
    if (a.size() != b.size()) {
        return INFINITY;
    }
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        s += std::fabs(a[i] - b[i]);
    }
    return s;
}

double pagerank_oracle_error(double damping) {
    const double d = damping_quantized(damping);
    return d * 1e-12 / (1 - d) + 1e-12;
}

double pagerank_power_bound(const csr_graph& g, double damping, rank_fixed last_change) {
    return pagerank_power_guarantee(g, damping, last_change) + pagerank_oracle_error(damping);
}

double pagerank_tasks_bound(const csr_graph& g, double damping, double tolerance, double takes) {
    return pagerank_tasks_guarantee(g, damping, tolerance, takes) + pagerank_oracle_error(damping);
}

namespace {
/// A double as printf's %g: 1e-19, not std::to_string's 0.000000.
std::string shortest(double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", x);
    return b;
}

/// The power iteration's rounding per iteration: (E + 3V) ulp (header comment).
double power_rounding(const csr_graph& g) {
    return (static_cast<double>(g.num_edges()) + 3.0 * g.num_vertices()) * rank_ulp;
}
} // namespace

double pagerank_power_guarantee(const csr_graph& g, double damping, rank_fixed last_change) {
    const double d = damping_quantized(damping);
    return (d * rank_to_double(last_change) + power_rounding(g)) / (1 - d);
}

pagerank_stopping pagerank_stopping_for_error(const csr_graph& g, double damping, double target, bool tasks) {
    if (!(target > 0 && std::isfinite(target))) {
        throw std::invalid_argument("canopy graph: the PageRank error target must be finite and > 0");
    }
    const double d = damping_quantized(damping);
    pagerank_stopping s;
    if (!tasks) {
        // (d delta + rounding) / (1 - d) <= E, solved for delta; the change is compared in ulps, so the
        // tolerance is rounded down to one (tolerance_fixed truncates).
        s.tolerance = (target * (1 - d) - power_rounding(g)) / (d > 0 ? d : 1);
        if (s.tolerance < 2 * rank_ulp) {
            throw std::invalid_argument(
                "canopy graph: a PageRank error of " + shortest(target) +
                " is below what 60-bit fixed point guarantees on this graph; ask for more");
        }
        s.guarantee = (d * s.tolerance + power_rounding(g)) / (1 - d);
        return s;
    }
    if (g.num_vertices() == 0) {
        s.tolerance = target;
        return s;
    }
    // The bound is increasing in the tolerance but for its rounding term, which falls as epsilon grows:
    // start at the first-order answer and shrink until the bound holds.
    double tol = target * (1 - d) / 2;
    for (int i = 0; i < 200 && tol > 0; ++i) {
        const double b = pagerank_tasks_guarantee(g, damping, tol, pagerank_tasks_take_budget);
        if (b <= target) {
            s.tolerance = tol;
            s.guarantee = b;
            return s;
        }
        tol *= target / b < 0.99 ? target / b : 0.99;
    }
    throw std::invalid_argument(
        "canopy graph: a PageRank error of " + shortest(target) +
        " is below what the tasks' residual push guarantees in 60-bit fixed point on this graph");
}

double pagerank_tasks_guarantee(const csr_graph& g, double damping, double tolerance, double takes) {
    const vertex_id n = g.num_vertices();
    if (n == 0) {
        return 0;
    }
    const double d = damping_quantized(damping);
    const rank_fixed eps = residual_threshold(tolerance, n);
    edge_id max_degree = 0;
    vertex_id dangling = 0;
    for (vertex_id v = 0; v < n; ++v) {
        max_degree = g.degree(v) > max_degree ? g.degree(v) : max_degree;
        dangling += g.degree(v) == 0 ? 1 : 0;
    }
    const double residual_left = static_cast<double>(n) * rank_to_double(eps); // R < V epsilon
    // Rounding: (maxdeg + 1) ulp per take, and per vertex of the warm start's push (pagerank.hpp).
    if (!(takes >= 0)) {
        throw std::invalid_argument("canopy graph: pagerank_tasks_guarantee needs a count of takes >= 0");
    }
    const double take_count = (takes + static_cast<double>(n)) * rank_ulp;
    const double lost = (static_cast<double>(max_degree) + 1) * take_count;
    const double teleport_short = static_cast<double>(n) * rank_ulp;
    return 2 * (residual_left + lost + teleport_short) / ((1 - d) * pagerank_y_min(d, n, dangling));
}

} // namespace canopy::workloads::graph
