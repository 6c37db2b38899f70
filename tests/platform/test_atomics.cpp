// Every atomic operation at every scope and memory order, on 4- and 8-byte signed and unsigned types,
// checked against what atomicity implies: fetch_add's old values are a permutation, bit operations
// leave exactly the oracle's bits, min/max the oracle's extremum, exchange a chain through every value.
// Narrow scopes are used only among the work-items they cover (one counter per work-group).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

constexpr std::memory_order all_orders[] = {std::memory_order_relaxed, std::memory_order_consume,
                                            std::memory_order_acquire, std::memory_order_release,
                                            std::memory_order_acq_rel, std::memory_order_seq_cst};

template <class T, canopy::scope S> void check_ops(std::memory_order mo) {
    constexpr unsigned grid = 3, block = 64;
    // one set of words per work-group: narrow scopes never cross a work-group
    struct words {
        T add, sub, and_, or_, xor_, min, max, xchg, cas, ls[block];
    };
    canopy::device_buffer<words> w(grid);
    std::vector<words> init(grid);
    for (auto& x : init) {
        x = {};
        x.sub = static_cast<T>(block);
        x.and_ = static_cast<T>(~T{0});
        x.min = std::numeric_limits<T>::max();
        x.max = std::numeric_limits<T>::lowest();
        x.xchg = static_cast<T>(1000);
    }
    w.upload(init);
    canopy::device_buffer<T> olds(grid * block * 3);
    words* pw = w.data();
    T* po = olds.data();
    canopy::launch({.grid = grid, .block = block}, [=] {
        words& x = pw[canopy::block_id()];
        const unsigned t = canopy::thread_id();
        const unsigned g = canopy::global_id();
        using ref = canopy::atomic_ref<T, S>;
        po[3 * g] = ref(x.add).fetch_add(1, mo);
        po[3 * g + 1] = ref(x.sub).fetch_sub(1, mo);
        ref(x.and_).fetch_and(static_cast<T>(~(T{1} << (t % (8 * sizeof(T) - 1)))), mo);
        ref(x.or_).fetch_or(static_cast<T>(T{1} << (t % (8 * sizeof(T) - 1))), mo);
        ref(x.xor_).fetch_xor(static_cast<T>(t + 1), mo);
        const T v = static_cast<T>((static_cast<long long>(t) * 37 % 101) - (std::is_signed_v<T> ? 50 : 0));
        ref(x.min).fetch_min(v, mo);
        ref(x.max).fetch_max(v, mo);
        po[3 * g + 2] = ref(x.xchg).exchange(static_cast<T>(t), mo);
        T expected = ref(x.cas).load(std::memory_order_relaxed);
        while (!ref(x.cas).compare_exchange_weak(expected, static_cast<T>(expected + 1), mo)) {
        }
        ref(x.ls[t]).store(static_cast<T>(t * 3), mo);
        CANOPY_DEVICE_ASSERT(ref(x.ls[t]).load(mo) == static_cast<T>(t * 3), "a load sees its own store");
    });
    const auto h = w.to_vector();
    const auto ho = olds.to_vector();
    for (unsigned b = 0; b < grid; ++b) {
        const words& x = h[b];
        EXPECT_EQ(x.add, static_cast<T>(block));
        EXPECT_EQ(x.sub, T{0});
        EXPECT_EQ(x.cas, static_cast<T>(block));
        T want_and = static_cast<T>(~T{0}), want_or = 0, want_xor = 0;
        T want_min = std::numeric_limits<T>::max(), want_max = std::numeric_limits<T>::lowest();
        std::vector<T> adds, subs, xchg;
        for (unsigned t = 0; t < block; ++t) {
            want_and = static_cast<T>(want_and & ~(T{1} << (t % (8 * sizeof(T) - 1))));
            want_or = static_cast<T>(want_or | (T{1} << (t % (8 * sizeof(T) - 1))));
            want_xor = static_cast<T>(want_xor ^ static_cast<T>(t + 1));
            const T v =
                static_cast<T>((static_cast<long long>(t) * 37 % 101) - (std::is_signed_v<T> ? 50 : 0));
            want_min = std::min(want_min, v);
            want_max = std::max(want_max, v);
            const unsigned g = b * block + t;
            adds.push_back(ho[3 * g]);
            subs.push_back(ho[3 * g + 1]);
            xchg.push_back(ho[3 * g + 2]);
            EXPECT_EQ(x.ls[t], static_cast<T>(t * 3));
        }
        EXPECT_EQ(x.and_, want_and);
        EXPECT_EQ(x.or_, want_or);
        EXPECT_EQ(x.xor_, want_xor);
        EXPECT_EQ(x.min, want_min);
        EXPECT_EQ(x.max, want_max);
        std::sort(adds.begin(), adds.end());
        std::sort(subs.begin(), subs.end());
        for (unsigned t = 0; t < block; ++t) {
            EXPECT_EQ(adds[t], static_cast<T>(t)) << "fetch_add returned a duplicate or skipped a value";
            EXPECT_EQ(subs[t], static_cast<T>(t + 1)) << "fetch_sub returned a duplicate or skipped a value";
        }
        // exchange: the old values plus the final value are exactly the initial value and every id
        xchg.push_back(x.xchg);
        std::sort(xchg.begin(), xchg.end());
        std::vector<T> want(block);
        std::iota(want.begin(), want.end(), T{0});
        want.push_back(static_cast<T>(1000));
        std::sort(want.begin(), want.end());
        EXPECT_EQ(xchg, want);
    }
}

