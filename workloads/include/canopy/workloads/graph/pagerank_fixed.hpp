// canopy/workloads/graph/pagerank_fixed.hpp — PageRank's 64-bit fixed-point arithmetic, shared by the
// kernels (pagerank.hpp) and the host oracle (pagerank_reference.hpp) so that both compute the same
// integers by construction.
//
// Format: an unsigned 64-bit integer x stands for x / 2^60 (rank_one == 1.0). Why fixed point:
// integer atomic adds are associative and commutative, so every order in which lanes push to an
// accumulator gives bit-identical sums. The multi-kernel and persistent strategies therefore equal a
// sequential fixed-point power iteration EXACTLY, whatever the schedule, and platform/ needs no float
// atomics (atomic_ref<std::uint64_t> has fetch_add on every backend). Why 2^60: a rank vector sums to
// at most 1 (rounding only loses mass), so every rank, accumulator and residual is at most 2^60, and an
// L1 change at most 2^61: 8x headroom below 2^64. The resolution 2^-60 (8.7e-19) makes the rounding
// of a power iteration ((E + 3V) ulps per iteration, pagerank_reference.hpp) negligible, and it is what
// bounds the tasks strategy's rounding loss per push (a push of a residual r >= epsilon loses at most
// (degree + 1) ulps: relative 1e-9 for epsilon = 1e-4 / 10^5 vertices).
//
// The damping factor d is quantized to a 32-bit fraction d_q = round(d * 2^32) / 2^32 (error below
// 1.2e-10); every oracle, the double-precision one included, uses d_q, so the comparison measures the
// strategies and not the quantization. Products x * d_q are floor(x * d_fx / 2^32), computed exactly in
// 64 bits by splitting x in halves (no 128-bit integers in device code).
//
// constexpr, no platform/ header: the host-only oracle library includes it too (types.hpp's rule).
#pragma once

#include <cstdint>
#include <limits>

#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

using rank_fixed = std::uint64_t;
inline constexpr int rank_fraction_bits = 60;
inline constexpr rank_fixed rank_one = rank_fixed{1} << rank_fraction_bits;
/// One unit in the last place of a fixed-point rank: 2^-60.
inline constexpr double rank_ulp = 1.0 / static_cast<double>(rank_one);

/// d as a 32-bit fraction: round(d * 2^32), clamped to [0, 2^32 - 1] (d in [0, 1)).
constexpr std::uint64_t damping_fixed(double d) {
    const double s = d * 4294967296.0 + 0.5;
    return s <= 0 ? 0 : s >= 4294967295.0 ? 4294967295ull : static_cast<std::uint64_t>(s);
}
/// The damping factor the fixed-point strategies actually use (exact in a double).
constexpr double damping_quantized(double d) { return static_cast<double>(damping_fixed(d)) / 4294967296.0; }

/// floor(x * f / 2^32), exact for every 64-bit x and f < 2^32: x = h * 2^32 + l gives f * h + floor(f * l
/// / 2^32), and f * h, f * l < 2^64.
constexpr rank_fixed mul_frac(rank_fixed x, std::uint64_t f) {
    return f * (x >> 32) + ((f * (x & 0xffffffffull)) >> 32);
}

/// What a vertex of rank (or residual) x pushes along each of its deg > 0 out-arcs:
/// floor(floor(x * d_q) / deg).
constexpr rank_fixed push_share(rank_fixed x, std::uint64_t d_fx, edge_id deg) {
    return mul_frac(x, d_fx) / deg;
}

/// The tasks' residuals and ranks are signed (a warm start leaves residuals of either sign, pagerank.hpp):
/// two's complement in the same 64-bit words, so that the atomics stay unsigned fetch_adds (modular
/// addition is the same bits for both readings). |x| <= 2^62 throughout: 4x headroom.
using signed_rank = std::int64_t;
constexpr signed_rank as_signed(rank_fixed x) { return static_cast<signed_rank>(x); }
constexpr rank_fixed as_word(signed_rank x) { return static_cast<rank_fixed>(x); }
constexpr rank_fixed magnitude(signed_rank x) { return x < 0 ? rank_fixed{0} - as_word(x) : as_word(x); }

/// The tasks' residual word (pagerank.hpp): twice the signed residual, and in bit 0 the pending flag
/// (a task for the vertex is queued and has not taken the residual yet). A push adds twice its share,
/// an even number, which never carries into or out of bit 0; a take exchanges 0 (no residual, no
/// flag). |2 r| <= 2^63 - 1 holds with room: |r| <= 2^62 (above).
inline constexpr rank_fixed residual_flag = 1;
constexpr rank_fixed residual_word(signed_rank r) { return as_word(r) << 1; }
/// The signed residual a word holds (an arithmetic shift: two's complement, defined since C++20).
constexpr signed_rank residual_of(rank_fixed word) { return as_signed(word) >> 1; }

/// push_share of a signed residual, rounded toward zero: sign(t) * floor(floor(|t| d_q) / deg). The
/// mass it loses, |d_q t - deg * share|, is below (deg + 1) ulp as for a non-negative t.
constexpr signed_rank signed_push_share(signed_rank t, std::uint64_t d_fx, edge_id deg) {
    const signed_rank s = as_signed(push_share(magnitude(t), d_fx, deg));
    return t < 0 ? -s : s;
}

