// The heterogeneous-race detector (issue 13): hand-written kernels, one per rule, each with the verdict
// the papers give (citations point at /work/shared/notes/scopes-hrf-rsp.md, "notes §x", and through it
// at Hower et al. ASPLOS'14 [HRF] and Wickerson et al. OOPSLA'15 [RSP]). The oracle is the paper's
// verdict, never the detector. Each kernel runs over several seeds of the deterministic scheduler.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/emulator/memory_model.hpp"
#include "canopy/emulator/race_detector.hpp"
#include "canopy/emulator/work_item.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/platform.hpp"

namespace {

namespace emu = canopy::emu;
using canopy::scope;
using emu::race_check_kind;
using Mo = std::memory_order;

constexpr race_check_kind direct = race_check_kind::hrf_direct;
constexpr race_check_kind indirect = race_check_kind::hrf_indirect;
constexpr race_check_kind rsp = race_check_kind::rsp;
constexpr unsigned seeds = 8;

emu::options opts(race_check_kind m, bool scoped = false) {
    auto o = canopy::test::emu_options("tiny"); // wave32: a work-group of <= 32 is one sub-group
    o.race_check = m;
    if (scoped) {
        o.memory_model = emu::memory_model_kind::scoped;
    }
    return o;
}

// A remote-scope-promoted atomic at any scope (RSP; the emulator's only source of them besides
// runtime::remote_access, which is device scope only): the model with `remote` set, then the detector.
emu::mm_access remote_access(unsigned* p, scope s, Mo o) {
    emu::mm_access a;
    a.address = p;
    a.size = sizeof(unsigned);
    a.scope = s;
    a.order = o;
    a.failure_order = Mo::relaxed;
    a.remote = true;
    return a;
}
void note(emu::work_item& w, unsigned* p, emu::race_op op, scope s, Mo o,
          const canopy::source_location& where) {
    if (w.race) {
        emu::race_on_access(w, emu::race_event{p, sizeof(unsigned), op, s, o, true, where});
    }
}
unsigned remote_load(unsigned* p, scope s, Mo o,
                     canopy::source_location where = canopy::source_location::current()) {
    emu::work_item& w = emu::self();
    emu::yield(w);
    const unsigned v = w.model ? static_cast<unsigned>(w.model->load(w, remote_access(p, s, o)))
                               : std::atomic_ref<unsigned>(*p).load(o);
    note(w, p, emu::race_op::load, s, o, where);
    return v;
}
void remote_store(unsigned* p, unsigned v, scope s, Mo o,
                  canopy::source_location where = canopy::source_location::current()) {
    emu::work_item& w = emu::self();
    emu::yield(w);
    emu::note_progress(w);
    if (w.model) {
        w.model->store(w, remote_access(p, s, o), v);
    } else {
        std::atomic_ref<unsigned>(*p).store(v, o);
    }
    note(w, p, emu::race_op::store, s, o, where);
}
unsigned remote_fetch_add(unsigned* p, unsigned v, scope s, Mo o,
                          canopy::source_location where = canopy::source_location::current()) {
    emu::work_item& w = emu::self();
    emu::yield(w);
    emu::note_progress(w);
    const unsigned old =
        w.model
            ? static_cast<unsigned>(w.model->rmw(w, remote_access(p, s, o), emu::mm_rmw::add, v, 0, nullptr))
            : std::atomic_ref<unsigned>(*p).fetch_add(v, o);
    note(w, p, emu::race_op::rmw, s, o, where);
    return old;
}

template <scope S> canopy::atomic_ref<unsigned, S> at(unsigned& x) {
    return canopy::atomic_ref<unsigned, S>(x);
}

std::string all_reports() {
    std::string s;
    for (const auto& r : emu::last_report().races) {
        s += emu::to_string(r) + "\n";
    }
    return s;
}

/// Runs `kernel` (grid x block, `words` zeroed words) under `o` for `seeds` seeds; returns how many
/// seeds reported at least one race.
template <class Kernel>
unsigned racy_seeds(const emu::options& o, unsigned grid, unsigned block, unsigned words, Kernel kernel,
                    std::string* last = nullptr) {
    unsigned racy = 0;
    canopy::test::for_seeds(o, seeds, [&] {
        canopy::device_buffer<unsigned> mem(words);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = grid, .block = block}, [=] { kernel(m); });
        const auto& r = emu::last_report();
        EXPECT_EQ(r.race_check, o.race_check);
        if (!r.races.empty()) {
            ++racy;
            if (last) {
                *last = all_reports();
            }
        }
    });
    return racy;
}

#define EXPECT_RACY(o, ...)                                                                                  \
    do {                                                                                                     \
        std::string rep_;                                                                                    \
        EXPECT_EQ(racy_seeds(o, __VA_ARGS__, &rep_), seeds)                                                  \
            << "expected a race under " << emu::to_string(o.race_check);                                     \
    } while (0)
#define EXPECT_RACE_FREE(o, ...)                                                                             \
    do {                                                                                                     \
        std::string rep_;                                                                                    \
        EXPECT_EQ(racy_seeds(o, __VA_ARGS__, &rep_), 0u) << rep_;                                            \
    } while (0)

