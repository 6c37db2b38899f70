// UTS's integer child-count decision (canopy/workloads/uts/decision.hpp) against the double rules of
// rules.hpp, the oracle: at both sides of every threshold of every height (where an ulp would flip a
// floor), at random values, in the corners (b_i = 0, inf, NaN, negative, and quotients past INT_MAX),
// and through the runtime (counts equal to the sequential reference's; a node deeper than the table
// fails the run).
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"

namespace {

namespace uts = canopy::workloads::uts;
namespace rt = canopy::runtime;

/// Every sample tree and, beyond them, every shape and type with various -b -d -q -m -f, and the
/// corners: b_0 = 0 (p = 1), gen_mx = 1 under EXPDEC (log(1) = 0 in the exponent), growing EXPDEC
/// (b_0 < 1), b_0 = 10^8 and 10^9 (quotients past 2^31), q = 0 and 1, m = 0, -f 0 and -f 2.
std::vector<std::string> parameter_sets() {
    std::vector<std::string> v;
    for (const auto& t : uts::sample_trees()) {
        v.emplace_back(t.flags);
    }
    for (const char* f : {
             "-t 1 -a 0 -d 20 -b 4 -r 3",
             "-t 1 -a 0 -d 7 -b 2.5",
             "-t 1 -a 0 -d 5 -b 0",
             "-t 1 -a 1 -d 6 -b 4",
             "-t 1 -a 1 -d 20 -b 7.5",
             "-t 1 -a 1 -d 6 -b 0.5",
             "-t 1 -a 1 -d 1 -b 4",
             "-t 1 -a 1 -d 1 -b 1",
             "-t 1 -a 1 -d 1 -b 0.5",
             "-t 1 -a 2 -d 16 -b 6",
             "-t 1 -a 2 -d 5 -b 3",
             "-t 1 -a 2 -d 4 -b 0",
             "-t 1 -a 2 -d 3 -b 1",
             "-t 1 -a 3 -d 10 -b 4",
             "-t 1 -a 3 -d 4 -b 99.5",
             "-t 1 -a 3 -d 3 -b 100000000",
             "-t 1 -a 3 -d 3 -b 1000000000",
             "-t 1 -a 3 -d 3 -b 0.000001",
             "-t 0 -b 2000 -q 0.124875 -m 8",
             "-t 0 -b 2.5 -q 0.3 -m 3",
             "-t 0 -b 10 -q 0 -m 4",
             "-t 0 -b 10 -q 1 -m 4",
             "-t 0 -b 10 -q 0.5 -m 0",
             "-t 0 -b 0.5 -q 0.5 -m 2",
             "-t 0 -b 7 -q 0.000000001 -m 100",
             "-t 2 -a 0 -d 16 -b 6 -q 0.234375 -m 4",
             "-t 2 -a 1 -d 10 -b 3 -q 0.2 -m 5",
             "-t 2 -a 2 -d 9 -b 5 -q 0.1 -m 9 -f 0.3",
             "-t 2 -a 0 -d 6 -b 4 -q 0.2 -m 4 -f 0",
             "-t 2 -a 0 -d 6 -b 4 -q 0.2 -m 4 -f 2",
             "-t 2 -a 3 -d 4 -b 8 -q 0.25 -m 3 -f 1",
             "-t 3 -d 5 -b 3",
             "-t 3 -d 4 -b 2.5",
             "-t 3 -d 3 -b 0",
         }) {
        v.emplace_back(f);
    }
    return v;
}

/// The heights worth checking: every one the table covers, and for an open-ended table (a BIN tail)
/// a few past its last row.
int heights_to_check(const uts::decision_table& t) {
    if (t.limit != uts::open_ended) {
        return static_cast<int>(t.limit);
    }
    return static_cast<int>(t.first_height(t.segments - 1)) + 4;
}

TEST(UtsDecision, TableSizesOfTheSampleTrees) {
    // Rows (distinct, run-length encoded by height) and the heights covered ("open": every height).
    struct want {
        const char* name;
        std::uint32_t rows, limit;
    };
    const want wants[] = {
        {"default", 7, 7},
        {"T1", 2, 11},
        {"T2", 82, 82},
        {"T3", 2, uts::open_ended},
        {"T4", 9, uts::open_ended},
        {"T5", 21, 21},
        {"T1L", 2, 14},
        {"T3L", 2, uts::open_ended},
        {"T1XL", 2, 16},
        {"T2L", 117, 117},
        {"T1XXL", 2, 16},
        {"T3XXL", 2, uts::open_ended},
    };
    for (const want& w : wants) {
        const uts::decision_table t = uts::build_decision_table(uts::sample_params(w.name));
        EXPECT_EQ(t.segments, w.rows) << w.name;
        EXPECT_EQ(t.limit, w.limit) << w.name;
        std::printf("%-8s %4u rows, %s heights, %zu bytes\n", w.name, t.segments,
                    t.limit == uts::open_ended ? "all" : std::to_string(t.limit).c_str(),
                    t.words.size() * sizeof(std::uint32_t));
    }
}

TEST(UtsDecision, EveryThresholdIsExactAtItsBoundary) {
    for (const std::string& flags : parameter_sets()) {
        SCOPED_TRACE(flags);
        const uts::params p = uts::parse_flags(flags);
        const uts::decision_table t = uts::build_decision_table(p);
        const uts::decision_view v = t.host_view();
        const int hs = heights_to_check(t);
        ASSERT_GT(hs, 0);
        std::uint32_t s = 0;
        for (int h = 0; h < hs; ++h) {
            while (s + 1 < t.segments && t.first_height(s + 1) <= static_cast<std::uint32_t>(h)) {
                ++s;
            }
            const std::uint32_t* row = t.row(s);
            const std::uint32_t cut = row[1];
            // n(t_k - 1) < k <= n(t_k), the double rule's own counts, for every threshold below the cut.
            for (int k = 1; k <= uts::max_children; ++k) {
                const std::uint32_t tk = row[uts::row_header + k - 1];
                if (tk >= cut) {
                    continue;
                }
                ASSERT_LE(k, uts::reference_children(p, h, static_cast<int>(tk)))
                    << "height " << h << " k " << k;
                if (tk > 0) {
                    ASSERT_LT(uts::reference_children(p, h, static_cast<int>(tk) - 1), k)
                        << "height " << h << " k " << k;
                }
            }
            // The cut: the value changes to `above` exactly there (BIN: m below, 0 from it on).
            if (cut < uts::never && cut > 0) {
                ASSERT_EQ(uts::reference_children(p, h, static_cast<int>(cut)), static_cast<int>(row[2]))
                    << "height " << h;
                ASSERT_EQ(uts::reference_children(p, h, static_cast<int>(cut) - 1),
                          uts::decide_children(v, h, static_cast<int>(cut) - 1))
                    << "height " << h;
            }
            // And the table's values equal the rule's at both sides of every step and both ends.
            const std::string e = uts::check_boundaries(p, t, h);
            ASSERT_TRUE(e.empty()) << e;
        }
    }
}

TEST(UtsDecision, RandomValuesAgreeWithTheDoubleRule) {
    std::mt19937_64 gen(20240610);
    std::uniform_int_distribution<int> rand31(0, 0x7fffffff);
    for (const std::string& flags : parameter_sets()) {
        SCOPED_TRACE(flags);
        const uts::params p = uts::parse_flags(flags);
        const uts::decision_table t = uts::build_decision_table(p);
        const uts::decision_view v = t.host_view();
        std::uniform_int_distribution<int> height(0, heights_to_check(t) - 1);
        for (int i = 0; i < 200000; ++i) {
            const int h = height(gen), r = rand31(gen);
            ASSERT_EQ(uts::decide_children(v, h, r), uts::reference_children(p, h, r))
                << "height " << h << " r " << r;
        }
    }
}

TEST(UtsDecision, CornerRowsAgreeWithTheDoubleRule) {
    // Heights past the table's end, where the rule still gives an answer: LINEAR past -d (b_i < 0:
    // p > 1 gives log of a negative, NaN; b_i = -1 gives p = inf; b_i < -1 gives c > 0), CYCLIC past
    // 5 -d, FIXED past -d (p = 1). All leaves, in the rule and in a row built there.
    for (const char* flags : {"-t 1 -a 0 -d 4 -b 4", "-t 1 -a 0 -d 4 -b 0.5", "-t 1 -a 2 -d 3 -b 5",
                              "-t 1 -a 3 -d 3 -b 5", "-t 1 -a 1 -d 1 -b 4"}) {
        SCOPED_TRACE(flags);
        const uts::params p = uts::parse_flags(flags);
        std::mt19937_64 gen(7);
        std::uniform_int_distribution<int> rand31(0, 0x7fffffff);
        for (int h = 1; h < 40; ++h) {
            uts::decision_table t;
            t.segments = 1;
            t.limit = uts::open_ended;
            t.words.assign(t.rows_offset(), 0);
            const auto row = uts::detail::build_row(p, h);
            t.words.insert(t.words.end(), row.begin(), row.end());
            const std::string e = uts::check_boundaries(p, t, h);
            ASSERT_TRUE(e.empty()) << e;
            for (int i = 0; i < 2000; ++i) {
                const int r = rand31(gen);
                ASSERT_EQ(uts::decide_children(t.host_view(), h, r), uts::reference_children(p, h, r))
                    << "height " << h << " r " << r;
            }
        }
    }
}

TEST(UtsDecision, ACheckCatchesAThresholdOffByOne) {
    // The boundary check is what proves a table: moved by one either way, any threshold or cut of
    // T1's, T3's or T5's tables makes it fail (by a value at a boundary, or by thresholds out of order
    // where two coincide: q can jump past two integers between neighbouring r near r = 2^31).
    for (const char* name : {"T1", "T3", "T5"}) {
        SCOPED_TRACE(name);
        const uts::params p = uts::sample_params(name);
        const uts::decision_table good = uts::build_decision_table(p);
        for (std::uint32_t s = 0; s < good.segments; ++s) {
            const int h = static_cast<int>(good.first_height(s));
            for (unsigned w = 1; w < uts::row_words; ++w) {
                if (w == 2 || w == 3) {
                    continue; // `above` and the padding are values, not thresholds
                }
                const std::size_t at = good.rows_offset() + s * uts::row_words + w;
                const std::uint32_t x = good.words[at];
                if (x >= uts::never) {
                    continue; // "never"
                }
                for (int d : {-1, 1}) {
                    if (x == 0 && d < 0) {
                        continue;
                    }
                    uts::decision_table bad = good;
                    bad.words[at] = x + static_cast<std::uint32_t>(d);
                    EXPECT_FALSE(uts::check_boundaries(p, bad, h).empty())
                        << "height " << h << " word " << w << " moved by " << d;
                }
            }
        }
    }
}

TEST(UtsDecision, HostLogIsMonotoneOnEveryRandomValue) {
    // The lemma behind the binary searches: L(r) = log(1 - r/2^31) never increases with r. Every r
    // with CANOPY_UTS_EXHAUSTIVE=1 (2^31 logs, some seconds); otherwise the 2^20 values at each end
    // (where log's argument is near 1 and near 2^-31) and every 1021st value in between.
    const char* env = std::getenv("CANOPY_UTS_EXHAUSTIVE");
    const bool all = env && std::string(env) == "1";
    auto L = [](std::uint32_t r) { return ::log(1 - uts::to_prob(static_cast<int>(r))); };
    auto check_run = [&](std::uint32_t lo, std::uint32_t hi, std::uint32_t step) {
        double prev = L(lo);
        for (std::uint64_t r = lo + step; r < hi; r += step) {
            const double x = L(static_cast<std::uint32_t>(r));
            if (!(x <= prev)) {
                return static_cast<std::int64_t>(r);
            }
            prev = x;
        }
        return std::int64_t{-1};
    };
    if (all) {
        EXPECT_EQ(check_run(0, uts::never, 1), -1);
    } else {
        EXPECT_EQ(check_run(0, 1u << 20, 1), -1);
        EXPECT_EQ(check_run(uts::never - (1u << 20), uts::never, 1), -1);
        EXPECT_EQ(check_run(0, uts::never, 1021), -1);
    }
}

TEST(UtsDecision, BeyondTheTableIsAnError) {
    // EXPDEC never reaches an all-leaf row: its table stops at max_rows. A node deeper gets -1 from
    // the decision and fails the run, with a message, instead of a guessed count.
    const uts::params p = uts::parse_flags("-t 1 -a 1 -d 5 -b 5 -r 11");
    const uts::counts want = uts::traverse_sequential(p);
    ASSERT_GT(want.depth, 4);
    const uts::decision_table t = uts::build_decision_table(p, 3);
    EXPECT_EQ(t.segments, 3u);
    EXPECT_EQ(t.limit, 4u); // heights 0 and 1 share a row (b_1 = b_0 * 1^x), then 2 and 3
    EXPECT_EQ(uts::decide_children(t.host_view(), 4, 0), -1);
    EXPECT_EQ(uts::decide_children(t.host_view(), 3, 0), 0);
    auto o = canopy::test::emu_options("tiny");
    canopy::emu::scoped_options scoped(o);
    rt::config c;
    c.policy = rt::policy::hrf_indirect;
    c.block = 32;
    try {
        (void)uts::compiled::traverse_runtime(p, c, uts::sha1_model_cycles, 3);
        FAIL() << "a node deeper than the table did not fail the run";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("deeper than the child-count table"), std::string::npos)
            << e.what();
    }
    // With the default bound the same tree runs, exactly.
    EXPECT_EQ(uts::compiled::traverse_runtime(p, c).c, want);
}

