// Release/acquire chains of 2-5 hops across scopes and work-groups (issue 26): the race verdict of
// every chain under every model comes from the exact race exploration (every SC execution, state
// caching keyed on the detector's state too; docs/race-detector.md, "Exact verdicts"), and must match
// the verdict the HRF and RSP definitions give, worked out below without the detector.
//
// The family. P0 writes the plain location x, then releases flag f1. Each Pi (0 < i < h) acquires
// f_i and, if it read 1, releases f_{i+1}. The last thread Ph acquires f_h and, if it read 1, reads x.
// Hop i is the hand-off P(i-1) -> Pi through f_i, with a release scope, an acquire scope (and maybe a
// remote acquire), and the work-groups of its two threads. Nothing else synchronizes the threads, and
// the only conflicting accesses are P0's write and Ph's read of x (in the SC executions where the
// whole chain completed, which exist: run the threads in order) and, per hop, the release store and
// the acquire load of f_i (in every execution where the load reads the store, and in those where it
// reads 0 before it: the two still conflict).
//
// The definitions (notes/scopes-hrf-rsp.md):
//   * A hop *pairs* (synchronizes) when:
//       HRF (§1.3, §1.4): both sides use the same scope S and one instance of S holds both threads
//         (work-group scope: the same work-group; device scope: always, on one device). Remote flags
//         mean nothing (HRF has no promotion).
//       RSP (§3.3, incl): (Srel reaches the acquirer and Sacq reaches the releaser), or (Srel reaches
//         the acquirer and the release is remote), or (Sacq reaches the releaser and the acquire is
//         remote).
//     The same predicate says whether the hop's two atomics are inclusive; atomics that are not, and
//     that happens-before does not order, race (a synchronization race, §1.3 / §3.3 dr). A hop that
//     does not pair is not ordered by anything else (the chain is the only synchronization), so
//     f_i races exactly when hop i does not pair.
//   * x: P0's write happens before Ph's read when
//       hrf-indirect, rsp ((po ∪ sw)+, transitive): every hop pairs;
//       hrf-direct (∪_S (po ∪ so_S)+): every hop pairs *and* all hops use one scope (a chain that
//         changes scope is in no single so_S closure: E4's race).
//     Otherwise x races.
// So the verdict is racy iff some hop does not pair, or (hrf-direct) the paired hops mix scopes; the
// racy locations are x and the flags of the hops that do not pair. expected_races() below computes it.
//
// The variants, for h = 2..5 hops:
//   device:     every hop at device scope, every thread in its own work-group: race-free everywhere.
//   work-group: every hop at work-group scope, all threads in one work-group: race-free everywhere.
//   mixed:      work-group hops inside a work-group alternating with device hops across work-groups
//               (h = 3 is issue 26's four threads in two work-groups: WG, DV, WG): racy under
//               hrf-direct only (on x), race-free under hrf-indirect and rsp.
//   broken:     mixed, but the last device hop (across work-groups) is at work-group scope: racy
//               everywhere.
//   remote:     mixed, but the first device hop is a work-group release acquired by a remote device
//               acquire: race-free under rsp (promotion), racy under hrf-* (no promotion).
//   remote_release: mixed, but the first device hop is a remote device release acquired at work-group
//               scope in the other work-group: race-free under rsp, racy under hrf-*.
//   scopes:     mixed, but the hops inside a work-group release and acquire at different scopes (hop 1
//               work-group then device; hop 3 device then work-group): both scopes reach both threads,
//               so they pair under rsp (inclusive); under hrf-* a hop pairs only at one scope, so f1
//               (and f3) and x race.
//
// Every verdict is also checked to be complete, and for the smaller chains the exact exploration is
// checked against plain depth-first enumeration of every schedule (no reduction), an oracle that does
// not depend on the state digest. The explorations are deterministic; a failure prints the generated
// test, the model and the races found.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "canopy/litmus/parser.hpp"
#include "canopy/litmus/runner.hpp"