// ---- switches ------------------------------------------------------------------------------------

TEST(RaceDetector, OffByDefault) {
    EXPECT_EQ(emu::options{}.race_check, race_check_kind::none);
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 2, [] {
        canopy::device_buffer<unsigned> mem(1);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 2, .block = 1}, [=] { canopy::st(&m[0], canopy::block_id()); });
        EXPECT_EQ(emu::last_report().race_check, race_check_kind::none);
        EXPECT_TRUE(emu::last_report().races.empty());
    });
}

TEST(RaceDetector, ParsesModelNames) {
    EXPECT_EQ(emu::parse_race_check("hrf-direct"), direct);
    EXPECT_EQ(emu::parse_race_check("hrf-indirect"), indirect);
    EXPECT_EQ(emu::parse_race_check("rsp"), rsp);
    EXPECT_EQ(emu::parse_race_check("none"), race_check_kind::none);
    try {
        emu::parse_race_check("hrf");
        FAIL() << "no error";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("none, hrf-direct, hrf-indirect, rsp"), std::string::npos)
            << e.what();
    }
}

TEST(RaceDetector, RefusesLaunchesAboveTheCap) {
    emu::scoped_options s(opts(indirect));
    try {
        // 100 x 256 = 25,600 work-items: 2.4 GiB of hrf-indirect clocks (the limit is 2 GiB).
        canopy::launch({.grid = 100, .block = 256}, [] {});
        FAIL() << "no error";
    } catch (const canopy::error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("25600 work-items, 2.4 GiB of clocks, above the 2 GiB limit"), std::string::npos)
            << m;
        EXPECT_NE(m.find("smaller grid or block"), std::string::npos) << m;
    }
}

TEST(RaceDetector, RefusesTheParallelScheduler) {
    auto o = opts(direct);
    o.scheduler = emu::scheduler_kind::parallel;
    emu::scoped_options s(o);
    try {
        canopy::launch({.grid = 1, .block = 1}, [] {});
        FAIL() << "no error";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("deterministic"), std::string::npos) << e.what();
    }
}

// ---- HRF transitivity ---------------------------------------------------------------------------

// [HRF] Fig. 6, notes §1.5 E4 (= RSP_Test5, notes §3.4): X written in wgX, a WG-scope hop to a second
// work-item of wgX, then a DV-scope hop to wgY. HRF-direct: racy (the chain mixes so_WG and so_DV);
// HRF-indirect: race-free; the OpenCL/RSP model's hb = (sb ∪ sw)+ is indirect: race-free.
template <scope Hop1> void e4(unsigned* m) {
    unsigned& x = m[0];
    if (canopy::block_id() == 0 && canopy::thread_id() == 0) { // wi1
        canopy::st(&x, 1u);
        at<Hop1>(m[1]).store(1, Mo::seq_cst);
    } else if (canopy::block_id() == 0) { // wi2
        canopy::spin_until([&] { return at<Hop1>(m[1]).load(Mo::seq_cst) == 1; });
        (void)canopy::ld(&x);
        at<scope::device>(m[2]).store(1, Mo::seq_cst);
    } else if (canopy::thread_id() == 0) { // wi3
        canopy::spin_until([&] { return at<scope::device>(m[2]).load(Mo::seq_cst) == 1; });
        (void)canopy::ld(&x);
    }
}

TEST(RaceDetector, E4MixedScopeChain) {
    for (bool scoped : {false, true}) {
        SCOPED_TRACE(scoped ? "scoped memory" : "coherent memory");
        EXPECT_RACY(opts(direct, scoped), 2, 2, 3, e4<scope::workgroup>);
        EXPECT_RACE_FREE(opts(indirect, scoped), 2, 2, 3, e4<scope::workgroup>);
        EXPECT_RACE_FREE(opts(rsp, scoped), 2, 2, 3, e4<scope::workgroup>);
    }
    std::string rep;
    racy_seeds(opts(direct), 2, 2, 3, e4<scope::workgroup>, &rep);
    EXPECT_NE(rep.find("chain of synchronizations at different scopes"), std::string::npos) << rep;
}

