// Generators; docs/graph.md has the same definitions in prose, draw by draw.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "canopy/workloads/graph/generate.hpp"

namespace canopy::workloads::graph {

namespace {
// Streams of draw(): one per use, so that changing one use never shifts another's values.
constexpr std::uint64_t stream_kron_bits = 1, stream_kron_weight = 2, stream_kron_perm = 3,
                        stream_uniform_ends = 4, stream_uniform_weight = 5;

constexpr weight_t weight_1_255(std::uint64_t x) { return static_cast<weight_t>(1 + x % 255); }
} // namespace

edge_list kronecker_edges(const kronecker_params& p) {
    if (p.scale < 1 || p.scale > 31) {
        throw std::invalid_argument("kronecker: scale must be 1..31 (32-bit vertex ids), got " +
                                    std::to_string(p.scale));
    }
    if (p.edge_factor < 1) {
        throw std::invalid_argument("kronecker: edge factor must be at least 1");
    }
    if (!(p.a > 0 && p.b >= 0 && p.c >= 0 && p.a + p.b + p.c < 1)) {
        throw std::invalid_argument("kronecker: need a > 0, b, c >= 0 and a + b + c < 1");
    }
    const std::uint64_t n = std::uint64_t{1} << p.scale;
    const std::uint64_t m = n * p.edge_factor;
    // Graph500's reference generator (kronecker_generator.m): per bit, the row bit is 1 with probability
    // 1 - (a + b); given it, the column bit is 1 with probability c / (1 - (a + b)) after a 1 row bit
    // and b / (a + b) after a 0 — so the quadrant probabilities are a, b, c, d.
    const double ab = p.a + p.b;
    const double c_norm = p.c / (1 - ab);
    const double a_norm = p.a / ab;
    // The vertex permutation: Fisher-Yates from the top, swap k with draw(seed, 3, k) mod (k + 1).
    std::vector<vertex_id> perm(n);
    std::iota(perm.begin(), perm.end(), vertex_id{0});
    for (std::uint64_t k = n - 1; k > 0; --k) {
        std::swap(perm[k], perm[draw(p.seed, stream_kron_perm, k) % (k + 1)]);
    }
    edge_list list;
    list.num_vertices = n;
    list.undirected = true;
    list.weighted = true;
    list.edges.resize(m);
    for (std::uint64_t e = 0; e < m; ++e) {
        std::uint64_t i = 0, j = 0;
        for (unsigned bit = 0; bit < p.scale; ++bit) {
            const std::uint64_t idx = e * 64 + std::uint64_t{2} * bit;
            const bool ii = draw_unit(p.seed, stream_kron_bits, idx) > ab;
            const bool jj = draw_unit(p.seed, stream_kron_bits, idx + 1) > (ii ? c_norm : a_norm);
            i |= static_cast<std::uint64_t>(ii) << bit;
            j |= static_cast<std::uint64_t>(jj) << bit;
        }
        list.edges[e] = {perm[i], perm[j], weight_1_255(draw(p.seed, stream_kron_weight, e))};
    }
    return list;
}

built_graph make_kronecker(const kronecker_params& p, const build_options& options) {
    return build_csr(kronecker_edges(p), options);
}

edge_list grid_edges(std::uint32_t rows, std::uint32_t cols) {
    if (static_cast<std::uint64_t>(rows) * cols > max_vertices) {
        throw std::invalid_argument("grid: rows * cols must fit 32-bit vertex ids");
    }
    edge_list list;
    list.num_vertices = static_cast<std::uint64_t>(rows) * cols;
    list.undirected = true;
    list.weighted = true;
    for (std::uint32_t r = 0; r < rows; ++r) {
        for (std::uint32_t c = 0; c < cols; ++c) {
            const vertex_id v = r * cols + c;
            if (c + 1 < cols) {
                list.edges.push_back({v, v + 1, r + 1});
            }
            if (r + 1 < rows) {
                list.edges.push_back({v, v + cols, 3});
            }
        }
    }
    return list;
}

built_graph make_grid(std::uint32_t rows, std::uint32_t cols) { return build_csr(grid_edges(rows, cols)); }

std::uint64_t grid_level(std::uint32_t r0, std::uint32_t c0, std::uint32_t r, std::uint32_t c) {
    return (r > r0 ? r - r0 : r0 - r) + static_cast<std::uint64_t>(c > c0 ? c - c0 : c0 - c);
}

distance_t grid_distance(std::uint32_t r0, std::uint32_t c0, std::uint32_t r, std::uint32_t c) {
    const std::uint64_t dc = c > c0 ? c - c0 : c0 - c;
    distance_t best = infinite_distance;
    for (std::uint64_t k = 0; k <= std::min(r0, r); ++k) {
        best = std::min<distance_t>(best, dc * (k + 1) + 3 * (std::uint64_t{r0} + r - 2 * k));
    }
    return best;
}

edge_list uniform_edges(const uniform_params& p) {
    if (p.vertices == 0 || p.vertices > max_vertices) {
        throw std::invalid_argument("uniform: need 1 .. 2^32 - 1 vertices");
    }
    edge_list list;
    list.num_vertices = p.vertices;
    list.undirected = !p.directed;
    list.weighted = true;
    list.edges.resize(p.edges);
    for (std::uint64_t e = 0; e < p.edges; ++e) {
        list.edges[e] = {static_cast<vertex_id>(draw(p.seed, stream_uniform_ends, 2 * e) % p.vertices),
                         static_cast<vertex_id>(draw(p.seed, stream_uniform_ends, 2 * e + 1) % p.vertices),
                         weight_1_255(draw(p.seed, stream_uniform_weight, e))};
    }
    return list;
}

built_graph make_uniform(const uniform_params& p, const build_options& options) {
    return build_csr(uniform_edges(p), options);
}

} // namespace canopy::workloads::graph
