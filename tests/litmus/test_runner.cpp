// The litmus runner on the scoped-cache model: forbidden outcomes of race-free tests never show under
// the proposed scheme; weak outcomes a GPU allows do show; the RSP paper's two bugs reproduce under the
// original scheme and only there. Verdicts are the model's (notes/scopes-hrf-rsp.md §3.4), computed by
// an independent axiomatic analysis, not by this runner.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../common/test_paths.hpp"
#include "canopy/litmus/expectations.hpp"
#include "canopy/litmus/parser.hpp"
#include "canopy/litmus/runner.hpp"

namespace {

namespace fs = std::filesystem;

std::string cases_dir() { return canopy::test::litmus_cases_dir(); }

canopy::litmus::result run_file(const std::string& path, canopy::emu::rsp_scheme scheme,
                                std::uint64_t seeds) {
    const auto t = canopy::litmus::parse_file(path);
    canopy::litmus::run_options o;
    o.scheme = scheme;
    o.seeds = seeds;
    o.exhaustive_limit = 2000;
    return canopy::litmus::run(t, o);
}

bool seen(const canopy::litmus::result& r) { return r.verdict != "Never"; }

constexpr auto proposed = canopy::emu::rsp_scheme::proposed;
constexpr auto original = canopy::emu::rsp_scheme::original;

// (b) The model is weak where GPUs are.
TEST(LitmusRunner, WorkGroupScopeAcrossWorkGroupsShowsTheStaleRead) {
    EXPECT_TRUE(seen(run_file(cases_dir() + "/mp_wg_scope_across_wgs.litmus", proposed, 3000)));
}
TEST(LitmusRunner, DeviceAcquireOfWorkGroupReleaseShowsTheStaleRead) {
    EXPECT_TRUE(seen(run_file(cases_dir() + "/mp_dv_acquire_wg_release.litmus", proposed, 3000)));
}
TEST(LitmusRunner, NonRemoteStealLosesTheTask) {
    EXPECT_TRUE(seen(run_file(cases_dir() + "/wsq1_steal_without_remote.litmus", proposed, 3000)));
}
TEST(LitmusRunner, DeviceScopeMessagePassingIsNeverStale) {
    const auto r = run_file(cases_dir() + "/mp_dv_scope.litmus", proposed, 3000);
    EXPECT_FALSE(seen(r));
    EXPECT_GE(r.outcomes.size(), 2u) << "the flag was never (or always) seen: the test explored nothing";
}

// (c) RSP's two bugs: under the original scheme only.
TEST(LitmusRunner, Fig4BugReproducesUnderOriginalOnly) {
    const std::string f = cases_dir() + "/rsp_fig4_invalidate_before_load.litmus";
    EXPECT_TRUE(seen(run_file(f, original, 5000)))
        << "RSP Fig. 4 did not reproduce under the original scheme";
    EXPECT_FALSE(seen(run_file(f, proposed, 5000)));
}
TEST(LitmusRunner, Fig5BugReproducesUnderOriginalOnly) {
    const std::string f = cases_dir() + "/rsp_fig5_remote_store_loses_rmw.litmus";
    EXPECT_TRUE(seen(run_file(f, original, 5000)))
        << "RSP Fig. 5 did not reproduce under the original scheme";
    EXPECT_FALSE(seen(run_file(f, proposed, 5000)));
}

// (d) HRF-indirect: the transitive chain is never violated.
TEST(LitmusRunner, HrfIndirectChainHolds) {
    const auto r = run_file(cases_dir() + "/hrf_fig6_indirect_chain.litmus", proposed, 5000);
    EXPECT_FALSE(seen(r));
}

TEST(LitmusRunner, OutcomesNameRegistersAndLocations) {
    const auto r = run_file(cases_dir() + "/mp_dv_scope.litmus", proposed, 200);
    ASSERT_FALSE(r.outcomes.empty());
    for (const auto& [k, n] : r.outcomes) {
        EXPECT_NE(k.find("1:r0="), std::string::npos) << k;
        EXPECT_NE(k.find("; x=42; y=1;"), std::string::npos) << k; // the kernel's end flushed every L1
        EXPECT_GT(n, 0u);
    }
    EXPECT_TRUE(r.exhaustive || r.runs == 200u) << r.runs; // every execution, or the 200 seeds
    EXPECT_EQ(r.scheme, "proposed");
}

TEST(LitmusRunner, SameSeedsSameHistogram) {
    const auto a = run_file(cases_dir() + "/mp_wg_scope_across_wgs.litmus", proposed, 500);
    const auto b = run_file(cases_dir() + "/mp_wg_scope_across_wgs.litmus", proposed, 500);
    EXPECT_EQ(a.outcomes, b.outcomes);
}

TEST(LitmusRunner, ExhaustiveWhenTheTreeIsSmall) {
    const auto t = canopy::litmus::parse(R"(OpenCL one_store
{ [x]=0; }
P0 (global atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_group); }
exists (x=1))",
                                         "inline");
    canopy::litmus::run_options o;
    const auto r = canopy::litmus::run(t, o);
    EXPECT_TRUE(r.exhaustive);
    EXPECT_EQ(r.verdict, "Always");
}

// (a) herd's corpus, where it exists: every supported test runs; race-free tests whose condition the
// model forbids never show it under the proposed scheme.
TEST(LitmusRunner, HerdCorpus) {
    const fs::path dir = canopy::test::herd_dir();
    if (!fs::exists(dir)) {
        GTEST_SKIP() << "herd's corpus is not at " << dir << " (CI has it beside the checkout)";
    }
    unsigned ran = 0, forbidden_checked = 0;
    std::vector<fs::path> files;
    for (const auto& sub : {"opencl", "rsp"}) {
        for (const auto& e : fs::directory_iterator(dir / sub)) {
            if (e.path().extension() == ".litmus") {
                files.push_back(e.path());
            }
        }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        SCOPED_TRACE(f.string());
        const auto t = canopy::litmus::parse_file(f.string()); // every file parses
        canopy::litmus::run_options o;
        o.seeds = 1500;
        o.exhaustive_limit = 1000;
        const canopy::litmus::result r = canopy::litmus::run(t, o); // none is refused (local memory, devices)
        ++ran;
        EXPECT_GT(r.runs, 0u);
        if (canopy::litmus::known_verdict(t.name) == "forbidden") {
            ++forbidden_checked;
            EXPECT_FALSE(seen(r)) << t.name << ": a forbidden outcome of a race-free test showed";
        }
    }
    EXPECT_EQ(ran, 34u);
    EXPECT_GE(forbidden_checked, 9u); // RSP_Test2, 3, 5, 6, 8, 10, WSQ1, WSQ2, barrier_example
}

} // namespace