TEST(UtsDecision, RuntimeCountsEqualTheReferenceOnCornerTrees) {
    // Small trees through the runtime on the scoped-cache model, each against the sequential reference:
    // BIN with a non-integer root, q = 0 and m = 0; HYBRID with -f 0 and -f 2; shrinking CYCLIC and
    // growing-then-dying FIXED; b_0 = 0; BALANCED with a fractional b_0.
    auto o = canopy::test::emu_options("tiny");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    for (const char* flags : {"-t 0 -b 12.5 -q 0.2 -m 4 -r 8", "-t 0 -b 10 -q 0 -m 4",
                              "-t 0 -b 10 -q 0.5 -m 0", "-t 2 -a 0 -d 6 -b 3 -q 0.2 -m 4 -f 0 -r 4",
                              "-t 2 -a 0 -d 4 -b 3 -q 0.2 -m 3 -f 2 -r 9", "-t 1 -a 2 -d 3 -b 1.5 -r 6",
                              "-t 1 -a 3 -d 3 -b 6 -r 2", "-t 1 -a 2 -d 4 -b 0", "-t 3 -d 4 -b 2.5"}) {
        SCOPED_TRACE(flags);
        const uts::params p = uts::parse_flags(flags);
        const uts::counts want = uts::traverse_sequential(p);
        canopy::test::for_seeds(o, 2, [&] {
            rt::config c;
            c.policy = rt::policy::hrf_indirect;
            c.block = 32;
            EXPECT_EQ(uts::compiled::traverse_runtime(p, c).c, want);
        });
    }
}

} // namespace
