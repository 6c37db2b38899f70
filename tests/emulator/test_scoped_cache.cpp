// The scoped-cache model (SCM): synchronization at the right scope is never stale; a scope that is too
// narrow *is* stale for some seed (the model is as weak as the hardware); the RSP paper's bugs
// reproduce under the original scheme; counters charge what the scheme says.
#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

canopy::emu::options scm(bool original = false) {
    auto o = canopy::test::emu_options("tiny"); // 2 CUs: work-groups 0 and 1 land on different CUs
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.rsp_original_scheme = original;
    return o;
}

// Message passing from work-group 0 (CU 0) to work-group 1 (CU 1): data with plain stores, a flag with
// the given release scope; the reader acquires the flag at the given scope and reads the data.
template <canopy::scope Release, canopy::scope Acquire>
unsigned stale_reads(const canopy::emu::options& o, unsigned seeds) {
    unsigned stale = 0;
    canopy::test::for_seeds(o, seeds, [&] {
        canopy::device_buffer<unsigned> mem(4);
        mem.fill_zero();
        unsigned* m = mem.data(); // m[0] data, m[1] flag, m[2] what the reader saw, m[3] reader saw flag
        canopy::launch({.grid = 2, .block = 1}, [=] {
            if (canopy::block_id() == 0) {
                canopy::st(&m[0], 42u);
                canopy::atomic_ref<unsigned, Release>(m[1]).store(1, std::memory_order_release);
            } else {
                canopy::atomic_ref<unsigned, Acquire> flag(m[1]);
                canopy::spin_until([&] { return flag.load(std::memory_order_acquire) == 1; });
                canopy::st(&m[2], canopy::ld(&m[0]));
            }
        });
        const auto h = mem.to_vector();
        ASSERT_EQ(h[1], 1u);
        stale += h[2] != 42u ? 1 : 0;
    });
    return stale;
}

TEST(ScopedCache, DeviceScopeMessagePassingIsNeverStale) {
    EXPECT_EQ((stale_reads<canopy::scope::device, canopy::scope::device>(scm(), 300)), 0u);
}

TEST(ScopedCache, WorkGroupScopeAcrossWorkGroupsIsStale) {
    EXPECT_GT((stale_reads<canopy::scope::workgroup, canopy::scope::workgroup>(scm(), 300)), 0u)
        << "work-group-scope release/acquire between two CUs never showed stale data";
}

TEST(ScopedCache, DeviceAcquireOfWorkGroupReleaseIsStale) {
    EXPECT_GT((stale_reads<canopy::scope::workgroup, canopy::scope::device>(scm(), 300)), 0u);
}

TEST(ScopedCache, CoherentMemoryHidesTheScopeBug) {
    auto o = scm();
    o.memory_model = canopy::emu::memory_model_kind::coherent;
    EXPECT_EQ((stale_reads<canopy::scope::workgroup, canopy::scope::workgroup>(o, 100)), 0u);
}

// RSP §5.5.1 bug 1: the original scheme invalidates before the acquiring load.
TEST(ScopedCache, OriginalSchemeBreaksMessagePassing) {
    EXPECT_GT((stale_reads<canopy::scope::device, canopy::scope::device>(scm(true), 600)), 0u)
        << "the original scheme's invalidate-before-load never produced the stale read of RSP Fig. 4";
}

// The scope of a work-group-internal hand-off: one L1, so work-group scope suffices.
TEST(ScopedCache, WorkGroupScopeWithinAWorkGroupIsNeverStale) {
    unsigned stale = 0;
    canopy::test::for_seeds(scm(), 200, [&] {
        canopy::device_buffer<unsigned> mem(3);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 1, .block = 2}, [=] {
            canopy::atomic_ref<unsigned, canopy::scope::workgroup> flag(m[1]);
            if (canopy::thread_id() == 0) {
                canopy::st(&m[0], 7u);
                flag.store(1, std::memory_order_release);
            } else {
                canopy::spin_until([&] { return flag.load(std::memory_order_acquire) == 1; });
                canopy::st(&m[2], canopy::ld(&m[0]));
            }
        });
        stale += mem.to_vector()[2] != 7u ? 1 : 0;
    });
    EXPECT_EQ(stale, 0u);
}

