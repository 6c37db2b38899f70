// canopy_gpu_tests: UTS against the published counts and the sequential reference (gpu_cases.hpp says what
// the binary holds and why).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/params.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/runtime.hpp"
#include "gpu_cases.hpp"

namespace {

using namespace canopy_gpu_tests;
namespace uts = canopy::workloads::uts;

TEST(GpuUts, TreesMatchThePublishedCounts) {
    // On a GPU: the published T1, T3 and T5, and T2L (97 M nodes) and T1XL (1.6 G nodes) under the default
    // core; T1 under every policy and core. The emulator: the default tree (1,732 nodes) likewise.
    const std::vector<std::string> trees = emulated
                                               ? std::vector<std::string>{"default"}
                                               : std::vector<std::string>{"T1", "T3", "T5", "T2L", "T1XL"};
    for (const std::string& t : trees) {
        SCOPED_TRACE(t);
        const uts::sample_tree* s = uts::find_sample_tree(t);
        ASSERT_NE(s, nullptr);
        ASSERT_TRUE(s->expected.known());
        const auto r = uts::compiled::traverse_runtime(uts::sample_params(t),
                                                       uts::default_config(rt::policy::hrf_indirect));
        EXPECT_EQ(r.c.nodes, s->expected.nodes);
        EXPECT_EQ(r.c.leaves, s->expected.leaves);
        EXPECT_EQ(r.c.depth, s->expected.depth);
    }
    const std::string t = emulated ? "default" : "T1";
    const uts::counts want{uts::find_sample_tree(t)->expected.nodes,
                           uts::find_sample_tree(t)->expected.leaves,
                           uts::find_sample_tree(t)->expected.depth};
    for (const core_case& k : cores()) {
        SCOPED_TRACE(t + " " + name(k));
        rt::config c = uts::default_config(k.policy);
        c.queues = k.queues;
        c.device_rings = k.device_rings;
        EXPECT_EQ(uts::compiled::traverse_runtime(uts::sample_params(t), c).c, want);
    }
}

TEST(GpuUts, UnpublishedTreesMatchTheSequentialReference) {
    // T2 and T4 carry no published counts: the host's sequential traversal is the oracle (on the
    // emulator, a small binomial and a small hybrid tree).
    const std::vector<std::string> flags =
        emulated
            ? std::vector<std::string>{"-t 0 -b 200 -q 0.2 -m 4 -r 3", "-t 2 -a 0 -d 5 -b 4 -r 1 -q 0.2 -m 3"}
            : std::vector<std::string>{uts::find_sample_tree("T2")->flags,
                                       uts::find_sample_tree("T4")->flags};
    for (const std::string& f : flags) {
        SCOPED_TRACE(f);
        const uts::params p = uts::parse_flags(uts::split_flags(f));
        EXPECT_EQ(uts::compiled::traverse_runtime(p, uts::default_config(rt::policy::hrf_indirect)).c,
                  uts::traverse_sequential(p));
    }
}

} // namespace
