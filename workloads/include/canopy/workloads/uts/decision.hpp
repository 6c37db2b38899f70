// canopy/workloads/uts/decision.hpp — a node's child count decided by integer comparisons only.
//
// Why: the double rules (rules.hpp) floor log(1-u)/log(1-p); CUDA's libdevice and AMD's OCML differ
// from glibc by an ulp or two, and an ulp near an integer flips the floor, so a GPU run could count a
// different tree. The host therefore turns the rules, evaluated with its own libm exactly as the
// sequential reference evaluates them, into per-height integer thresholds on the node's 31-bit random
// value r; a task compares r with them and touches no floating point.
//
// Why thresholds are exact: u = r / 2^31 is exact, 1 - u is exact (u is a multiple of 2^-31 in [0, 1)),
// so L(r) = log(1 - u) is non-increasing in r as long as the host's log is monotone on those 2^31
// points (glibc's is: UtsDecision.HostLogIsMonotoneOnEveryRandomValue checks all of them when
// CANOPY_UTS_EXHAUSTIVE=1). Dividing by the height's constant c = log(1 - p) < 0 is correctly
// rounded, hence monotone, so the quotient q(r) is non-decreasing and floor(q(r)) >= k exactly from
// the smallest r with q(r) >= k on: a binary search over r with the rule's own double expression
// finds it, and no ulp argument is needed.
//
// A row (one height, or a run of heights with equal rows) is {base, cut, above, t_1 .. t_100}:
//   children(r) = r >= cut ? above : base + #{k : t_k <= r}      (2^31 means "never")
// GEO:      base 0, t_k the first r with q(r) >= k (k = 1 .. MAXNUMCHILDREN: the reference's truncation),
//           cut the first r with q(r) >= 2^31: there the reference's (int) cast of floor(q) is out of
//           range, undefined in C++; x86 (cvttsd2si) gives INT_MIN, a leaf, where CUDA would saturate
//           to 100 children. rules.hpp's floor_to_int_as_x86 spells x86's answer out, and `above` is
//           what it gives there, so the table follows the oracle (it only occurs for b_i of about 10^8
//           and more).
//           c not finite and negative (b_i = 0: p = 1 and c = -inf; b_i = inf or NaN; b_i < 0): every r
//           gives a quotient of +-0, NaN, -inf or <= 0, all of them 0 children or less: a leaf row.
// BIN:      base = m (truncated as the reference does), cut = the first r with !(toProb(r) < q), above 0.
// BIN root, BALANCED: a constant (base), independent of r.
// A count <= 0 is stored as 0: both traversals treat n <= 0 as a leaf.
//
// Heights: rows are run-length encoded by height (segments). The table ends after the first row in
// which every r gives a leaf (no node is deeper), or is open-ended when every deeper height follows the
// BIN rule (BIN trees and HYBRID's lower part: those rows do not depend on the height). EXPDEC never
// reaches an all-leaf row (b_i decays as a power law), nor do LINEAR, FIXED or CYCLIC trees with a huge
// -d in a useful number of rows, so the table stops at `max_rows` segments (default 4096, at most
// 1.7 MB); a node deeper than the table fails the run with a clear error instead of being guessed.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "canopy/platform/config.hpp"
#include "canopy/workloads/uts/rules.hpp"