// A report's replay line reproduces it: on a device, memory model and seed other than the defaults
// (hrf8, scoped, seed 5), the environment the line names, read back by options_from_environment, gives
// the same launch the same race at the same sites. (A line naming only the seed and model replayed
// nothing of the kind: the default device is tiny.)
TEST(RaceDetector, ReplayLineReproducesTheReport) {
    auto o = canopy::test::emu_options("hrf8");
    o.race_check = direct;
    o.memory_model = emu::memory_model_kind::scoped;
    o.seed = 5;
    const auto run = [](const emu::options& with) {
        emu::scoped_options so(with);
        canopy::device_buffer<unsigned> mem(3);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 2, .block = 2}, [=] { e4<scope::workgroup>(m); });
        return emu::last_report().races;
    };
    const auto first = run(o);
    ASSERT_FALSE(first.empty()) << "e4 under hrf-direct races";
    const std::string line = first[0].replay;
    EXPECT_EQ(emu::to_string(first[0]).find("replay: " + line), emu::to_string(first[0]).find("replay: "));
    // KEY=VALUE tokens up to the parenthesis that explains them.
    std::vector<std::pair<std::string, std::string>> env;
    std::istringstream in(line.substr(0, line.find(" (")));
    for (std::string tok; in >> tok;) {
        const auto eq = tok.find('=');
        ASSERT_NE(eq, std::string::npos) << line;
        env.emplace_back(tok.substr(0, eq), tok.substr(eq + 1));
    }
    for (const char* key : {"CANOPY_EMU_SEED", "CANOPY_EMU_DEVICE", "CANOPY_EMU_MEMORY_MODEL"}) {
        EXPECT_TRUE(std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == key; }))
            << key << " missing from: " << line;
    }
    for (const auto& [k, v] : env) {
        ::setenv(k.c_str(), v.c_str(), 1);
    }
    const emu::options replayed = emu::options_from_environment();
    for (const auto& kv : env) {
        ::unsetenv(kv.first.c_str());
    }
    EXPECT_EQ(replayed.device.name, "hrf8");
    EXPECT_EQ(replayed.seed, 5u);
    const auto again = run(replayed);
    ASSERT_EQ(again.size(), first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        EXPECT_EQ(again[i].first.where.line, first[i].first.where.line);
        EXPECT_EQ(again[i].second.where.line, first[i].second.where.line);
        EXPECT_EQ(again[i].first.block, first[i].first.block);
        EXPECT_EQ(again[i].second.thread, first[i].second.thread);
        EXPECT_EQ(again[i].occurrences, first[i].occurrences);
    }
}

// The same chain with both hops at device scope: one scope, so race-free under every model ([HRF] §3,
// the programmer rule of notes §1.3).
TEST(RaceDetector, SameScopeDeviceChain) {
    EXPECT_RACE_FREE(opts(direct), 2, 2, 3, e4<scope::device>);
    EXPECT_RACE_FREE(opts(indirect), 2, 2, 3, e4<scope::device>);
    EXPECT_RACE_FREE(opts(rsp), 2, 2, 3, e4<scope::device>);
}

// ---- message passing ----------------------------------------------------------------------------

// Message passing from work-group 0 to work-group 1: data with st, a flag released at `Rel` and
// acquired at `Acq`. Work-group scope across work-groups is racy under all three models (notes §1.3:
// so_S needs one scope instance; §3.3: incl needs both scopes to reach; RSP_Test2 without the remote
// flag). Device scope on both sides is the message-passing example of notes §3.3: race-free.
constexpr unsigned mp_write_line = __LINE__ + 4;
constexpr unsigned mp_read_line = __LINE__ + 7;
template <scope Rel, scope Acq> void mp(unsigned* m) {
    if (canopy::block_id() == 0) {
        canopy::st(&m[0], 42u);
        at<Rel>(m[1]).store(1, Mo::release);
    } else {
        canopy::spin_until([&] { return at<Acq>(m[1]).load(Mo::acquire) == 1; });
        (void)canopy::ld(&m[0]);
    }
}

TEST(RaceDetector, MessagePassing) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACY(opts(k), 2, 1, 2, (mp<scope::workgroup, scope::workgroup>));
        EXPECT_RACY(opts(k), 2, 1, 2, (mp<scope::workgroup, scope::device>));
        EXPECT_RACE_FREE(opts(k), 2, 1, 2, (mp<scope::device, scope::device>));
    }
}

// A report names both sites (file:line), both work-groups, and why the synchronization did not count:
// here a work-group-scope release in block 0 acquired at device scope in block 1.
TEST(RaceDetector, ReportNamesSitesBlocksAndScopes) {
    canopy::test::for_seeds(opts(indirect), 3, [] {
        canopy::device_buffer<unsigned> mem(2);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 2, .block = 1}, [=] { mp<scope::workgroup, scope::device>(m); });
        // Two races: the data (plain) and the flag itself (a work-group-scope store and a device-scope
        // load are a synchronization conflict, notes §1.3).
        const auto& races = emu::last_report().races;
        ASSERT_EQ(races.size(), 2u) << all_reports();
        const auto& r = races[0].first.op == emu::race_op::plain_store ? races[0] : races[1];
        const auto& flag = races[0].first.op == emu::race_op::plain_store ? races[1] : races[0];
        EXPECT_TRUE(flag.first.atomic() && flag.second.atomic()) << emu::to_string(flag);
        EXPECT_EQ(r.model, indirect);
        EXPECT_EQ(r.first.where.line, mp_write_line) << emu::to_string(r);
        EXPECT_EQ(r.second.where.line, mp_read_line) << emu::to_string(r);
        EXPECT_NE(std::string(r.first.where.file).find("test_race_detector.cpp"), std::string::npos);
        EXPECT_EQ(r.first.block, 0u);
        EXPECT_EQ(r.second.block, 1u);
        EXPECT_EQ(r.first.op, emu::race_op::plain_store);
        EXPECT_EQ(r.second.op, emu::race_op::plain_load);
        EXPECT_EQ(r.first.address, static_cast<const void*>(&m[0]));
        EXPECT_EQ(r.seed, emu::current_options().seed);
        EXPECT_NE(r.reason.find("released at work-group scope in block 0"), std::string::npos) << r.reason;
        EXPECT_NE(r.reason.find("acquired at device scope in block 1"), std::string::npos) << r.reason;
        EXPECT_NE(r.reason.find("work-group 0's scope does not include block 1"), std::string::npos)
            << r.reason;
        const std::string text = emu::to_string(r);
        EXPECT_NE(text.find("CANOPY_EMU_SEED="), std::string::npos) << text;
        EXPECT_NE(text.find(":" + std::to_string(mp_write_line)), std::string::npos) << text;
    });
}