template <class T> void check_all_scopes_and_orders(canopy::emu::scheduler_kind k) {
    canopy::test::for_seeds(
        canopy::test::emu_options("tiny", 0, k), k == canopy::emu::scheduler_kind::parallel ? 1 : 2, [] {
            for (auto mo : all_orders) {
                SCOPED_TRACE(::testing::Message() << "memory order " << static_cast<int>(mo));
                check_ops<T, canopy::scope::workgroup>(mo);
                check_ops<T, canopy::scope::device>(mo);
                check_ops<T, canopy::scope::system>(mo);
            }
        });
}

TEST(Atomics, Int32) { check_all_scopes_and_orders<int>(canopy::emu::scheduler_kind::deterministic); }
TEST(Atomics, Uint32) { check_all_scopes_and_orders<unsigned>(canopy::emu::scheduler_kind::deterministic); }
TEST(Atomics, Int64) { check_all_scopes_and_orders<long long>(canopy::emu::scheduler_kind::deterministic); }
TEST(Atomics, Uint64) {
    check_all_scopes_and_orders<unsigned long long>(canopy::emu::scheduler_kind::deterministic);
}
TEST(Atomics, ParallelScheduler) {
    check_all_scopes_and_orders<unsigned>(canopy::emu::scheduler_kind::parallel);
    check_all_scopes_and_orders<long long>(canopy::emu::scheduler_kind::parallel);
}

// Sub-group scope: one counter per sub-group, used only by its lanes.
TEST(Atomics, SubgroupScopeCounters) {
    canopy::emu::scoped_options o(canopy::test::emu_options("hrf8"));
    canopy::device_buffer<unsigned> c(2 * 4);
    c.fill_zero();
    unsigned* p = c.data();
    canopy::launch({.grid = 2, .block = 256}, [=] {
        unsigned& mine = p[canopy::block_id() * 4 + canopy::subgroup_id()];
        canopy::atomic_ref<unsigned, canopy::scope::subgroup>(mine).fetch_add(canopy::lane_id() + 1,
                                                                              std::memory_order_acq_rel);
    });
    for (unsigned v : c.to_vector()) {
        EXPECT_EQ(v, 64u * 65u / 2u);
    }
}

TEST(Atomics, FencesAtEveryScopeRun) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    canopy::device_buffer<unsigned> c(1);
    c.fill_zero();
    unsigned* p = c.data();
    canopy::launch({.grid = 2, .block = 32}, [=] {
        for (auto mo : all_orders) {
            if (mo == std::memory_order_relaxed) {
                continue; // a relaxed fence is a no-op (and not allowed on every backend)
            }
            canopy::fence<canopy::scope::subgroup>(mo);
            canopy::fence<canopy::scope::workgroup>(mo);
            canopy::fence<canopy::scope::device>(mo);
            canopy::fence<canopy::scope::system>(mo);
        }
        canopy::atomic_ref<unsigned>(*p).fetch_add(1);
    });
    EXPECT_EQ(c.to_vector()[0], 64u);
}

} // namespace