namespace canopy::workloads::uts {

/// 2^31: above every 31-bit random value, so a threshold of `never` is never reached.
inline constexpr std::uint32_t never = 0x80000000u;
/// Words of one row: [0] base, [1] cut, [2] above, [3] unused (keeps the thresholds 16-byte aligned),
/// then t_1 .. t_MAXNUMCHILDREN, non-decreasing.
inline constexpr unsigned row_header = 4;
inline constexpr unsigned row_words = row_header + max_children;
inline constexpr unsigned default_max_rows = 4096;
/// `limit` of a table whose last row holds for every deeper height.
inline constexpr std::uint32_t open_ended = 0xffffffffu;

/// What a task reads: pointers into one buffer (device memory in a run, host memory in the tests).
struct decision_view {
    const std::uint32_t* starts = nullptr; // first height of each segment, ascending; starts[0] = 0
    const std::uint32_t* rows = nullptr;   // segments x row_words
    std::uint32_t segments = 0;
    std::uint32_t limit = 0; // heights >= limit are not in the table (open_ended: none)
};

/// The child count of a node at `height` with random value `r` (rng_rand), or -1 if the height is
/// beyond the table (the caller fails the run). Integer comparisons only. The table is written before
/// the launch and only read during it, so plain loads (not canopy::ld) suffice: there is nothing to
/// synchronize, and they add no scheduling point and no modeled access to the emulator's runs, just as
/// the double formula they replace had none (the HRF experiment's cost model is unchanged).
CANOPY_HOST_DEVICE inline int decide_children(const decision_view& t, int height, int r) {
    const auto h = static_cast<std::uint32_t>(height);
    if (h >= t.limit) {
        return -1;
    }
    std::uint32_t lo = 0, hi = t.segments; // the last segment starting at or before h
    while (hi - lo > 1) {
        const std::uint32_t mid = (lo + hi) / 2;
        if (t.starts[mid] <= h) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    const std::uint32_t* row = t.rows + static_cast<std::size_t>(lo) * row_words;
    const auto x = static_cast<std::uint32_t>(r);
    if (x >= row[1]) {
        return static_cast<int>(row[2]);
    }
    std::uint32_t a = 0, b = max_children; // how many thresholds are <= x
    while (a < b) {
        const std::uint32_t mid = (a + b) / 2;
        if (row[row_header + mid] <= x) {
            a = mid + 1;
        } else {
            b = mid;
        }
    }
    return static_cast<int>(row[0]) + static_cast<int>(a);
}

/// The host's table: `words` = starts (segments words, padded to a multiple of 4) then the rows.
struct decision_table {
    std::vector<std::uint32_t> words;
    std::uint32_t segments = 0;
    std::uint32_t limit = 0;
    std::size_t rows_offset() const { return (static_cast<std::size_t>(segments) + 3) / 4 * 4; }
    /// A view of the table at `base` (a copy of `words`: host or device memory).
    decision_view view(const std::uint32_t* base) const {
        return {base, base + rows_offset(), segments, limit};
    }
    decision_view host_view() const { return view(words.data()); }
    std::uint32_t first_height(std::uint32_t s) const { return words[s]; }
    const std::uint32_t* row(std::uint32_t s) const { return words.data() + rows_offset() + s * row_words; }
};

namespace detail {

/// A state whose rand() is r (rng_rand reads bytes 16..19 only).
inline node_state state_with_rand(int r) {
    node_state s{};
    const auto x = static_cast<std::uint32_t>(r);
    s.b[16] = std::uint8_t(x >> 24);
    s.b[17] = std::uint8_t(x >> 16);
    s.b[18] = std::uint8_t(x >> 8);
    s.b[19] = std::uint8_t(x);
    return s;
}

/// The type a node at height h carries (the root's, or its parent's child_type).
inline tree_type type_at(const params& p, int h) { return h == 0 ? root_type(p) : child_type(p, h - 1); }

} // namespace detail

/// The oracle: the reference's double rule for a node at height h with random value r, as a traversal
/// uses it (n <= 0 is a leaf either way, so it is 0 here).
inline int reference_children(const params& p, int h, int r) {
    const int n = num_children(p, detail::state_with_rand(r), h, detail::type_at(p, h));
    return n > 0 ? n : 0;
}

namespace detail {

enum class rule_kind { constant, bin, geo };

/// Which rule num_children applies at height h (its switch on the tree's type, read the same way).
inline rule_kind rule_at(const params& p, int h) {
    switch (p.type) {
    case tree_type::bin: return h == 0 ? rule_kind::constant : rule_kind::bin;
    case tree_type::geo: return rule_kind::geo;
    case tree_type::hybrid: return h < p.shift_depth * p.gen_mx ? rule_kind::geo : rule_kind::bin;
    case tree_type::balanced: return rule_kind::constant;
    }
    return rule_kind::constant;
}

/// The smallest r in [lo, 2^31) with pred(r), pred monotone (false, then true); `never` if none.
template <class Pred> std::uint32_t first_true(std::uint32_t lo, Pred pred) {
    std::uint32_t hi = never;
    if (lo >= hi || !pred(static_cast<int>(hi - 1))) {
        return never;
    }
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (pred(static_cast<int>(mid))) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

using row_t = std::vector<std::uint32_t>;

inline row_t leaf_row() {
    row_t row(row_words, never);
    row[0] = 0;
    row[2] = 0;
    row[3] = 0;
    return row;
}

inline row_t build_row(const params& p, int h) {
    row_t row = leaf_row();
    switch (rule_at(p, h)) {
    case rule_kind::constant: row[0] = static_cast<std::uint32_t>(reference_children(p, h, 0)); break;
    case rule_kind::bin: {
        const std::uint32_t cut = first_true(0, [&](int r) { return !(to_prob(r) < p.q); });
        row[1] = cut;
        row[0] = cut > 0 ? static_cast<std::uint32_t>(reference_children(p, h, 0)) : 0;
        row[2] =
            cut < never ? static_cast<std::uint32_t>(reference_children(p, h, static_cast<int>(cut))) : 0;
        break;
    }
    case rule_kind::geo: {
        const double c = geo_log_keep(p, h);
        if (!(c < 0.0 && std::isfinite(c))) {
            break; // see the header: every r gives a leaf
        }
        std::uint32_t t = 0;
        for (int k = 1; k <= max_children; ++k) {
            const double kd = k;
            t = first_true(t, [&](int r) { return geo_quotient(p, h, r) >= kd; });
            row[row_header + k - 1] = t;
        }
        const std::uint32_t cut = first_true(t, [&](int r) { return geo_quotient(p, h, r) >= 2147483648.0; });
        row[1] = cut;
        row[2] =
            cut < never ? static_cast<std::uint32_t>(reference_children(p, h, static_cast<int>(cut))) : 0;
        break;
    }
    }
    return row;
}

inline bool all_leaf(const row_t& row) {
    const bool below = row[1] == 0 || (row[0] == 0 && row[row_header] >= row[1]);
    return below && (row[1] == never || row[2] == 0);
}

/// The r at which a row's decision may change, and their left neighbours, plus both ends.
inline std::vector<int> boundaries(const std::uint32_t* row) {
    std::vector<int> v = {0, static_cast<int>(never - 1)};
    auto add = [&](std::uint32_t b) {
        if (b < never) {
            v.push_back(static_cast<int>(b));
            if (b > 0) {
                v.push_back(static_cast<int>(b - 1));
            }
        }
    };
    add(row[1]);
    for (unsigned k = 0; k < max_children; ++k) {
        add(row[row_header + k]);
    }
    return v;
}

} // namespace detail

/// Compares the table with the double rule at height h on both sides of every step of its row (where
/// an ulp would matter) and at both ends of r's range, after checking that the row's thresholds are
/// sorted (decide_children counts them by binary search); "" if all holds, else the first difference.
inline std::string check_boundaries(const params& p, const decision_table& t, int h) {
    const decision_view v = t.host_view();
    if (static_cast<std::uint32_t>(h) >= t.limit) {
        return "height " + std::to_string(h) + " is beyond the table";
    }
    std::uint32_t s = 0;
    while (s + 1 < t.segments && t.first_height(s + 1) <= static_cast<std::uint32_t>(h)) {
        ++s;
    }
    const std::uint32_t* row = t.row(s);
    for (unsigned k = 1; k < max_children; ++k) { // the count is a binary search: sorted thresholds
        if (row[row_header + k] < row[row_header + k - 1]) {
            return "height " + std::to_string(h) + ": threshold " + std::to_string(k + 1) +
                   " is below threshold " + std::to_string(k);
        }
    }
    for (int r : detail::boundaries(row)) {
        const int want = reference_children(p, h, r), got = decide_children(v, h, r);
        if (want != got) {
            return "height " + std::to_string(h) + ", r " + std::to_string(r) + ": the rule gives " +
                   std::to_string(want) + " children, the table " + std::to_string(got);
        }
    }
    return {};
}

/// Builds the table of `p` (see the header). `max_rows` bounds the distinct rows; a tree that needs
/// more ends its table there, and a node deeper fails the run.
inline decision_table build_decision_table(const params& p, unsigned max_rows = default_max_rows) {
    std::vector<std::uint32_t> starts;
    std::vector<detail::row_t> rows;
    std::uint32_t limit = 0;
    // A bound on the heights scanned: FIXED and BALANCED rows repeat up to -d (at most 10^6 by the
    // flags), cheaply; only a params struct set by hand could go further.
    constexpr int max_scan = 1 << 24;
    double prev_b = 0;
    bool have_prev_geo = false;
    for (int h = 0;; ++h) {
        if (h >= max_scan) {
            limit = static_cast<std::uint32_t>(h);
            break;
        }
        detail::row_t row;
        const detail::rule_kind kind = detail::rule_at(p, h);
        // A GEO row depends on the height only through b_i (and h >= 1 truncates like h = 0 for a
        // GEO node): FIXED's rows repeat without another search.
        const double b = kind == detail::rule_kind::geo ? geo_branching(p, h) : 0.0;
        if (kind == detail::rule_kind::geo && have_prev_geo && std::memcmp(&b, &prev_b, sizeof b) == 0) {
            row = rows.back();
        } else {
            row = detail::build_row(p, h);
        }
        have_prev_geo = kind == detail::rule_kind::geo;
        prev_b = b;
        if (rows.empty() || row != rows.back()) {
            if (rows.size() >= max_rows) {
                limit = static_cast<std::uint32_t>(h);
                break;
            }
            starts.push_back(static_cast<std::uint32_t>(h));
            rows.push_back(std::move(row));
        }
        if (kind == detail::rule_kind::bin && h >= 1) {
            limit = open_ended; // BIN from here on (the HYBRID test on h is monotone): the same row
            break;
        }
        if (detail::all_leaf(rows.back())) {
            limit = static_cast<std::uint32_t>(h) + 1; // no node is deeper than h
            break;
        }
    }
    decision_table t;
    t.segments = static_cast<std::uint32_t>(rows.size());
    t.limit = limit;
    t.words.assign(t.rows_offset() + rows.size() * row_words, 0);
    for (std::size_t s = 0; s < rows.size(); ++s) {
        t.words[s] = starts[s];
        std::memcpy(t.words.data() + t.rows_offset() + s * row_words, rows[s].data(),
                    row_words * sizeof(std::uint32_t));
    }
    // A cheap guard at every segment's first height: the runtime never runs on a table that
    // disagrees with the oracle where it could (the tests check every height and random r).
    for (std::uint32_t s = 0; s < t.segments; ++s) {
        const std::string e = check_boundaries(p, t, static_cast<int>(t.first_height(s)));
        if (!e.empty()) {
            throw std::logic_error("canopy uts: the child-count table disagrees with the rules at " + e);
        }
    }
    return t;
}

} // namespace canopy::workloads::uts