// ---- atomics of insufficient scope --------------------------------------------------------------

// [HRF] Fig. 5, notes §1.5 E3: all-atomic store buffering with A at work-group scope and B at device
// scope. Same work-group: race-free; different work-groups: the two A accesses are a synchronization
// conflict (different WG instances), racy under every model (RSP: neither WG scope reaches the other).
void e3(unsigned* m) {
    if (canopy::global_id() == 0) {
        at<scope::workgroup>(m[0]).store(1);
        (void)at<scope::device>(m[1]).load();
    } else if (canopy::global_id() == 1) {
        at<scope::device>(m[1]).store(1);
        (void)at<scope::workgroup>(m[0]).load();
    }
}

TEST(RaceDetector, E3AtomicsOfInsufficientScope) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 1, 2, 2, e3);
        EXPECT_RACY(opts(k), 2, 1, 2, e3);
    }
    std::string rep;
    racy_seeds(opts(direct), 2, 1, 2, e3, &rep);
    EXPECT_NE(rep.find("scopes are not inclusive"), std::string::npos) << rep;
}

// [HRF] Fig. 7, notes §1.5 E5: one work-group, A and B each accessed at device scope by one work-item
// and at work-group scope by the other. HRF-direct/indirect: racy (a synchronization conflict needs the
// same scope); the RSP paper's base model is HRF-relaxed (notes §3.3): both scopes reach both
// work-items, so race-free.
void e5(unsigned* m) {
    if (canopy::thread_id() == 0) {
        at<scope::device>(m[0]).store(1);
        (void)at<scope::device>(m[1]).load();
    } else {
        at<scope::workgroup>(m[1]).store(1);
        (void)at<scope::workgroup>(m[0]).load();
    }
}

TEST(RaceDetector, E5ScopeInclusion) {
    EXPECT_RACY(opts(direct), 1, 2, 2, e5);
    EXPECT_RACY(opts(indirect), 1, 2, 2, e5);
    EXPECT_RACE_FREE(opts(rsp), 1, 2, 2, e5);
}

// A counter incremented by one work-item of each of two work-groups: at work-group scope the RMWs are
// in different scope instances (racy: notes §1.3 synchronization conflict; §3.3: dr is conflict minus
// hb and incl); at device scope race-free ([RSP] Example 1, notes §3.3).
template <scope S> void counter(unsigned* m) { at<S>(m[0]).fetch_add(1, Mo::relaxed); }

TEST(RaceDetector, AtomicCounter) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACY(opts(k), 2, 1, 1, counter<scope::workgroup>);
        EXPECT_RACE_FREE(opts(k), 2, 1, 1, counter<scope::device>);
        EXPECT_RACE_FREE(opts(k), 1, 2, 1, counter<scope::workgroup>); // one work-group: one instance
    }
}

// Sub-group scope: a sub-group-scope release/acquire pairs only inside one sub-group (notes §1.1: the
// scope instance is the wavefront). Work-item 0 publishes to work-item `Reader` of its work-group;
// with a work-group of 33 work-items on wave32, work-item 32 is in the second sub-group.
template <unsigned Reader> void subgroup_mp(unsigned* m) {
    if (canopy::thread_id() == 0) {
        canopy::st(&m[0], 42u);
        at<scope::subgroup>(m[1]).store(1, Mo::release);
    } else if (canopy::thread_id() == Reader) {
        canopy::spin_until([&] { return at<scope::subgroup>(m[1]).load(Mo::acquire) == 1; });
        (void)canopy::ld(&m[0]);
    }
}

TEST(RaceDetector, SubgroupScope) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 1, 33, 2, subgroup_mp<1>);
        EXPECT_RACY(opts(k), 1, 33, 2, subgroup_mp<32>);
    }
}

// Release sequences (C11, as the RSP model's rs has them, notes §3.3): a relaxed RMW by a third
// work-item continues the writer's release sequence, so the reader's acquire of the RMW's value still
// synchronizes with the writer (race-free); a relaxed plain store by the third work-item ends it (racy).
// (The detector judges the execution the schedule produced: the reader's acquire pairs with the release
// set of the last write before it.)
template <bool Rmw> void release_sequence(unsigned* m) {
    const unsigned b = canopy::block_id();
    if (b == 0) {
        canopy::st(&m[0], 42u);
        at<scope::device>(m[1]).store(1, Mo::release);
    } else if (b == 1) {
        canopy::spin_until([&] { return at<scope::device>(m[1]).load(Mo::relaxed) == 1; });
        if (Rmw) {
            at<scope::device>(m[1]).fetch_add(1, Mo::relaxed);
        } else {
            at<scope::device>(m[1]).store(2, Mo::relaxed);
        }
    } else {
        // Wait with relaxed loads: an acquire load that happened to read the writer's 1 would itself
        // synchronize with the writer, and the execution would be race-free either way.
        canopy::spin_until([&] { return at<scope::device>(m[1]).load(Mo::relaxed) == 2; });
        (void)at<scope::device>(m[1]).load(Mo::acquire);
        (void)canopy::ld(&m[0]);
    }
}

