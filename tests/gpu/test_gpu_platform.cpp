// canopy_gpu_tests: atomics at device and work-group scope, sub-group collectives (gpu_cases.hpp says what
// the binary holds and why).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "canopy/platform/peer.hpp"
#include "canopy/platform/platform.hpp"
#include "gpu_cases.hpp"

namespace {

using namespace canopy_gpu_tests;

struct device_tickets {
    unsigned* counter;
    unsigned* olds;
    CANOPY_DEVICE void operator()() const {
        // Relaxed, device scope: atomicity alone makes the old values a permutation.
        olds[canopy::global_id()] = canopy::atomic_ref<unsigned, canopy::scope::device>(*counter).fetch_add(
            1, std::memory_order_relaxed);
    }
};

struct workgroup_tickets {
    unsigned* counters; // one per work-group: a work-group-scope atomic shared only inside its group
    unsigned* olds;
    CANOPY_DEVICE void operator()() const {
        olds[canopy::global_id()] =
            canopy::atomic_ref<unsigned, canopy::scope::workgroup>(counters[canopy::block_id()])
                .fetch_add(1, std::memory_order_relaxed);
    }
};

TEST(GpuPlatform, PeerAccessBetweenTheVisibleDevices) {
    // Every device reaches its own memory; enabling a peer is idempotent where a path exists; asking
    // about a device that does not exist is an error, not a crash. (One GPU: only the first two hold.)
    const unsigned n = canopy::device_count();
    ASSERT_GE(n, 1u);
    EXPECT_TRUE(canopy::can_access_peer(0, 0));
    EXPECT_NO_THROW(canopy::enable_peer_access(0));
    EXPECT_THROW(static_cast<void>(canopy::can_access_peer(0, n)), canopy::error);
    for (unsigned p = 1; p < n; ++p) {
        if (canopy::can_access_peer(0, p)) {
            EXPECT_NO_THROW(canopy::enable_peer_access(p));
            EXPECT_NO_THROW(canopy::enable_peer_access(p)); // again: already enabled
        } else {
            EXPECT_THROW(canopy::enable_peer_access(p), canopy::error);
        }
    }
}

TEST(GpuPlatform, AtomicTicketsAreAPermutationAtDeviceAndWorkGroupScope) {
    const unsigned grid = emulated ? 4 : 528, block = 256, n = grid * block;
    canopy::device_buffer<unsigned> counter(grid), olds(n);
    counter.fill_zero();
    canopy::launch({.grid = grid, .block = block}, device_tickets{counter.data(), olds.data()});
    canopy::device_synchronize();
    std::vector<unsigned> o = olds.to_vector();
    std::sort(o.begin(), o.end());
    std::vector<unsigned> want(n);
    std::iota(want.begin(), want.end(), 0u);
    EXPECT_EQ(o, want) << "device-scope fetch_add: tickets lost or repeated";
    EXPECT_EQ(counter.to_vector()[0], n);

    counter.fill_zero();
    canopy::launch({.grid = grid, .block = block}, workgroup_tickets{counter.data(), olds.data()});
    canopy::device_synchronize();
    o = olds.to_vector();
    const std::vector<unsigned> per = counter.to_vector();
    for (unsigned b = 0; b < grid; ++b) {
        std::vector<unsigned> mine(o.begin() + b * block, o.begin() + (b + 1) * block);
        std::sort(mine.begin(), mine.end());
        std::vector<unsigned> w(block);
        std::iota(w.begin(), w.end(), 0u);
        ASSERT_EQ(mine, w) << "work-group " << b << ": work-group-scope fetch_add";
        ASSERT_EQ(per[b], block);
    }
}

struct collectives {
    unsigned* out; // 4 words per work-item
    CANOPY_DEVICE void operator()() const {
        const unsigned l = canopy::lane_id();
        const unsigned F = canopy::subgroup_size();
        unsigned* o = out + 4 * canopy::global_id();
        o[0] = canopy::exclusive_sum(l + 1);
        o[1] = canopy::broadcast(7 * (l + 1), 3 % F);
        o[2] = canopy::any(l == 5) ? 1u : 0u;
        o[3] = F;
    }
};

TEST(GpuPlatform, SubGroupCollectivesMatchTheirClosedForms) {
    const unsigned grid = emulated ? 2 : 132, block = 128, n = grid * block;
    canopy::device_buffer<unsigned> out(4 * n);
    canopy::launch({.grid = grid, .block = block}, collectives{out.data()});
    canopy::device_synchronize();
    const std::vector<unsigned> o = out.to_vector();
    const unsigned F = o[3];
    ASSERT_TRUE(F == 32 || F == 64 || (emulated && F >= 1)) << "sub-group size " << F;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned l = (i % block) % F; // block is a multiple of F
        ASSERT_EQ(o[4 * i], l * (l + 1) / 2) << "exclusive_sum, work-item " << i;
        ASSERT_EQ(o[4 * i + 1], 7 * (3 % F + 1)) << "broadcast, work-item " << i;
        ASSERT_EQ(o[4 * i + 2], F > 5 ? 1u : 0u) << "any, work-item " << i;
        ASSERT_EQ(o[4 * i + 3], F);
    }
}

} // namespace
