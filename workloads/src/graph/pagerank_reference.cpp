// PageRank's sequential oracles and error bounds (pagerank_reference.hpp).
#include <cmath>
#include <cstdint>
#include <span>
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

namespace {
/// The double oracle's distance to x* (tolerance 1e-12), plus 1e-12 for the conversions and sums.
double oracle_error(double d) { return d * 1e-12 / (1 - d) + 1e-12; }
} // namespace

double pagerank_power_bound(const csr_graph& g, double damping, rank_fixed last_change) {
    const double d = damping_quantized(damping);
    const double rounding = (static_cast<double>(g.num_edges()) + 3.0 * g.num_vertices()) * rank_ulp;
    return (d * rank_to_double(last_change) + rounding) / (1 - d) + oracle_error(d);
}

double pagerank_tasks_bound(const csr_graph& g, double damping, double tolerance) {
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
    const double lost = (static_cast<double>(max_degree) + 1) *
                        (1.0 / static_cast<double>(eps) + static_cast<double>(n) * rank_ulp);
    const double teleport_short = static_cast<double>(n) * rank_ulp;
    const double y_min = dangling == 0 ? 1.0 : (1 - d) * (1 + d * (n - dangling) / static_cast<double>(n));
    return 2 * (residual_left + lost + teleport_short) / ((1 - d) * y_min) + oracle_error(d);
}

} // namespace canopy::workloads::graph