TEST(RaceDetector, ReleaseSequences) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 3, 1, 2, release_sequence<true>);
        EXPECT_RACY(opts(k), 3, 1, 2, release_sequence<false>);
    }
}

// ---- fences -------------------------------------------------------------------------------------

// Fence-based message passing: st; fence(release, F); relaxed flag store || relaxed flag load;
// fence(acquire, F); ld. Fences at device scope across work-groups: race-free (the fence pair is a
// release/acquire at device scope, C++ [atomics.fences] with HRF's scope condition); at work-group
// scope across work-groups: racy (the fences' scope instance does not include both, notes §1.3).
template <scope F> void fence_mp(unsigned* m) {
    if (canopy::block_id() == 0) {
        canopy::st(&m[0], 42u);
        canopy::fence<F>(Mo::release);
        at<scope::device>(m[1]).store(1, Mo::relaxed);
    } else {
        canopy::spin_until([&] { return at<scope::device>(m[1]).load(Mo::relaxed) == 1; });
        canopy::fence<F>(Mo::acquire);
        (void)canopy::ld(&m[0]);
    }
}

TEST(RaceDetector, FenceMessagePassing) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 2, 1, 2, fence_mp<scope::device>);
        EXPECT_RACY(opts(k), 2, 1, 2, fence_mp<scope::workgroup>);
    }
}

// ---- barriers and collectives -------------------------------------------------------------------

// block_barrier is a work-group-scope synchronization of the whole work-group ([HRF] Fig. 3's
// BarrierSync(work-group scope), notes §1.5 E2): it orders plain accesses within a work-group, and
// nothing across work-groups.
void barrier_within(unsigned* m) {
    if (canopy::thread_id() == 0) {
        canopy::st(&m[0], 1u);
    }
    canopy::block_barrier();
    if (canopy::thread_id() == 1) {
        (void)canopy::ld(&m[0]);
        canopy::st(&m[0], 2u);
    }
}
void barrier_across(unsigned* m) {
    if (canopy::block_id() == 0) {
        canopy::st(&m[0], 1u);
    }
    canopy::block_barrier();
    if (canopy::block_id() == 1) {
        (void)canopy::ld(&m[0]);
    }
}
// A sub-group barrier orders the lanes of one sub-group (sub-group-scope synchronization).
void subgroup_barrier_within(unsigned* m) {
    if (canopy::thread_id() == 0) {
        canopy::st(&m[0], 1u);
    }
    canopy::subgroup_barrier();
    if (canopy::thread_id() == 1) {
        (void)canopy::ld(&m[0]);
    }
}
void no_sync(unsigned* m) {
    if (canopy::thread_id() == 0) {
        canopy::st(&m[0], 1u);
    } else {
        (void)canopy::ld(&m[0]);
    }
}

TEST(RaceDetector, BarriersOrderPlainAccesses) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 1, 2, 1, barrier_within);
        EXPECT_RACY(opts(k), 2, 1, 1, barrier_across);
        EXPECT_RACE_FREE(opts(k), 1, 2, 1, subgroup_barrier_within);
        EXPECT_RACY(opts(k), 1, 2, 1, no_sync);
    }
}

// A launch boundary synchronizes everything with the host: a write in one launch and a read in the
// next never race ([HRF] §2: kernel boundaries are device-wide synchronization; Rodinia's relaunch).
TEST(RaceDetector, LaunchBoundariesSynchronize) {
    canopy::test::for_seeds(opts(direct), 3, [] {
        canopy::device_buffer<unsigned> mem(1);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 2, .block = 1}, [=] {
            if (canopy::block_id() == 0) {
                canopy::st(&m[0], 1u);
            }
        });
        EXPECT_TRUE(emu::last_report().races.empty()) << all_reports();
        canopy::launch({.grid = 2, .block = 1}, [=] {
            if (canopy::block_id() == 1) {
                (void)canopy::ld(&m[0]);
            }
        });
        EXPECT_TRUE(emu::last_report().races.empty()) << all_reports();
    });
}

// Memory that the emulator reuses within a launch is not shared between its owners: a work-group's
// shared memory (the heap may hand a finished group's block back to a later one) and fiber stacks
// (pooled). Eight work-groups on four resident slots reuse both; each touches only its own.
void private_memory(unsigned* m) {
    CANOPY_SHARED(unsigned, mine);
    canopy::st(&mine, canopy::block_id());
    unsigned local = 0;
    canopy::st(&local, canopy::block_id());
    canopy::st(&m[canopy::block_id()], canopy::ld(&mine) + canopy::ld(&local));
}

TEST(RaceDetector, ReusedSharedMemoryAndStacksDoNotRace) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 8, 1, 8, private_memory);
    }
}