namespace {

namespace lit = canopy::litmus;
using canopy::emu::race_check_kind;

enum class sc { wg, dv };

struct hop {
    sc release = sc::dv, acquire = sc::dv;
    bool remote_acquire = false;
    bool remote_release = false;
};

struct chain {
    std::string name;
    std::vector<hop> hops;          // hop i (1-based in the comment above) is hops[i - 1]
    std::vector<unsigned> group_of; // per thread P0..Ph: its work-group
};

const char* scope_text(sc s) { return s == sc::wg ? "memory_scope_work_group" : "memory_scope_device"; }

/// The litmus source of a chain.
std::string source(const chain& c) {
    const std::size_t h = c.hops.size();
    std::string s = fmt::format("OpenCL {}\n{{ [x]=0;", c.name);
    for (std::size_t i = 1; i <= h; ++i) {
        s += fmt::format(" [f{}]=0;", i);
    }
    s += " }\n";
    const auto acquire = [&](std::size_t i) { // the acquire of hop i into r0
        const hop& hp = c.hops[i - 1];
        return fmt::format("  int r0 = atomic_load_explicit{}(f{}, memory_order_acquire, {});\n",
                           hp.remote_acquire ? "_remote" : "", i, scope_text(hp.acquire));
    };
    const auto release = [&](std::size_t i) { // the release of hop i
        const hop& hp = c.hops[i - 1];
        return fmt::format("atomic_store_explicit{}(f{}, 1, memory_order_release, {});",
                           hp.remote_release ? "_remote" : "", i, scope_text(hp.release));
    };
    s += fmt::format("P0 (global int* x, global atomic_int* f1) {{\n  *x = 1;\n  {}\n}}\n", release(1));
    for (std::size_t i = 1; i < h; ++i) {
        s += fmt::format(
            "P{} (global atomic_int* f{}, global atomic_int* f{}) {{\n{}  if (r0 == 1) {{ {} }}\n}}\n", i, i,
            i + 1, acquire(i), release(i + 1));
    }
    s += fmt::format("P{} (global int* x, global atomic_int* f{}) {{\n{}  int r1 = -1;\n  if (r0 == 1) {{ r1 "
                     "= *x; }}\n}}\n",
                     h, h, acquire(h));
    unsigned groups = 0;
    for (const unsigned g : c.group_of) {
        groups = std::max(groups, g + 1);
    }
    s += "scopeTree (device";
    for (unsigned g = 0; g < groups; ++g) {
        s += " (work_group";
        for (std::size_t t = 0; t < c.group_of.size(); ++t) {
            if (c.group_of[t] == g) {
                s += fmt::format(" P{}", t);
            }
        }
        s += ")";
    }
    s += fmt::format(")\nexists ({}:r0=1)\n", h);
    return s;
}

/// The definitions' verdict (see the top of the file): the locations that race; empty: race-free.
std::set<std::string> expected_races(const chain& c, race_check_kind m) {
    std::set<std::string> out;
    std::set<sc> scopes;
    bool all_pair = true;
    for (std::size_t i = 1; i <= c.hops.size(); ++i) {
        const hop& hp = c.hops[i - 1];
        const bool same_group = c.group_of[i - 1] == c.group_of[i];
        // One device: a device-scope instance holds everyone, a work-group one its work-group.
        const bool rel_reaches = hp.release == sc::dv || same_group;
        const bool acq_reaches = hp.acquire == sc::dv || same_group;
        bool pairs = false;
        if (m == race_check_kind::rsp) {
            pairs = (rel_reaches && acq_reaches) || (rel_reaches && hp.remote_release) ||
                    (acq_reaches && hp.remote_acquire);
        } else {
            pairs = hp.release == hp.acquire && rel_reaches;
        }
        if (!pairs) {
            out.insert(fmt::format("f{}", i));
            all_pair = false;
        }
        scopes.insert(hp.release);
        scopes.insert(hp.acquire);
    }
    if (!all_pair || (m == race_check_kind::hrf_direct && scopes.size() > 1)) {
        out.insert("x");
    }
    return out;
}

std::vector<chain> family() {
    std::vector<chain> out;
    for (unsigned h = 2; h <= 5; ++h) {
        chain dv{fmt::format("chain{}_device", h), {}, {}};
        chain wg{fmt::format("chain{}_work_group", h), {}, {}};
        for (unsigned t = 0; t <= h; ++t) {
            dv.group_of.push_back(t);
            wg.group_of.push_back(0);
        }
        dv.hops.assign(h, hop{sc::dv, sc::dv, false});
        wg.hops.assign(h, hop{sc::wg, sc::wg, false});
        // mixed: hop 1 inside work-group 0 at WG scope, hop 2 across at DV, hop 3 inside at WG, ...
        // threads 2k and 2k+1 share work-group k.
        chain mixed{fmt::format("chain{}_mixed", h), {}, {}};
        for (unsigned t = 0; t <= h; ++t) {
            mixed.group_of.push_back(t / 2);
        }
        for (unsigned i = 1; i <= h; ++i) {
            const sc s = i % 2 == 1 ? sc::wg : sc::dv;
            mixed.hops.push_back(hop{s, s, false});
        }
        // broken: the last device hop (across work-groups) is made a work-group-scope hop, across
        // work-groups still. (The work-groups stay as they are: moving a thread into a work-group of its
        // own would pad the others with idle work-items, more schedules for nothing.)
        chain broken = mixed;
        broken.name = fmt::format("chain{}_broken", h);
        const unsigned last_dv = h % 2 == 0 ? h : h - 1;
        broken.hops[last_dv - 1] = hop{sc::wg, sc::wg, false};
        // remote: hop 2 (the first device hop, across work-groups) released at WG scope, acquired by a
        // remote device-scope load.
        chain remote = mixed;
        remote.name = fmt::format("chain{}_remote", h);
        remote.hops[1] = hop{sc::wg, sc::dv, true, false};
        // remote_release: hop 2 released by a remote device-scope store, acquired at work-group scope
        // in the other work-group.
        chain remote_release = mixed;
        remote_release.name = fmt::format("chain{}_remote_release", h);
        remote_release.hops[1] = hop{sc::dv, sc::wg, false, true};
        // scopes: hops inside a work-group whose release and acquire scopes differ (no remote flag):
        // hop 1 released at work-group scope and acquired at device scope, and from h = 3 on, hop 3 the
        // other way round.
        chain scopes = mixed;
        scopes.name = fmt::format("chain{}_scopes", h);
        scopes.hops[0] = hop{sc::wg, sc::dv, false, false};
        if (h >= 3) {
            scopes.hops[2] = hop{sc::dv, sc::wg, false, false};
        }
        for (auto* c : {&dv, &wg, &mixed, &broken, &remote, &remote_release, &scopes}) {
            out.push_back(*c);
        }
    }
    return out;
}

const char* model_name(race_check_kind m) {
    return m == race_check_kind::hrf_direct     ? "hrf-direct"
           : m == race_check_kind::hrf_indirect ? "hrf-indirect"
                                                : "rsp";
}

/// The race exploration alone: the outcomes' SCM exploration is one random run (not what is tested).
lit::result explore(const chain& c, race_check_kind m, bool reduction) {
    lit::run_options o;
    o.exhaustive_limit = 0;
    o.seeds = 1;
    o.race_check = m;
    o.reduction = reduction;
    o.race_samples = 0;
    return lit::run(lit::parse(source(c), c.name + ".litmus"), o);
}

std::set<std::string> raced_locations(const lit::result& r) {
    std::set<std::string> on;
    for (const auto& f : r.races) {
        for (const std::string loc : {"x", "f1", "f2", "f3", "f4", "f5"}) {
            if (f.text.find("at " + loc + " = ") != std::string::npos) {
                on.insert(loc);
            }
        }
    }
    return on;
}

std::string all_reports(const lit::result& r) {
    std::string s;
    for (const auto& f : r.races) {
        s += f.text + "\n";
    }
    return s;
}

constexpr race_check_kind models[] = {race_check_kind::hrf_direct, race_check_kind::hrf_indirect,
                                      race_check_kind::rsp};

// The oracle itself, on the cases the notes work out by hand (so that a mistake in expected_races
// cannot carry the whole family): issue 26's WG-DV-WG chain is racy under hrf-direct only (§1.4's E4),
// an all-device chain is race-free, a WG hop across work-groups races everywhere, a remote acquire
// pairs under RSP only.
TEST(LitmusRaceChains, OracleAgreesWithTheNotesOnHandCases) {
    const auto f = family();
    const auto find = [&](const std::string& n) {
        for (const auto& c : f) {
            if (c.name == n) {
                return c;
            }
        }
        ADD_FAILURE() << "no chain " << n;
        return chain{};
    };
    const chain issue = find("chain3_mixed");
    EXPECT_EQ(issue.group_of, (std::vector<unsigned>{0, 0, 1, 1}));
    EXPECT_EQ(expected_races(issue, race_check_kind::hrf_direct), std::set<std::string>{"x"});
    EXPECT_TRUE(expected_races(issue, race_check_kind::hrf_indirect).empty());
    EXPECT_TRUE(expected_races(issue, race_check_kind::rsp).empty());
    for (const auto m : models) {
        EXPECT_TRUE(expected_races(find("chain5_device"), m).empty());
        EXPECT_EQ(expected_races(find("chain2_broken"), m), (std::set<std::string>{"f2", "x"}));
    }
    EXPECT_TRUE(expected_races(find("chain4_remote"), race_check_kind::rsp).empty());
    EXPECT_EQ(expected_races(find("chain4_remote"), race_check_kind::hrf_indirect),
              (std::set<std::string>{"f2", "x"}));
    EXPECT_TRUE(expected_races(find("chain3_remote_release"), race_check_kind::rsp).empty());
    EXPECT_EQ(expected_races(find("chain3_remote_release"), race_check_kind::hrf_direct),
              (std::set<std::string>{"f2", "x"}));
    EXPECT_TRUE(expected_races(find("chain3_scopes"), race_check_kind::rsp).empty());
    EXPECT_EQ(expected_races(find("chain3_scopes"), race_check_kind::hrf_indirect),
              (std::set<std::string>{"f1", "f3", "x"}));
}

// Every chain under every model: a complete exploration, and the definitions' verdict and locations.
TEST(LitmusRaceChains, ExactVerdictsMatchTheDefinitions) {
    for (const auto& c : family()) {
        for (const auto m : models) {
            SCOPED_TRACE(fmt::format("{} under {}; the test:\n{}", c.name, model_name(m), source(c)));
            const auto r = explore(c, m, true);
            const auto want = expected_races(c, m);
            ASSERT_TRUE(r.race_complete) << "gave up after " << r.race_runs << " runs";
            EXPECT_EQ(r.race_sampled, 0u);
            ASSERT_TRUE(r.race_verdict().has_value());
            EXPECT_EQ(*r.race_verdict(), !want.empty()) << all_reports(r);
            EXPECT_EQ(raced_locations(r), want) << all_reports(r);
            if (!want.empty()) {
                EXPECT_NE(r.races[0].text.find("first in SC execution"), std::string::npos)
                    << r.races[0].text;
            }
        }
    }
}

// The reduction against no reduction: plain depth-first enumeration of every schedule (each SC
// execution run in full, no state cache) finds the same races, site pair by site pair, on the chains of
// up to four hops, and the definitions' locations; and it does more work, so the cache did cut
// something.
TEST(LitmusRaceChains, ExactExplorationAgreesWithPlainDfs) {
    for (const auto& c : family()) {
        // Plain DFS runs every interleaving of the shared operations (local steps are merged into
        // them, as in the exact exploration): at most 3,547 runs a chain up to four hops (0.25 s a
        // model in all), the same for five.
        if (c.hops.size() > 4) {
            continue;
        }
        for (const auto m : models) {
            SCOPED_TRACE(fmt::format("{} under {}; the test:\n{}", c.name, model_name(m), source(c)));
            const auto cached = explore(c, m, true);
            const auto plain = explore(c, m, false);
            ASSERT_TRUE(cached.race_complete);
            ASSERT_TRUE(plain.race_complete);
            std::set<std::string> a, b;
            for (const auto& f : cached.races) {
                a.insert(f.sites);
            }
            for (const auto& f : plain.races) {
                b.insert(f.sites);
            }
            EXPECT_EQ(a, b) << "cached:\n" << all_reports(cached) << "plain:\n" << all_reports(plain);
            EXPECT_EQ(raced_locations(plain), expected_races(c, m));
            EXPECT_LT(cached.race_runs, plain.race_runs);
        }
    }
}

// An exploration cut short claims nothing: no race found is "unknown", not race-free; a race found
// before the limit still makes the verdict racy.
TEST(LitmusRaceChains, IncompleteExplorationClaimsNoRaceFreedom) {
    const chain c = family()[0]; // chain2_device: race-free
    ASSERT_EQ(c.name, "chain2_device");
    lit::run_options o;
    o.exhaustive_limit = 0;
    o.seeds = 1;
    o.race_check = race_check_kind::hrf_indirect;
    o.race_check_exhaustive_limit = 2;
    o.race_samples = 5;
    const auto r = lit::run(lit::parse(source(c), c.name + ".litmus"), o);
    EXPECT_FALSE(r.race_complete);
    EXPECT_EQ(r.race_runs, 2u);
    EXPECT_EQ(r.race_sampled, 5u);
    EXPECT_FALSE(r.race_verdict().has_value());
}

// Why the state key must hold the detector's state: two histories that leave memory and every thread's
// trace equal but not the clocks. P0 stores f relaxed, writes x, stores f with release, then stores g
// relaxed; P1 acquires f, loads g relaxed, and reads x only if both read 1. By the definitions (all three
// models): P1 reads x only after P0's last store, so after P0's write of x; the read is ordered after it
// only if P1's acquire read the release store (so_DV: same scope, one device). An acquire that read the
// relaxed store synchronizes with nothing (no release precedes it in P0's release sequence), and g is
// relaxed: the SC execution "f relaxed; P1 acquires f (1); x; f release; g; P1 loads g (1); P1 reads x"
// races on x. Depth-first search runs P0 to the end first, so the synchronized history reaches "P0 done,
// P1 read 1 from f, about to load g" first, and the racy one reaches a state with the same memory and
// traces (P1 read the value 1 either way) but other clocks. A key without the detector's state merges
// them and calls the test race-free (tried: 12 runs, 22 states); the exact exploration keeps them apart.
TEST(LitmusRaceChains, StateKeyNeedsTheDetectorsState) {
    const char* src = R"(OpenCL MP_relaxed_then_release
{ [x]=0; [f]=0; [g]=0; }
P0 (global int* x, global atomic_int* f, global atomic_int* g) {
  atomic_store_explicit(f, 1, memory_order_relaxed, memory_scope_device);
  *x = 1;
  atomic_store_explicit(f, 1, memory_order_release, memory_scope_device);
  atomic_store_explicit(g, 1, memory_order_relaxed, memory_scope_device);
}
P1 (global int* x, global atomic_int* f, global atomic_int* g) {
  int r0 = atomic_load_explicit(f, memory_order_acquire, memory_scope_device);
  int r2 = atomic_load_explicit(g, memory_order_relaxed, memory_scope_device);
  int r1 = -1;
  if (r0 == 1 && r2 == 1) { r1 = *x; }
}
scopeTree (device (work_group P0) (work_group P1))
exists (1:r1=0))";
    const auto t = lit::parse(src, "key.litmus");
    for (const auto m : models) {
        SCOPED_TRACE(model_name(m));
        lit::run_options o;
        o.exhaustive_limit = 0;
        o.seeds = 1;
        o.race_check = m;
        o.race_samples = 0;
        const auto cached = lit::run(t, o);
        o.reduction = false;
        const auto plain = lit::run(t, o);
        ASSERT_TRUE(cached.race_complete);
        ASSERT_TRUE(plain.race_complete);
        EXPECT_EQ(raced_locations(cached), std::set<std::string>{"x"}) << all_reports(cached);
        EXPECT_EQ(raced_locations(plain), std::set<std::string>{"x"}) << all_reports(plain);
    }
}

