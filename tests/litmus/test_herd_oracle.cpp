// herd's own outcome sets as the oracle (herd7-outcomes.json, computed by herd with opencl_rem.cat):
// every final state the scoped-cache model shows for a test herd finds race-free must be one herd
// allows, and the original RSP scheme must still show the paper's bugs as states outside herd's set.
// Also: the exhaustive exploration's state caching finds exactly what plain depth-first enumeration
// finds; local memory and several devices, with verdicts argued from OpenCL 2.0 in each case's file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../common/test_paths.hpp"
#include "canopy/litmus/parser.hpp"
#include "canopy/litmus/runner.hpp"
#include "herd_oracle.hpp"

namespace {

namespace fs = std::filesystem;
namespace lt = canopy::litmus;

const fs::path herd_dir = canopy::test::herd_dir();

std::vector<fs::path> corpus() {
    std::vector<fs::path> files;
    for (const auto& sub : {"opencl", "rsp"}) {
        for (const auto& e : fs::directory_iterator(herd_dir / sub)) {
            if (e.path().extension() == ".litmus") {
                files.push_back(e.path());
            }
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The corpus tests whose exploration does not finish within 1,000,000 runs (docs/litmus.md has their
// sizes): in CI they get a short try, then random runs, so that CI's time goes to the ones that finish.
const std::set<std::string> too_big = {"global_barrier.litmus", "global_barrier_mo.litmus",
                                       "RSP_Test3.litmus",      "RSP_Test4.litmus",
                                       "RSP_Test8.litmus",      "RSP_Test9.litmus"};

lt::result run(const fs::path& f, canopy::emu::rsp_scheme scheme) {
    lt::run_options o; // exhaustive with reduction up to the limit (1,000,000 runs), else random runs
    o.scheme = scheme;
    o.seeds = 3000;
    if (too_big.count(f.filename().string()) != 0) {
        o.exhaustive_limit = 20'000;
    }
    return lt::run(lt::parse_file(f.string()), o);
}

std::set<std::string> keys(const lt::result& r) {
    std::set<std::string> k;
    for (const auto& [state, n] : r.outcomes) {
        k.insert(state);
    }
    return k;
}

#define REQUIRE_CORPUS()                                                                                     \
    if (!fs::exists(herd_dir / "herd7-outcomes.json")) {                                                     \
        GTEST_SKIP() << "herd's corpus is not at " << herd_dir << " (CI has it beside the checkout)";        \
    }

// Item 1: every corpus test under the proposed scheme (one ctest per test, so that they run in
// parallel): every final state within herd's allowed set; printed, the herd-allowed states canopy never
// showed ("never produced" when the exploration was complete: a fact about the model).
class LitmusHerdOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(LitmusHerdOracle, StatesOfARaceFreeTestAreAllHerdAllowed) {
    REQUIRE_CORPUS();
    const auto herd = lt::load_herd_outcomes((herd_dir / "herd7-outcomes.json").string());
    const fs::path f = herd_dir / GetParam();
    const lt::herd_test* h = lt::find_herd_test(herd, f.string());
    ASSERT_NE(h, nullptr) << "herd7-outcomes.json has no entry for " << f;
    const lt::result r = run(f, canopy::emu::rsp_scheme::proposed); // throws if refused: none may be
    const auto c = lt::compare_with_herd(r, *h);
    // Some execution ran to its end and was counted (a state digest that missed a step once cut every
    // run, leaving a "complete" exploration with no outcome at all).
    EXPECT_FALSE(r.outcomes.empty());
    std::string line =
        fmt::format("{}: {}", GetParam(),
                    r.exhaustive ? fmt::format("complete ({} runs, {} states)", r.runs, r.states)
                                 : fmt::format("sampled ({} runs)", r.runs));
    switch (c.k) {
    case lt::herd_comparison::kind::racy: line += "; racy in herd: not compared"; break;
    case lt::herd_comparison::kind::no_states: line += "; herd allows no state: not compared"; break;
    case lt::herd_comparison::kind::front_end:
        line += "; herd reads a location as a register: not compared";
        EXPECT_FALSE(r.warnings.empty()) << "a front-end difference without a warning";
        break;
    case lt::herd_comparison::kind::checked:
        for (const auto& s : c.outside) {
            ADD_FAILURE() << r.test << ": the proposed scheme showed a state herd forbids: " << s;
        }
        line += fmt::format("; {}/{} herd-allowed states shown", c.herd_states - c.never_shown.size(),
                            c.herd_states);
        EXPECT_GT(c.herd_states, c.never_shown.size()) << "not one of herd's states shown";
        for (const auto& s : c.never_shown) {
            line += fmt::format("\n    {}: {}", r.exhaustive ? "never produced" : "not seen", s);
        }
        break;
    }
    std::printf("%s\n", line.c_str());
    EXPECT_EQ(r.exhaustive, too_big.count(f.filename().string()) == 0)
        << "a test finished (or stopped finishing) its exploration: update too_big and docs/litmus.md";
}

std::vector<std::string> corpus_names() {
    std::vector<std::string> out;
    if (fs::exists(herd_dir)) {
        for (const auto& f : corpus()) {
            out.push_back((f.parent_path().filename() / f.filename()).generic_string());
        }
    }
    return out;
}
INSTANTIATE_TEST_SUITE_P(Corpus, LitmusHerdOracle, ::testing::ValuesIn(corpus_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                             std::string n;
                             for (const char ch : i.param.substr(0, i.param.size() - 7)) { // no ".litmus"
                                 n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             }
                             return fmt::format("{}_{}", i.index, n);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LitmusHerdOracle);

// The corpus is whole: 34 tests, each in herd's file and each parsed (none refused).
TEST(LitmusHerdCorpus, EveryTestIsInHerdsFileAndParses) {
    REQUIRE_CORPUS();
    const auto herd = lt::load_herd_outcomes((herd_dir / "herd7-outcomes.json").string());
    EXPECT_EQ(herd.size(), 34u);
    EXPECT_EQ(corpus().size(), herd.size());
    for (const auto& f : corpus()) {
        EXPECT_NE(lt::find_herd_test(herd, f.string()), nullptr) << f;
        EXPECT_NO_THROW(lt::parse_file(f.string())) << f;
    }
}

// Item 1, the other way: the original scheme's bugs (RSP §5.5), shown by complete explorations. RSP_Test5
// (HRF-indirect through a remote hop) ends in a state outside herd's allowed set, and plain device-scope
// message passing reads stale data (the paper's Fig. 4: the acquire's invalidate runs before its load,
// and the environment re-fetches the old value in between); the proposed scheme shows neither.
TEST(LitmusHerdOracle, OriginalSchemeShowsTheRspBugs) {
    REQUIRE_CORPUS();
    const auto herd = lt::load_herd_outcomes((herd_dir / "herd7-outcomes.json").string());
    const auto f = herd_dir / "rsp/RSP_Test5.litmus";
    const auto t = lt::parse_file(f.string());
    lt::run_options o;
    o.seeds = 1;
    o.exhaustive_limit = 2'000'000; // about 810,000 runs under the original scheme
    o.scheme = canopy::emu::rsp_scheme::original;
    const lt::result bad_run = lt::run(t, o);
    ASSERT_TRUE(bad_run.exhaustive);
    const auto bad = lt::compare_with_herd(bad_run, *lt::find_herd_test(herd, f.string()));
    ASSERT_EQ(bad.k, lt::herd_comparison::kind::checked);
    EXPECT_FALSE(bad.outside.empty()) << "RSP_Test5: the original scheme's bug did not show";
    o.scheme = canopy::emu::rsp_scheme::proposed;
    const lt::result good_run = lt::run(t, o);
    ASSERT_TRUE(good_run.exhaustive);
    EXPECT_TRUE(lt::compare_with_herd(good_run, *lt::find_herd_test(herd, f.string())).outside.empty());

    const auto mp = lt::parse_file(std::string(canopy::test::litmus_cases_dir()) + "/mp_dv_scope.litmus");
    o.scheme = canopy::emu::rsp_scheme::original;
    const lt::result mp_bad = lt::run(mp, o);
    ASSERT_TRUE(mp_bad.exhaustive);
    EXPECT_EQ(mp_bad.verdict, "Sometimes") << "device-scope message passing: the stale read did not show";
    o.scheme = canopy::emu::rsp_scheme::proposed;
    const lt::result mp_good = lt::run(mp, o);
    ASSERT_TRUE(mp_good.exhaustive);
    EXPECT_EQ(mp_good.verdict, "Never");
}

// Item 4: state caching explores exactly the outcome set plain depth-first enumeration finds, on the
// tests small enough for plain DFS to finish (store buffering at work-group scope across work-groups:
// about 500,000 choice sequences; the local-memory cases).
TEST(LitmusExploration, StateCachingFindsWhatPlainDfsFinds) {
    const std::string sb = R"(OpenCL SB_wg_across_work_groups
{ [x]=0; [y]=0; }
P0 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_group);
  int r0 = atomic_load_explicit(y, memory_order_relaxed, memory_scope_work_group);
}
P1 (global atomic_int* x, global atomic_int* y) {
  atomic_store_explicit(y, 1, memory_order_relaxed, memory_scope_work_group);
  int r1 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_work_group);
}
scopeTree (device (work_group P0) (work_group P1))
exists (0:r0=0 /\ 1:r1=0))";
    for (const char* name :
         {"SB", "local_mp_within_work_group.litmus", "local_barrier.litmus", "local_per_work_group.litmus"}) {
        SCOPED_TRACE(name);
        const auto t = std::string(name) == "SB"
                           ? lt::parse(sb, "inline")
                           : lt::parse_file(std::string(canopy::test::litmus_cases_dir()) + "/" + name);
        lt::run_options o;
        o.seeds = 1;
        o.exhaustive_limit = 3'000'000;
        const lt::result cached = lt::run(t, o);
        o.reduction = false;
        const lt::result plain = lt::run(t, o);
        ASSERT_TRUE(plain.exhaustive) << "plain DFS did not finish: pick a smaller test";
        ASSERT_TRUE(cached.exhaustive);
        EXPECT_EQ(keys(cached), keys(plain));
        EXPECT_GE(cached.outcomes.size(),
                  std::string(name) == "SB" ? 4u : 1u); // SB: all four, stale ones too
        EXPECT_LT(cached.runs, plain.runs);             // and it is a reduction
        std::printf("%s: plain DFS %llu runs, state caching %llu runs (%llu states), %zu outcomes\n", name,
                    static_cast<unsigned long long>(plain.runs), static_cast<unsigned long long>(cached.runs),
                    static_cast<unsigned long long>(cached.states), cached.outcomes.size());
    }
}

lt::result run_case(const char* name) {
    lt::run_options o;
    o.seeds = 1;
    return lt::run(lt::parse_file(std::string(canopy::test::litmus_cases_dir()) + "/" + name), o);
}

// Item 2: local memory (verdicts argued in each file).
TEST(LitmusLocalMemory, WorkGroupScopeMessagePassingThroughLocalMemoryIsNeverStale) {
    const auto r = run_case("local_mp_within_work_group.litmus");
    ASSERT_TRUE(r.exhaustive);
    EXPECT_EQ(r.verdict, "Never");
    EXPECT_GE(r.outcomes.size(), 2u); // the flag both seen and not seen: the test explored something
}
TEST(LitmusLocalMemory, LocalBarrierPublishesTheWorkGroupsWrites) {
    const auto r = run_case("local_barrier.litmus");
    ASSERT_TRUE(r.exhaustive);
    EXPECT_EQ(r.verdict, "Never");
}
TEST(LitmusLocalMemory, EachWorkGroupHasItsOwnCopy) {
    const auto r = run_case("local_per_work_group.litmus");
    ASSERT_TRUE(r.exhaustive);
    EXPECT_EQ(r.verdict, "Never");
    ASSERT_EQ(r.outcomes.size(), 1u);
    EXPECT_EQ(r.outcomes.begin()->first, "0:r0=1; 1:r1=2; y=1; y@wg1=2;");
    ASSERT_EQ(r.warnings.size(), 1u); // herd would read one shared y
    EXPECT_EQ(r.warnings[0].location, "y");
}

// Item 3: several devices.
TEST(LitmusDevices, DeviceScopeDoesNotReachTheOtherDevice) {
    const auto r = run_case("two_devices_device_scope.litmus");
    ASSERT_TRUE(r.exhaustive);
    EXPECT_EQ(r.verdict, "Sometimes"); // the stale read shows: allowed, and the model produces it
}
TEST(LitmusDevices, SystemScopeSynchronizesAcrossDevices) {
    const auto r = run_case("two_devices_system_scope.litmus");
    ASSERT_TRUE(r.exhaustive);
    EXPECT_EQ(r.verdict, "Never");
    EXPECT_GE(r.outcomes.size(), 2u);
}

// Item 5: the front-end differences are named.
TEST(LitmusFrontEnd, WarningsNameTheLocationsHerdReadsDifferently) {
    REQUIRE_CORPUS();
    const auto names = [](const char* file) {
        std::set<std::string> out;
        for (const auto& w : lt::run(lt::parse_file((herd_dir / file).string()),
                                     [] {
                                         lt::run_options o;
                                         o.exhaustive_limit = 0;
                                         o.seeds = 1;
                                         return o;
                                     }())
                                 .warnings) {
            out.insert(w.location);
        }
        return out;
    };
    // (the file writes oldHead_p and declares oldhead_p: the parser warns and reads the declared one)
    EXPECT_EQ(names("opencl/CT_wsq2.litmus"), std::set<std::string>{"oldhead_p"});
    EXPECT_EQ(names("opencl/global_barrier_mo.litmus"), (std::set<std::string>{"g0", "g1"}));
    EXPECT_EQ(names("rsp/RSP_Test8.litmus"), std::set<std::string>{"zero"});
    EXPECT_EQ(names("opencl/thinair.litmus"), std::set<std::string>{"y"});
    EXPECT_TRUE(names("opencl/SB.litmus").empty());
}

} // namespace