// The shadow is per 4-byte word with a byte mask: work-items of different work-groups writing
// different bytes of one word do not conflict (notes §1.3: a conflict is an access to the same
// address); the same byte does.
template <bool SameByte> void bytes_of_one_word(unsigned* m) {
    auto* bytes = reinterpret_cast<unsigned char*>(m);
    const unsigned b = canopy::block_id();
    canopy::st(&bytes[SameByte ? 0 : b], static_cast<unsigned char>(b + 1));
    (void)canopy::ld(&bytes[SameByte ? 0 : b]);
}

TEST(RaceDetector, ByteGranularity) {
    for (auto k : {direct, indirect, rsp}) {
        EXPECT_RACE_FREE(opts(k), 4, 1, 1, bytes_of_one_word<false>);
        EXPECT_RACY(opts(k), 4, 1, 1, bytes_of_one_word<true>);
    }
}

// ---- remote-scope promotion (RSP, notes §3.3-3.4) ------------------------------------------------

// RSP_Test2: x := 53; st(y, 1, WG) || ld(y, DV, remote); r = x. Race-free under rsp (verdict column of
// notes §3.4); HRF has no promotion, so the WG release and the DV acquire do not pair: racy.
void rsp_test2(unsigned* m) {
    if (canopy::block_id() == 0) {
        canopy::st(&m[0], 53u);
        at<scope::workgroup>(m[1]).store(1, Mo::release);
    } else {
        canopy::spin_until([&] { return remote_load(&m[1], scope::device, Mo::acquire) == 1; });
        (void)canopy::ld(&m[0]);
    }
}

TEST(RaceDetector, RspTest2RemoteLoad) {
    EXPECT_RACE_FREE(opts(rsp), 2, 1, 2, rsp_test2);
    EXPECT_RACY(opts(indirect), 2, 1, 2, rsp_test2);
    EXPECT_RACY(opts(direct), 2, 1, 2, rsp_test2);
    std::string rep;
    racy_seeds(opts(indirect), 2, 1, 2, rsp_test2, &rep);
    EXPECT_NE(rep.find("hrf-indirect has no remote-scope promotion"), std::string::npos) << rep;
    EXPECT_NE(rep.find("device scope, acquire, remote"), std::string::npos) << rep;
}

// [RSP] Examples 3 and 4 (notes §3.3): fetch_inc_WG(x) || store_DV(x, 2) in another work-group is racy;
// with the store remote it is race-free.
template <bool Remote> void rsp_example4(unsigned* m) {
    if (canopy::block_id() == 0) {
        at<scope::workgroup>(m[0]).fetch_add(1, Mo::acq_rel);
    } else if (Remote) {
        remote_store(&m[0], 2, scope::device, Mo::release);
    } else {
        at<scope::device>(m[0]).store(2, Mo::release);
    }
}

TEST(RaceDetector, RspExample4RemoteStore) {
    EXPECT_RACE_FREE(opts(rsp), 2, 1, 1, rsp_example4<true>);
    EXPECT_RACY(opts(rsp), 2, 1, 1, rsp_example4<false>);
    EXPECT_RACY(opts(indirect), 2, 1, 1, rsp_example4<true>); // no promotion in HRF
}

// RSP_Test10 (notes §3.4): two WG fadds in work-group 0 and a remote DV fadd in work-group 1:
// race-free under rsp; with the DV fadd non-remote: racy (checked in the notes).
template <bool Remote> void rsp_test10(unsigned* m) {
    if (canopy::block_id() == 0) {
        at<scope::workgroup>(m[0]).fetch_add(1, Mo::acq_rel);
    } else if (canopy::thread_id() == 0) {
        if (Remote) {
            remote_fetch_add(&m[0], 1, scope::device, Mo::acq_rel);
        } else {
            at<scope::device>(m[0]).fetch_add(1, Mo::acq_rel);
        }
    }
}

TEST(RaceDetector, RspTest10RemoteRmw) {
    EXPECT_RACE_FREE(opts(rsp), 2, 2, 1, rsp_test10<true>);
    EXPECT_RACY(opts(rsp), 2, 2, 1, rsp_test10<false>);
}

// [RSP] footnote 3 (notes §3.3): a remote op's own scope must still reach the other party, so two
// remote WG-scope RMWs in different work-groups still race under rsp.
void footnote3(unsigned* m) { remote_fetch_add(&m[0], 1, scope::workgroup, Mo::acq_rel); }

TEST(RaceDetector, RspFootnote3RemoteWorkGroupOpsStillRace) {
    std::string rep;
    EXPECT_EQ(racy_seeds(opts(rsp), 2, 1, 1, footnote3, &rep), seeds);
    EXPECT_NE(rep.find("footnote 3"), std::string::npos) << rep;
}

// ---- the HRF task runtime's donation by reference ([HRF] §4 and §7, notes §1.4, §2.2) -------------

