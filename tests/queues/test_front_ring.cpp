// canopy/queues/front_ring.hpp on the scoped-cache model: every front pushed by any producer is popped
// exactly once with the payload its producer wrote (a sequential oracle: the set of ids and their
// checksums), through many laps of a 4-slot ring, with batches of 1..3 fronts per reservation; and a
// ring whose publish releases at work-group scope while consumers sit in other work-groups is caught.
// The same for the sub-group's reservation and publish (reserve_push_together, publish_together: the
// sequence words checked and stored by the lanes side by side), and that they are race-free under
// HRF-indirect, the per-lane acquires and releases joined by the sub-group barrier.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/queues/scoped_access.hpp"

namespace {

namespace q = canopy::queues;
using canopy::scope;

constexpr unsigned per_producer = 24;
constexpr unsigned capacity = 4;      // small: many laps, every slot reused
constexpr q::front_shape shape{1, 2}; // [type, count, id, checksum]

CANOPY_HOST_DEVICE constexpr unsigned checksum(unsigned id) { return id * 2654435761u ^ 0x5bd1e995u; }

/// One consumer's step (a leader): pops 1..2 fronts, counts each id's executions (a bad checksum, id
/// or count in `bad`), hands the slots back and adds them to `taken`.
template <class A>
CANOPY_DEVICE void consume_some(const q::front_ring& r, unsigned batch, unsigned total, unsigned* bad,
                                unsigned* executions, unsigned* taken) {
    const q::ring_span s = r.reserve_pop<A>(1 + (batch % 2));
    for (unsigned j = 0; j < s.n; ++j) {
        const q::front_ref f = r.slot(s.first + j);
        const unsigned id = canopy::ld(f.payload(0));
        const unsigned sum = canopy::ld(f.payload(0) + 1);
        if (id >= total || sum != checksum(id) || f.count() != 1) {
            canopy::atomic_ref<unsigned, scope::device>(*bad).fetch_add(1, std::memory_order_relaxed);
        } else {
            canopy::atomic_ref<unsigned, scope::device>(executions[id])
                .fetch_add(1, std::memory_order_relaxed);
        }
    }
    r.release<A>(s);
    if (s.n != 0) {
        canopy::atomic_ref<unsigned, scope::device>(*taken).fetch_add(s.n, std::memory_order_relaxed);
    }
}

/// Whether every front was made here and taken somewhere (the consumers' exit).
CANOPY_DEVICE inline bool all_taken(unsigned made, unsigned* taken, unsigned total) {
    return made == per_producer &&
           canopy::atomic_ref<unsigned, scope::device>(*taken).load(std::memory_order_relaxed) >= total;
}

/// One sub-group leader per work-group produces per_producer fronts (ids wg * per_producer + i) in
/// batches of 1..3 and consumes in batches of 1..2 until every front of every producer is taken.
template <class Publish> struct ring_kernel {
    unsigned* ring_words;
    unsigned* taken;      // device-scope count of fronts popped, by everyone
    unsigned* executions; // per id
    unsigned* bad;        // checksum mismatches, ids out of range
    unsigned total;
    CANOPY_DEVICE void operator()() const {
        if (canopy::thread_id() != 0) {
            return;
        }
        using A = q::scoped_access<scope::device>;
        const q::front_ring r{ring_words, capacity, shape};
        const unsigned wg = canopy::block_id();
        unsigned made = 0, batch = 0;
        canopy::spin_until([&] {
            if (made < per_producer) {
                const unsigned k = 1 + (batch++ % 3);
                const q::ring_span s = r.reserve_push<A>(k < per_producer - made ? k : per_producer - made);
                for (unsigned j = 0; j < s.n; ++j) {
                    const unsigned id = wg * per_producer + made + j;
                    const q::front_ref f = r.slot(s.first + j);
                    canopy::st(f.payload(0), id);
                    canopy::st(f.payload(0) + 1, checksum(id));
                    f.set_header(0, 1);
                }
                r.publish<Publish>(s);
                made += s.n;
            }
            consume_some<A>(r, batch, total, bad, executions, taken);
            return all_taken(made, taken, total);
        });
    }
};

/// The same with the producer side by the whole sub-group: lane j of a reservation writes its front j,
/// a sub-group barrier, then the lanes publish side by side. Consumers are the leaders, as above.
template <class Publish> struct ring_together_kernel {
    unsigned* ring_words;
    unsigned* taken;
    unsigned* executions;
    unsigned* bad;
    unsigned total;
    CANOPY_DEVICE void operator()() const {
        if (canopy::subgroup_id() != 0) {
            return;
        }
        using A = q::scoped_access<scope::device>;
        const q::front_ring r{ring_words, capacity, shape};
        const unsigned wg = canopy::block_id();
        const unsigned lane = canopy::lane_id();
        unsigned made = 0, batch = 0;
        canopy::spin_until([&] {
            if (made < per_producer) { // uniform: made and batch are the same on every lane
                const unsigned k = 1 + (batch++ % 3);
                const q::ring_span s =
                    r.reserve_push_together<A>(k < per_producer - made ? k : per_producer - made, lane);
                if (lane < s.n) {
                    const unsigned id = wg * per_producer + made + lane;
                    const q::front_ref f = r.slot(s.first + lane);
                    canopy::st(f.payload(0), id);
                    canopy::st(f.payload(0) + 1, checksum(id));
                    f.set_header(0, 1);
                }
                canopy::subgroup_barrier(); // the lanes' fronts before any lane's release
                r.publish_together<Publish>(s, lane);
                made += s.n;
            }
            bool done = false;
            if (lane == 0) {
                consume_some<A>(r, batch, total, bad, executions, taken);
                done = all_taken(made, taken, total);
            }
            return canopy::broadcast(done, 0); // the lanes leave together: the loop holds collectives
        });
    }
};

/// Runs the kernel on `grid` work-groups; "" when every front was taken exactly once and intact.
template <class Publish, template <class> class Kernel = ring_kernel> std::string run_ring(unsigned grid) {
    const unsigned total = grid * per_producer;
    canopy::device_buffer<unsigned> words(q::front_ring::words(capacity, shape)), taken(1), exec(total),
        bad(1);
    words.fill_zero();
    taken.fill_zero();
    exec.fill_zero();
    bad.fill_zero();
    canopy::launch({.grid = grid, .block = 32},
                   Kernel<Publish>{words.data(), taken.data(), exec.data(), bad.data(), total});
    std::string out;
    if (const unsigned b = bad.to_vector()[0]; b != 0) {
        out += std::to_string(b) + " stale or torn fronts; ";
    }
    const auto e = exec.to_vector();
    for (unsigned i = 0; i < total; ++i) {
        if (e[i] != 1) {
            out += "front " + std::to_string(i) + " taken " + std::to_string(e[i]) + " times; ";
            break;
        }
    }
    return out;
}

canopy::emu::options scm() {
    auto o = canopy::test::emu_options("tiny"); // 2 CUs x 2 resident work-groups
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    return o;
}

TEST(FrontRing, EveryFrontIsTakenOnceIntactOnTheScopedCacheModel) {
    canopy::test::for_seeds(scm(), 30, [] { ASSERT_EQ(run_ring<q::scoped_access<scope::device>>(4), ""); });
}

TEST(FrontRing, EveryFrontIsTakenOnceUnderPct) {
    auto o = scm();
    o.pct_depth = 3;
    canopy::test::for_seeds(o, 20, [] { ASSERT_EQ(run_ring<q::scoped_access<scope::device>>(4), ""); });
}

// Teeth: publishing with a work-group-scope release leaves the payload in the producer's L1, where a
// consumer on the other compute unit cannot see it.
TEST(FrontRing, PublishNarrowedToWorkGroupScopeIsCaught) {
    unsigned caught = 0;
    std::string first;
    auto o = scm();
    for (unsigned seed = 1; seed <= 30 && caught == 0; ++seed) {
        o.seed = seed;
        canopy::emu::scoped_options s(o);
        const std::string out = run_ring<q::narrowed_release_access<scope::device, scope::workgroup>>(4);
        if (!out.empty()) {
            ++caught;
            first = "seed " + std::to_string(seed) + ": " + out;
        }
    }
    EXPECT_GT(caught, 0u) << "a work-group-scope publish was not caught in 30 seeds";
    if (caught) {
        std::printf("[ note     ] narrowed publish caught: %s\n", first.substr(0, 200).c_str());
    }
}

TEST(FrontRing, SubGroupReservationsTakeEveryFrontOnceOnTheScopedCacheModel) {
    canopy::test::for_seeds(scm(), 30, [] {
        ASSERT_EQ((run_ring<q::scoped_access<scope::device>, ring_together_kernel>(4)), "");
    });
    auto o = scm();
    o.pct_depth = 3;
    canopy::test::for_seeds(
        o, 20, [] { ASSERT_EQ((run_ring<q::scoped_access<scope::device>, ring_together_kernel>(4)), ""); });
}

// The race detector's verdict on the sub-group's versions (docs/race-detector.md): each lane acquires for
// the slot it checked and releases before the sequence word it stores, and the sub-group barrier joins
// them to the other lanes' writes; HRF-indirect allows that chain, so no race. The leader's loop is the
// same chain with one lane (no race either: the control the verdict is compared with).
TEST(FrontRing, SubGroupReservationsAreRaceFreeUnderHrfIndirect) {
    auto o = canopy::test::emu_options("tiny");
    o.race_check = canopy::emu::race_check_kind::hrf_indirect;
    canopy::test::for_seeds(o, 5, [] {
        ASSERT_EQ((run_ring<q::scoped_access<scope::device>, ring_together_kernel>(4)), "");
        EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u);
        ASSERT_EQ(run_ring<q::scoped_access<scope::device>>(4), "");
        EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u);
    });
}

// Teeth: the sub-group's publish narrowed to work-group scope is caught as the leader's is.
TEST(FrontRing, SubGroupPublishNarrowedToWorkGroupScopeIsCaught) {
    unsigned caught = 0;
    auto o = scm();
    for (unsigned seed = 1; seed <= 30 && caught == 0; ++seed) {
        o.seed = seed;
        canopy::emu::scoped_options s(o);
        caught +=
            run_ring<q::narrowed_release_access<scope::device, scope::workgroup>, ring_together_kernel>(4)
                    .empty()
                ? 0
                : 1;
    }
    EXPECT_GT(caught, 0u) << "a work-group-scope publish by the sub-group was not caught in 30 seeds";
}

} // namespace
