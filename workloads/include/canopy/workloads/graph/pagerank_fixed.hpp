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

/// The CLI's PageRank stopping rule: the L1 error of the normalised ranks against the converged ranks
/// x* that every strategy guarantees (pagerank_reference.hpp: pagerank_stopping_for_error). One number
/// that means the same for each strategy, so that their times compare at equal accuracy.
inline constexpr double pagerank_default_error = 1e-4;

/// A fixed-point value as a double (x < 2^61: a relative error of at most 2^-53).
constexpr double rank_to_double(rank_fixed x) { return static_cast<double>(x) * rank_ulp; }

} // namespace canopy::workloads::graph
