// canopy/workloads/uts/rules.hpp — the UTS rules, bit-exact (notes/uts-reference.md): the parameters,
// the SHA-1 random stream (root and child states, rand, toProb) and the child-count rules of BIN, GEO
// (LINEAR, EXPDEC, CYCLIC, FIXED), HYBRID and BALANCED trees, in IEEE double (no fast-math anywhere).
// Everything here is CANOPY_HOST_DEVICE, but only the hashing runs in the runtime's tasks: they take the
// child count from decision.hpp's integer table, built on the host from these double rules, because a
// device's log/pow/sin may differ from glibc's by an ulp and flip a floor. The sequential reference
// keeps the double rules: it is the oracle the table is tested against.
#pragma once

#include <cmath>
#include <cstdint>

#include "canopy/platform/config.hpp"
#include "canopy/workloads/uts/sha1.hpp"

namespace canopy::workloads::uts {

enum class tree_type : int { bin = 0, geo = 1, hybrid = 2, balanced = 3 };
enum class geo_shape : int { linear = 0, expdec = 1, cyclic = 2, fixed = 3 };

inline constexpr int max_children = 100; // MAXNUMCHILDREN

/// The reference's parameters, with its defaults (-t 1 -a 0 -d 6 -b 4 -r 0 -q 15/64 -m 4 -f 0.5 -g 1).
struct params {
    tree_type type = tree_type::geo;     // -t
    geo_shape shape = geo_shape::linear; // -a
    int gen_mx = 6;                      // -d
    double b0 = 4.0;                     // -b
    int root_seed = 0;                   // -r
    double q = 15.0 / 64.0;              // -q (BIN non-leaf probability)
    int m = 4;                           // -m (BIN non-leaf branching factor)
    double shift_depth = 0.5;            // -f (HYBRID)
    int granularity = 1;                 // -g (repeat each spawn hash; cost only)
};

/// A node's state: a 20-byte SHA-1 digest.
struct node_state {
    std::uint8_t b[20];
};

/// Root: SHA1(16 zero bytes || seed big-endian).
CANOPY_HOST_DEVICE inline node_state root_state(int seed) {
    std::uint8_t msg[20] = {};
    const auto s = static_cast<std::uint32_t>(seed);
    msg[16] = std::uint8_t(s >> 24);
    msg[17] = std::uint8_t(s >> 16);
    msg[18] = std::uint8_t(s >> 8);
    msg[19] = std::uint8_t(s);
    node_state out;
    sha1_short(msg, 20, out.b);
    return out;
}

/// Child i: SHA1(parent state || i big-endian).
CANOPY_HOST_DEVICE inline node_state child_state(const node_state& parent, unsigned i) {
    std::uint8_t msg[24];
    for (unsigned k = 0; k < 20; ++k) {
        msg[k] = parent.b[k];
    }
    msg[20] = std::uint8_t(i >> 24);
    msg[21] = std::uint8_t(i >> 16);
    msg[22] = std::uint8_t(i >> 8);
    msg[23] = std::uint8_t(i);
    node_state out;
    sha1_short(msg, 24, out.b);
    return out;
}

/// Child i computed `granularity` times (the reference's -g: cost only, same result).
CANOPY_HOST_DEVICE inline node_state spawn_state(const node_state& parent, unsigned i, int granularity) {
    node_state out = child_state(parent, i);
    for (int g = 1; g < granularity; ++g) {
        const node_state again = child_state(parent, i);
        out.b[g % 20] = again.b[g % 20]; // a data dependence, so the repeat is not optimized away
    }
    return out;
}

CANOPY_HOST_DEVICE inline int rng_rand(const node_state& s) {
    const std::uint32_t r = (std::uint32_t(s.b[16]) << 24) | (std::uint32_t(s.b[17]) << 16) |
                            (std::uint32_t(s.b[18]) << 8) | std::uint32_t(s.b[19]);
    return static_cast<int>(r & 0x7fffffffu);
}

CANOPY_HOST_DEVICE inline double to_prob(int r) { return static_cast<double>(r) / 2147483648.0; }

CANOPY_HOST_DEVICE inline int num_children_bin(const params& p, const node_state& s) {
    return to_prob(rng_rand(s)) < p.q ? p.m : 0;
}

/// GEO's expected branching factor b_i at a node's height (`depth`).
CANOPY_HOST_DEVICE inline double geo_branching(const params& p, int depth) {
    double b_i = p.b0;
    if (depth > 0) {
        const double d = static_cast<double>(depth);
        const double mx = static_cast<double>(p.gen_mx);
        switch (p.shape) {
        case geo_shape::expdec: b_i = p.b0 * ::pow(d, -::log(p.b0) / ::log(mx)); break;
        case geo_shape::cyclic:
            if (depth > 5 * p.gen_mx) {
                b_i = 0.0;
                break;
            }
            b_i = ::pow(p.b0, ::sin(2.0 * 3.141592653589793 * d / mx));
            break;
        case geo_shape::fixed: b_i = depth < p.gen_mx ? p.b0 : 0; break;
        case geo_shape::linear:
        default: b_i = p.b0 * (1.0 - d / mx); break;
        }
    }
    return b_i;
}

/// GEO's denominator log(1 - p), p = 1/(1 + b_i): fixed per height (decision.hpp sorts on its sign).
CANOPY_HOST_DEVICE inline double geo_log_keep(const params& p, int depth) {
    const double prob = 1.0 / (1.0 + geo_branching(p, depth));
    return ::log(1 - prob);
}

/// GEO's quotient log(1 - u)/log(1 - p) for the 31-bit random value r (u = toProb(r)); the child count
/// is its floor. Split out so that decision.hpp searches exactly the value the rule floors.
CANOPY_HOST_DEVICE inline double geo_quotient(const params& p, int depth, int r) {
    const double u = to_prob(r);
    return ::log(1 - u) / geo_log_keep(p, depth);
}

/// The reference's `(int) floor(q)`. For NaN or a floor outside int's range that cast is undefined
/// in C and C++ (clang's UBSan reports it: float-cast-overflow); x86-64's cvttsd2si, where the published
/// counts were made, gives INT_MIN (the "integer indefinite" value: a leaf), while a GPU's conversion
/// saturates or gives 0. Spelled out so that every compiler, backend and sanitizer computes x86's answer.
CANOPY_HOST_DEVICE inline int floor_to_int_as_x86(double q) {
    const double f = ::floor(q);
    if (!(f >= -2147483648.0 && f < 2147483648.0)) { // NaN fails both comparisons
        return -2147483647 - 1;
    }
    return static_cast<int>(f);
}

/// The double formula: the sequential reference's rule. The runtime decides by decision.hpp's
/// integer thresholds instead, which give the same counts on every backend.
CANOPY_HOST_DEVICE inline int num_children_geo(const params& p, const node_state& s, int depth) {
    return floor_to_int_as_x86(geo_quotient(p, depth, rng_rand(s)));
}

/// The type of a node's children (uts_childType: decided by the parent's height).
CANOPY_HOST_DEVICE inline tree_type child_type(const params& p, int parent_height) {
    if (p.type == tree_type::hybrid) {
        return parent_height < p.shift_depth * p.gen_mx ? tree_type::geo : tree_type::bin;
    }
    return p.type;
}

/// The root's type (uts_initRoot: the tree's type).
CANOPY_HOST_DEVICE inline tree_type root_type(const params& p) { return p.type; }

/// A node's child count, truncated as the reference does.
CANOPY_HOST_DEVICE inline int num_children(const params& p, const node_state& s, int height, tree_type type) {
    int n = 0;
    switch (p.type) {
    case tree_type::bin: n = height == 0 ? static_cast<int>(::floor(p.b0)) : num_children_bin(p, s); break;
    case tree_type::geo: n = num_children_geo(p, s, height); break;
    case tree_type::hybrid:
        n = height < p.shift_depth * p.gen_mx ? num_children_geo(p, s, height) : num_children_bin(p, s);
        break;
    case tree_type::balanced: n = height < p.gen_mx ? static_cast<int>(p.b0) : 0; break;
    }
    if (height == 0 && type == tree_type::bin) {
        const int root_bf = static_cast<int>(::ceil(p.b0));
        if (n > root_bf) {
            n = root_bf;
        }
    } else if (p.type != tree_type::balanced) {
        if (n > max_children) {
            n = max_children;
        }
    }
    return n;
}

} // namespace canopy::workloads::uts