// When the exploration cannot finish, the verdict rests on sampled SC runs, and those must be able to
// complete a long chain. A uniform random order seldom does: every receiver starts with its acquire
// while its sender's release comes after the sender's own acquire, so the i-th receiver must be held
// back through all its i predecessors do (issue 26). PCT orders reach it: at depth 1 a random priority
// order runs the threads one after another, in chain order with probability 1/(h+1)!. Sampling only
// (race_check_exhaustive_limit 0), seeds 1..4000: the 4-hop mixed chain under hrf-direct, whose race
// (on x) needs the whole chain. When this test was written: PCT mixed in 13 runs, uniform alone 1.
TEST(LitmusRaceChains, PctSamplingCompletesDeepChains) {
    chain c;
    for (const auto& f : family()) {
        if (f.name == "chain4_mixed") {
            c = f;
        }
    }
    ASSERT_EQ(c.name, "chain4_mixed");
    const auto sample = [&](unsigned pct_depth) {
        lit::run_options o;
        o.exhaustive_limit = 0;
        o.seeds = 1;
        o.race_check = race_check_kind::hrf_direct;
        o.race_check_exhaustive_limit = 0;
        o.race_samples = 4000;
        o.race_pct_depth = pct_depth;
        return lit::run(lit::parse(source(c), c.name + ".litmus"), o);
    };
    const auto pct = sample(3), uniform = sample(0);
    SCOPED_TRACE(fmt::format("seeds 1..4000; found in {} run(s) with PCT, {} uniform", pct.racy_runs,
                             uniform.racy_runs));
    EXPECT_FALSE(pct.race_complete);
    EXPECT_EQ(pct.race_sampled, 4000u);
    ASSERT_EQ(raced_locations(pct), std::set<std::string>{"x"}) << all_reports(pct);
    // The bias, measured: PCT completes the chain several times as often as the uniform order does.
    EXPECT_GE(pct.racy_runs, 8u);
    EXPECT_GT(pct.racy_runs, 4 * uniform.racy_runs);
    // Sampled runs never prove race freedom: a verdict without a race is "unknown".
    EXPECT_FALSE(uniform.race_complete);
}

} // namespace