// Device-scope RMWs from every CU are atomic; the kernel's end flushes everything for the host.
TEST(ScopedCache, DeviceRmwsAreAtomicAndVisibleAtTheEnd) {
    canopy::test::for_seeds(scm(), 20, [&] {
        canopy::device_buffer<unsigned> c(2);
        c.fill_zero();
        unsigned* p = c.data();
        canopy::launch({.grid = 4, .block = 32}, [=] {
            canopy::atomic_ref<unsigned, canopy::scope::device>(p[0]).fetch_add(1, std::memory_order_relaxed);
            if (canopy::thread_id() == 0) {
                canopy::st(&p[1], 5u); // plain, left dirty in an L1 until the kernel ends
            }
        });
        const auto h = c.to_vector();
        ASSERT_EQ(h[0], 128u);
        ASSERT_EQ(h[1], 5u);
    });
}

// (e) Counters: what one access costs in cache actions.
canopy::emu::memory_counters count(void (*body)(unsigned*)) {
    auto o = scm();
    canopy::emu::scoped_options s(o);
    canopy::device_buffer<unsigned> mem(2);
    mem.fill_zero();
    unsigned* m = mem.data();
    canopy::launch({.grid = 1, .block = 1}, [=] { body(m); });
    return canopy::emu::last_report().memory;
}

TEST(ScopedCache, DeviceAcquireCostsOneInvalidation) {
    const auto c = count([](unsigned* m) {
        (void)canopy::atomic_ref<unsigned, canopy::scope::device>(*m).load(std::memory_order_acquire);
    });
    EXPECT_EQ(c.invalidations_own, 1u);
    EXPECT_EQ(c.flushes_own, 0u);
    EXPECT_EQ((c.atomics[2][static_cast<int>(std::memory_order_acquire)]), 1u);
}

TEST(ScopedCache, DeviceReleaseCostsOneFlush) {
    const auto c = count([](unsigned* m) {
        canopy::atomic_ref<unsigned, canopy::scope::device>(*m).store(1, std::memory_order_release);
    });
    EXPECT_EQ(c.flushes_own, 1u);
    EXPECT_EQ(c.invalidations_own, 0u);
}

TEST(ScopedCache, WorkGroupPairCostsNothing) {
    const auto c = count([](unsigned* m) {
        canopy::atomic_ref<unsigned, canopy::scope::workgroup> r(*m);
        r.store(1, std::memory_order_release);
        (void)r.load(std::memory_order_acquire);
    });
    EXPECT_EQ(c.flushes_own + c.flushes_remote + c.invalidations_own + c.invalidations_remote, 0u);
    EXPECT_GT(c.cycles_total, 0u);
}

// Several devices in one launch (emu::options::devices = 2): work-group b is on device b % 2, and each
// device has its own L2. A device-scope message between the two devices goes stale on some seed, and the
// race detector, which places each work-group on its device, reports it; at system scope it is never
// stale and race-free. If the engine put both work-groups on one device, the first would never be stale.
canopy::emu::options two_devices() {
    auto o = scm();
    o.devices = 2;
    return o;
}

TEST(ScopedCacheDevices, DeviceScopeBetweenTwoDevicesIsStale) {
    EXPECT_GT((stale_reads<canopy::scope::device, canopy::scope::device>(two_devices(), 40)), 0u)
        << "a device-scope message between work-groups on two devices never read stale data: are they "
           "on one device?";
}

TEST(ScopedCacheDevices, SystemScopeBetweenTwoDevicesIsNeverStale) {
    EXPECT_EQ((stale_reads<canopy::scope::system, canopy::scope::system>(two_devices(), 300)), 0u);
}

TEST(ScopedCacheDevices, TheRaceDetectorSeesEachWorkGroupsDevice) {
    auto o = two_devices();
    o.race_check = canopy::emu::race_check_kind::hrf_indirect;
    (void)stale_reads<canopy::scope::device, canopy::scope::device>(o, 1);
    EXPECT_GT(canopy::emu::last_report().distinct_races, 0u)
        << "device scope between two devices is a heterogeneous race under HRF";
    (void)stale_reads<canopy::scope::system, canopy::scope::system>(o, 1);
    EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u);
}

TEST(ScopedCache, RunsOnlyUnderTheDeterministicScheduler) {
    auto o = scm();
    o.scheduler = canopy::emu::scheduler_kind::parallel;
    canopy::emu::scoped_options s(o);
    EXPECT_THROW(canopy::launch({.grid = 1, .block = 1}, [] {}), canopy::error);
}

} // namespace