// A task's payload is written by a1 in work-group A and published at work-group scope; a2 in A takes
// it (WG acquire) and moves it to the device queue by reference: it re-publishes only the index with a
// device-scope release, without copying the payload; b1 in work-group B takes it (DV acquire) and
// reads the payload. The chain is so_WG then so_DV: racy under HRF-direct (the payload's write and
// read are unordered in every single-scope closure), race-free under HRF-indirect (notes §1.4: "a
// producer may use a cheap work-group release and rely on a peer to perform a later, wider-scope
// release"). Slots: m[0] payload, m[1] WG flag, m[2] the device queue's published index + 1, m[3] a
// payload copy.
constexpr unsigned donate_write_line = __LINE__ + 5;
constexpr unsigned donate_read_line = __LINE__ + 17;
template <bool Copy> void donate(unsigned* m) {
    const unsigned id = canopy::global_id();
    if (id == 0) { // a1
        canopy::st(&m[0], 42u);
        at<scope::workgroup>(m[1]).store(1, Mo::release);
    } else if (id == 1) { // a2
        canopy::spin_until([&] { return at<scope::workgroup>(m[1]).load(Mo::acquire) == 1; });
        unsigned slot = 0;
        if (Copy) {
            canopy::st(&m[3], canopy::ld(&m[0]));
            slot = 3;
        }
        at<scope::device>(m[2]).store(slot + 1, Mo::release);
    } else if (id == 2) { // b1
        unsigned published = 0;
        canopy::spin_until([&] { return (published = at<scope::device>(m[2]).load(Mo::acquire)) != 0; });
        (void)canopy::ld(&m[published - 1]);
    }
}

TEST(RaceDetector, DonationByReference) {
    for (bool scoped : {false, true}) {
        SCOPED_TRACE(scoped ? "scoped memory" : "coherent memory");
        EXPECT_RACY(opts(direct, scoped), 2, 2, 4, donate<false>);
        EXPECT_RACE_FREE(opts(indirect, scoped), 2, 2, 4, donate<false>);
        EXPECT_RACE_FREE(opts(rsp, scoped), 2, 2, 4, donate<false>);
        // The copy variant: every hop carries only what its own scope published.
        EXPECT_RACE_FREE(opts(direct, scoped), 2, 2, 4, donate<true>);
        EXPECT_RACE_FREE(opts(indirect, scoped), 2, 2, 4, donate<true>);
    }
    canopy::test::for_seeds(opts(direct), 3, [] {
        constexpr unsigned donate_alloc_line = __LINE__ + 1;
        canopy::device_buffer<unsigned> mem(4);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 2, .block = 2}, [=] { donate<false>(m); });
        const auto& races = emu::last_report().races;
        ASSERT_EQ(races.size(), 1u) << all_reports();
        const auto& r = races[0];
        EXPECT_EQ(r.first.where.line, donate_write_line) << emu::to_string(r);
        EXPECT_EQ(r.second.where.line, donate_read_line) << emu::to_string(r);
        EXPECT_EQ(r.first.block, 0u);
        EXPECT_EQ(r.first.thread, 0u);
        EXPECT_EQ(r.second.block, 1u);
        EXPECT_NE(r.reason.find("hrf-direct composes only synchronization of one scope"), std::string::npos)
            << r.reason;
        // The buffer is named by the emulator's allocation registry: its size and allocating line.
        const std::string at = "test_race_detector.cpp:" + std::to_string(donate_alloc_line) + ", byte 0";
        for (const auto* a : {&r.first, &r.second}) {
            EXPECT_EQ(a->buffer.rfind("the 16-byte buffer allocated at ", 0), 0u) << emu::to_string(r);
            EXPECT_NE(a->buffer.find(at), std::string::npos) << emu::to_string(r);
        }
    });
}

// Deduplication: a race seen many times between the same two sites is one report with a count.
TEST(RaceDetector, DeduplicatesBySitePair) {
    canopy::test::for_seeds(opts(indirect), 2, [] {
        canopy::device_buffer<unsigned> mem(1);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 4, .block = 1}, [=] {
            for (int i = 0; i < 3; ++i) {
                canopy::st(&m[0], 1u);
            }
        });
        const auto& r = emu::last_report();
        ASSERT_EQ(r.races.size(), 1u) << all_reports();
        EXPECT_EQ(r.distinct_races, 1u);
        EXPECT_GT(r.races[0].occurrences, 1u);
    });
}

// ---- several devices (options::race_block_device; the litmus runner's multi-device scopeTrees) ----

// Message passing released at work-group scope in block 0 and acquired by a remote load at scope S in
// block 1. S = device is RSP_Test12 (notes §3.4, §3.3 footnote 3): a remote op's own scope must reach the
// other party, and device scope does not cross devices, so across two devices the atomics race; on one
// device the remote DV load reaches work-group 0 and promotes the pair (RSP_Test2): race-free. S = system
// is RSP_Test3's hop (notes §3.4): all_svm_devices scope, remote on the acquiring side, crosses devices.
template <scope S> void remote_mp(unsigned* m) {
    if (canopy::block_id() == 0) {
        canopy::st(&m[0], 1u);
        at<scope::workgroup>(m[1]).store(1, Mo::release);
    } else if (remote_load(&m[1], S, Mo::acquire) == 1) {
        (void)canopy::ld(&m[0]);
    }
}
constexpr auto rsp_test12 = remote_mp<scope::device>;
constexpr auto system_scope_mp = remote_mp<scope::system>;
// Device-scope message passing without promotion: race-free on one device, racy across two (HRF too:
// device scope is one device's instance).
void device_scope_mp(unsigned* m) {
    if (canopy::block_id() == 0) {
        canopy::st(&m[0], 1u);
        at<scope::device>(m[1]).store(1, Mo::release);
    } else {
        canopy::spin_until([&] { return at<scope::device>(m[1]).load(Mo::acquire) == 1; });
        (void)canopy::ld(&m[0]);
    }
}