/// The teleport term of every vertex: floor((1 - d_q) / V) (rank_one * (1 - d_q) is exact: 2^28 * (2^32 -
/// d_fx)).
constexpr rank_fixed teleport_share(std::uint64_t d_fx, vertex_id n) {
    return n == 0 ? 0 : ((std::uint64_t{4294967296ull} - d_fx) << (rank_fraction_bits - 32)) / n;
}

/// The power iteration's initial rank of every vertex: floor(1 / V).
constexpr rank_fixed initial_rank(vertex_id n) { return n == 0 ? 0 : rank_one / n; }

/// The tasks strategy's threshold for an L1 tolerance: epsilon = max(1 ulp, floor(tolerance / V)).
constexpr rank_fixed residual_threshold(double tolerance, vertex_id n) {
    const double e = n == 0 ? 0 : tolerance / static_cast<double>(n) * static_cast<double>(rank_one);
    return e < 1 ? 1 : e >= 9.2e18 ? rank_fixed{1} << 63 : static_cast<rank_fixed>(e);
}

/// The tasks strategy's tolerance when pagerank_options::tolerance is 0: residual push has no iteration
/// count. 1e-4 gives an L1 error below 2e-4 / (1 - d) = 1.3e-3 without dangling vertices (pagerank.hpp).
inline constexpr double pagerank_tasks_default_tolerance = 1e-4;

/// A lower bound on |y|_1, the tasks' unnormalised solution (pagerank.hpp): 1 without dangling vertices
/// (then |y|_1 = 1), else (1 - d)(1 + d V_nondangling / V) (every y_v >= (1 - d) / V). d: the quantized
/// damping.
constexpr double pagerank_y_min(double d, vertex_id n, vertex_id dangling) {
    return dangling == 0 ? 1.0
                         : (1 - d) * (1 + d * static_cast<double>(n - dangling) / static_cast<double>(n));
}

/// What a tasks run measures at the end of a round (pagerank.hpp's pr_tasks_sums_kernel), in ulps.
struct pagerank_tasks_measure {
    rank_fixed residual_left = 0; // sum over v of |r_v|
    rank_fixed rank_abs = 0;      // sum of |p_v|
    rank_fixed rank_sum = 0;      // sum of p_v (two's complement)
    std::uint64_t takes = 0;      // tasks run so far: at least the vertex tasks, each of which takes once
    edge_id max_degree = 0;
    vertex_id dangling = 0; // vertices without an out-arc
    vertex_id vertices = 0;
};

/// The L1 error against x* that a tasks run guarantees from what it measured (pagerank.hpp, "Error
/// bound", a posteriori). y = p + q with |q|_1 <= Q = (R + L + V ulp) / (1 - d): R the residual left
/// itself (not its ceiling V epsilon), L = (maxdeg + 1) ulp per take and per vertex of the warm start.
/// The run returns p / s, s = sum p (measured). Without dangling vertices y = x* (sum 1), so
/// |p / s - x*|_1 <= |p / s - p|_1 + |p - y|_1 <= |p|_1 |1 - s| / s + Q, and the first term is measured.
/// With them, Y = |y|_1 is unknown but at least s - Q (|sum q| <= Q), and
/// |p / s - y / Y|_1 <= (|p|_1 / s) |s - Y| / Y + |q|_1 / Y <= (|p|_1 / s + 1) Q / (s - Q).
/// Infinite when s <= Q (nothing to normalise by).
constexpr double pagerank_tasks_measured_guarantee(const pagerank_tasks_measure& m, double damping) {
    if (m.vertices == 0) {
        return 0;
    }
    const double d = damping_quantized(damping);
    const double n = static_cast<double>(m.vertices);
    const double s = static_cast<double>(as_signed(m.rank_sum)) * rank_ulp;
    const double p_abs = static_cast<double>(m.rank_abs) * rank_ulp;
    const double lost = (static_cast<double>(m.max_degree) + 1) * (static_cast<double>(m.takes) + n);
    const double q = (static_cast<double>(m.residual_left) + lost + n) * rank_ulp / (1 - d);
    if (!(s > q)) {
        return std::numeric_limits<double>::infinity();
    }
    if (m.dangling == 0) {
        return p_abs * (s > 1 ? s - 1 : 1 - s) / s + q;
    }
    return (p_abs / s + 1) * q / (s - q);
}

/// The CLI's PageRank stopping rule: the L1 error of the normalised ranks against the converged ranks
/// x* that every strategy guarantees (pagerank_reference.hpp: pagerank_stopping_for_error). One number
/// that means the same for each strategy, so that their times compare at equal accuracy.
inline constexpr double pagerank_default_error = 1e-4;

/// A fixed-point value as a double (x < 2^61: a relative error of at most 2^-53).
constexpr double rank_to_double(rank_fixed x) { return static_cast<double>(x) * rank_ulp; }

} // namespace canopy::workloads::graph
