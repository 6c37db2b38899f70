// The timeline (--trace, docs/emulator.md "Timeline (--trace)"): a trace written by a real run, parsed
// back, agrees with the run's own counters -- tasks run = the run spans' task arguments, tasks spawned =
// the pack spans', fronts donated or shared = the share spans', fronts stolen = the steal spans', join
// continuations run inline = the resolve spans' --
// and every track's spans are well nested (never overlapping otherwise), with or without aggregation.
// Tracing must not change the run: the traced schedule's digest is the untraced one's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../common/emu_test.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/trace.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/fib_join_tasks.hpp"
#include "canopy/workloads/fib_tasks.hpp"
#include "workloads.hpp"

namespace {

namespace rt = canopy::runtime;
namespace emu = canopy::emu;
using canopy::test::rt::run_tree;
using json = nlohmann::json;

struct span {
    std::uint64_t ts = 0, dur = 0;
    std::string name;
};

struct parsed {
    json meta;
    std::map<std::string, std::uint64_t> arg_sum; // per span name: sum of its argument (1 when it has none)
    std::map<std::string, std::uint64_t> spans;   // per span name: spans (aggregated: the n they stand for)
    std::map<std::pair<unsigned, unsigned>, std::vector<span>> tracks;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> outstanding; // (ts, value)
    unsigned named_threads = 0;
};

parsed read_trace(const std::string& path) {
    std::ifstream in(path);
    const json j = json::parse(in);
    parsed p;
    p.meta = j.at("otherData");
    for (const json& e : j.at("traceEvents")) {
        const std::string ph = e.at("ph");
        if (ph == "M") {
            p.named_threads += e.at("name") == "thread_name" ? 1 : 0;
        } else if (ph == "C") {
            if (e.at("name") == "outstanding tasks") {
                p.outstanding.emplace_back(e.at("ts"), e.at("args").at("value"));
            }
        } else if (ph == "X") {
            const std::string name = e.at("name");
            const json& a = e.at("args");
            std::uint64_t arg = 1;
            for (const char* k : {"tasks", "spawned", "fronts", "continuations"}) {
                if (a.contains(k)) {
                    arg = a.at(k);
                }
            }
            p.arg_sum[name] += arg;
            p.spans[name] += a.contains("n") ? a.at("n").get<std::uint64_t>() : 1;
            p.tracks[{e.at("pid"), e.at("tid")}].push_back({e.at("ts"), e.at("dur"), name});
        }
    }
    return p;
}

// Spans of one track are well nested: sorted by start (longest first), each one either starts after the
// enclosing one ended or lies inside it.
void expect_well_nested(const parsed& p) {
    for (auto [key, v] : p.tracks) {
        std::sort(v.begin(), v.end(),
                  [](const span& a, const span& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
        std::vector<std::uint64_t> open_ends;
        for (const span& s : v) {
            while (!open_ends.empty() && open_ends.back() <= s.ts) {
                open_ends.pop_back();
            }
            if (!open_ends.empty()) {
                ASSERT_LE(s.ts + s.dur, open_ends.back())
                    << "track pid " << key.first << " tid " << key.second << ": a " << s.name << " span at "
                    << s.ts << " overlaps the span it starts in";
            }
            open_ends.push_back(s.ts + s.dur);
        }
    }
}

// With the process id: ctest runs these tests as separate processes, two at a time, and a shared name
// let one test read the trace another was writing.
std::string temp_trace(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("canopy_test_trace_") + name + "_" + std::to_string(::getpid()) + ".json"))
        .string();
}

struct traced_run {
    rt::stats stats;
    std::uint64_t digest = 0;
    emu::trace_summary summary;
    parsed trace;
};

// Closes a session a failed run left open, so that the next test can open its own.
struct close_on_exit {
    ~close_on_exit() {
        if (emu::trace_is_open()) {
            try {
                (void)emu::trace_close();
            } catch (const std::exception&) { // the run's failure is the one to report
            }
        }
    }
};

// The traced tree: 600 nodes of arity 3, so 600 tasks run and 599 spawned (every node but the seed).
constexpr unsigned tree_nodes = 600;

// `run()` (returning its launch's stats) traced under `o`, the trace parsed back and its file removed.
template <class Run> traced_run trace_of(const emu::options& o, std::uint64_t max_events, Run&& run) {
    traced_run r;
    const std::string path = temp_trace("run");
    {
        emu::scoped_options scoped(o);
        const close_on_exit guard;
        emu::trace_open(path, max_events);
        r.stats = run();
        r.summary = emu::trace_close();
        r.digest = emu::last_report().digest;
    }
    r.trace = read_trace(path);
    std::filesystem::remove(path);
    return r;
}

traced_run run_traced(const emu::options& o, const rt::config& c, std::uint64_t max_events) {
    return trace_of(o, max_events, [&] {
        const auto t = run_tree(c, tree_nodes, 3, false);
        EXPECT_TRUE(t.exactly_once());
        return t.stats;
    });
}

// The tests' small runs: tiny on the scoped-cache model, `seed`, two sub-groups per work-group (blocks
// of 64 on wave32), the core and policy given.
struct small_run {
    emu::options o;
    rt::config c;
};
small_run tiny_run(rt::queue_design q, rt::policy pol, std::uint64_t seed) {
    small_run r{canopy::test::emu_options("tiny"), {}};
    r.o.memory_model = emu::memory_model_kind::scoped;
    r.o.seed = seed;
    r.c.policy = pol;
    r.c.queues = q;
    r.c.block = 64; // two sub-groups per work-group on tiny (wave32)
    return r;
}

void expect_counters_match(const traced_run& r) {
    const rt::stats& s = r.stats;
    const parsed& p = r.trace;
    // The closed form first (the spans' arguments and the stats come from the same variables, so their
    // agreement alone would not see a count both get wrong), then span against counter.
    EXPECT_EQ(s.total_tasks(), tree_nodes);
    EXPECT_EQ(s.tasks_spawned, tree_nodes - 1);
    EXPECT_EQ(p.arg_sum.count("run") ? p.arg_sum.at("run") : 0, tree_nodes) << "tasks run";
    EXPECT_EQ(p.arg_sum.count("pack") ? p.arg_sum.at("pack") : 0, tree_nodes - 1) << "tasks spawned";
    std::uint64_t fronts = 0;
    for (auto f : s.fronts) {
        fronts += f;
    }
    EXPECT_EQ(p.spans.count("run") ? p.spans.at("run") : 0, fronts) << "fronts run = run spans";
    EXPECT_EQ(p.arg_sum.count("pack") ? p.arg_sum.at("pack") : 0, s.tasks_spawned) << "tasks spawned";
    EXPECT_EQ(p.arg_sum.count("share") ? p.arg_sum.at("share") : 0, s.donations()) << "fronts shared";
    EXPECT_EQ(p.arg_sum.count("steal") ? p.arg_sum.at("steal") : 0, s.steals_received) << "fronts stolen";
    EXPECT_EQ(p.spans.count("steal") ? p.spans.at("steal") : 0, s.steals_received) << "steal spans";
    EXPECT_GE(p.named_threads, s.subgroups) << "a named track per sub-group that ran";
    expect_well_nested(p);
}

TEST(Trace, SpansAgreeWithTheRunsCounters) {
    for (const rt::queue_design q : {rt::queue_design::ring, rt::queue_design::locked}) {
        for (const rt::policy pol : rt::all_policies) {
            for (std::uint64_t seed = 1; seed <= 2; ++seed) {
                SCOPED_TRACE(std::string(rt::to_string(q)) + " core, " + rt::to_string(pol) + ", seed " +
                             std::to_string(seed) + " (CANOPY_EMU_SEED replays it)");
                const auto [o, c] = tiny_run(q, pol, seed);
                const traced_run r = run_traced(o, c, emu::default_trace_events);
                EXPECT_EQ(r.summary.window, 0u) << "a small run is not aggregated";
                EXPECT_EQ(r.trace.meta.at("time_unit"), "scheduler steps");
                expect_counters_match(r);
                // The last sample of the outstanding count (one OS thread: steps order them) is 0.
                ASSERT_FALSE(r.trace.outstanding.empty());
                const auto last = *std::max_element(r.trace.outstanding.begin(), r.trace.outstanding.end());
                EXPECT_EQ(last.second, 0u);
                // The same seed untraced takes the same schedule: tracing only reads clocks.
                emu::scoped_options scoped(o);
                (void)run_tree(c, tree_nodes, 3, false);
                EXPECT_EQ(emu::last_report().digest, r.digest) << "tracing changed the schedule";
            }
        }
    }
}

TEST(Trace, TimedTracesCountSimulatedCycles) {
    emu::options o = canopy::test::emu_options("hrf8");
    o.memory_model = emu::memory_model_kind::scoped;
    o.timed = true;
    o.seed = 3;
    rt::config c;
    c.policy = rt::policy::steal_emulated;
    const traced_run r = run_traced(o, c, emu::default_trace_events);
    SCOPED_TRACE("seed 3, timed, hrf8");
    EXPECT_EQ(r.trace.meta.at("time_unit"), "simulated cycles");
    expect_counters_match(r);
    std::uint64_t end = 0;
    for (const auto& [key, v] : r.trace.tracks) {
        for (const span& s : v) {
            end = std::max(end, s.ts + s.dur);
        }
    }
    EXPECT_LE(end, emu::last_report().memory.cycles_makespan) << "no span ends after the makespan";
    EXPECT_GT(end, 0u);
}

TEST(Trace, PastTheCapSpansAreAggregatedAndStillAddUp) {
    const auto [o, c] = tiny_run(rt::queue_design::ring, rt::policy::steal_rsp, 5);
    const traced_run r = run_traced(o, c, 300);
    SCOPED_TRACE("seed 5, aggregated");
    EXPECT_GT(r.summary.window, 0u);
    EXPECT_FALSE(r.summary.note.empty());
    EXPECT_GT(r.trace.meta.at("aggregated_window").get<std::uint64_t>(), 0u);
    EXPECT_LE(r.summary.events, 300u + 64u) << "at most the cap, plus the metadata";
    expect_counters_match(r);
}

// A join run's `resolve` spans: every task ran either in a front (the run spans' tasks) or inline in a
// resolve step (their continuations), so the two sums are the run's task count; and fib(12) by joins,
// whose every continuation a resolve step runs inline (a task completes one slot, the continuation is
// not cooperative), runs F(13) - 1 of them, one per inner node: the closed form, not the run's counters.
TEST(Trace, ResolveSpansCountTheContinuationsRunInline) {
    namespace ck = canopy::workloads::checked;
    constexpr unsigned n = 12;
    const std::uint64_t inner = ck::fib_leaves(n) - 1; // F(13) - 1 = 232
    for (const rt::queue_design q : {rt::queue_design::ring, rt::queue_design::locked}) {
        for (const rt::policy pol : {rt::policy::hrf_indirect, rt::policy::steal_emulated}) {
            const std::uint64_t seed = 1;
            SCOPED_TRACE(std::string(rt::to_string(q)) + " core, " + rt::to_string(pol) + ", seed " +
                         std::to_string(seed) + " (CANOPY_EMU_SEED replays it)");
            const small_run t = tiny_run(q, pol, seed); // no structured binding: the lambda captures it
            const rt::config& c = t.c;
            const traced_run r = trace_of(t.o, emu::default_trace_events, [&c] {
                rt::join_pool<unsigned long long, 2> pool(4096);
                rt::task_set<ck::fib_join_task, ck::fib_join_sum> ts{ck::fib_join_task{pool.view(), 2},
                                                                     ck::fib_join_sum{pool.view()}};
                ts.seed<ck::fib_join_task>({n, rt::join_root_slot});
                const rt::stats st = ts.run(c);
                EXPECT_EQ(pool.result(), ck::fib_value(n));
                return st;
            });
            const parsed& p = r.trace;
            const rt::stats& s = r.stats;
            const std::uint64_t ran = p.arg_sum.count("run") ? p.arg_sum.at("run") : 0;
            const std::uint64_t resolved = p.arg_sum.count("resolve") ? p.arg_sum.at("resolve") : 0;
            EXPECT_EQ(resolved, inner) << "continuations run inline";
            EXPECT_EQ(ran, 2 * ck::fib_leaves(n) - 1) << "fib's own tasks, in fronts";
            EXPECT_EQ(s.total_tasks(), ran + resolved);
            expect_well_nested(p);
        }
    }
}

TEST(Trace, ABadPathFailsBeforeAnyLaunch) {
    EXPECT_THROW(emu::trace_open("/nonexistent-dir-of-canopy/trace.json"), canopy::error);
    EXPECT_FALSE(emu::trace_is_open());
}

} // namespace