emu::options two_devices(race_check_kind m) {
    auto o = opts(m);
    o.race_block_device = {0, 1};
    return o;
}

TEST(RaceDetector, SeveralDevices) {
    EXPECT_RACE_FREE(opts(rsp), 2, 1, 2, rsp_test12);
    EXPECT_RACY(two_devices(rsp), 2, 1, 2, rsp_test12);
    std::string rep;
    racy_seeds(two_devices(rsp), 2, 1, 2, rsp_test12, &rep);
    EXPECT_NE(rep.find("device 1's scope does not include block 0"), std::string::npos) << rep;

    EXPECT_RACE_FREE(two_devices(rsp), 2, 1, 2, system_scope_mp);

    EXPECT_RACE_FREE(opts(indirect), 2, 1, 2, device_scope_mp);
    EXPECT_RACY(two_devices(indirect), 2, 1, 2, device_scope_mp);
    EXPECT_RACY(two_devices(direct), 2, 1, 2, device_scope_mp);
}

TEST(RaceDetector, RefusesADeviceListOfTheWrongLength) {
    auto o = opts(rsp);
    o.race_block_device = {0, 1, 1};
    emu::scoped_options s(o);
    try {
        canopy::launch({.grid = 2, .block = 1}, [] {});
        FAIL() << "no error";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("race_block_device"), std::string::npos) << e.what();
    }
}

// race_detector::append_state, the litmus runner's exact race exploration's key (docs/race-detector.md,
// "Exact verdicts"): equal for two schedules that reach the same detector state by commuting steps, and
// different where the clocks differ. Driven directly (no launch), with two work-items of one work-group.
namespace state_key {

struct feed {
    emu::race_detector d;
    emu::work_item w[2];
    explicit feed(race_check_kind m) : d(m, 1, 2, 32, 0, 100) {
        for (unsigned t = 0; t < 2; ++t) {
            w[t].global_id = t;
            w[t].thread = t;
        }
    }
    void at(unsigned t, const void* p, emu::race_op op, Mo o, const char* file, unsigned line) {
        d.access(w[t], emu::race_event{p, 4, op, scope::device, o, false, canopy::site(file, line)});
    }
    std::string bytes() const {
        std::string s;
        d.append_state(s);
        return s;
    }
};

TEST(RaceDetectorState, CommutingStepsGiveOneKey) {
    alignas(8) static unsigned a = 0, b = 0;
    // Site file names in two buffers with one text: the key reads the text (the litmus runner's thread
    // labels are copies made per run).
    std::string f1 = "k.litmus", f2 = "k.litmus";
    for (const auto m : {direct, indirect, rsp}) {
        SCOPED_TRACE(emu::to_string(m));
        feed x(m), y(m);
        // 0 writes a then reads b; 1 reads b before both, or after both: one state (b's shadow gets
        // the two reads in the other order).
        x.at(1, &b, emu::race_op::plain_load, Mo::relaxed, f1.c_str(), 2);
        x.at(0, &a, emu::race_op::plain_store, Mo::relaxed, f1.c_str(), 1);
        x.at(0, &b, emu::race_op::plain_load, Mo::relaxed, f1.c_str(), 3);
        y.at(0, &a, emu::race_op::plain_store, Mo::relaxed, f2.c_str(), 1);
        y.at(0, &b, emu::race_op::plain_load, Mo::relaxed, f2.c_str(), 3);
        y.at(1, &b, emu::race_op::plain_load, Mo::relaxed, f2.c_str(), 2);
        EXPECT_EQ(x.bytes(), y.bytes());
        EXPECT_FALSE(x.bytes().empty());
    }
}

TEST(RaceDetectorState, ClocksTellHistoriesApart) {
    alignas(8) static unsigned f = 0;
    for (const auto m : {direct, indirect, rsp}) {
        SCOPED_TRACE(emu::to_string(m));
        // 1 acquires f after 0's release (synchronized) or before it (not): the same accesses, other
        // clocks, so a later plain access of 1 races in one and not in the other.
        feed x(m), y(m);
        x.at(0, &f, emu::race_op::store, Mo::release, "k", 1);
        x.at(1, &f, emu::race_op::load, Mo::acquire, "k", 2);
        y.at(1, &f, emu::race_op::load, Mo::acquire, "k", 2);
        y.at(0, &f, emu::race_op::store, Mo::release, "k", 1);
        EXPECT_NE(x.bytes(), y.bytes());
        // The site is part of the key too (the pair of sites is what a race is reported by).
        feed u(m), v(m);
        u.at(0, &f, emu::race_op::plain_store, Mo::relaxed, "k", 1);
        v.at(0, &f, emu::race_op::plain_store, Mo::relaxed, "k", 7);
        EXPECT_NE(u.bytes(), v.bytes());
    }
}

} // namespace state_key

} // namespace
