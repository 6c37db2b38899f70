// Failures are reported with ids and seeds, never hung or silently lost.
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

TEST(Errors, DeviceAssertionNamesTheWorkItem) {
    canopy::emu::scoped_options o(
        canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::deterministic, 42));
    try {
        canopy::launch({.grid = 3, .block = 64}, [=] {
            CANOPY_DEVICE_ASSERT(!(canopy::block_id() == 2 && canopy::thread_id() == 17),
                                 "no work-item 2/17");
        });
        FAIL() << "the assertion did not fire";
    } catch (const canopy::device_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("device assertion failed: block 2 work-item 17 (lane 17 of sub-group 0)"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("no work-item 2/17"), std::string::npos) << m;
        EXPECT_NE(m.find("CANOPY_EMU_SEED=42"), std::string::npos) << m;
    }
}

// A launch whose resident work-items' stacks would pass vm.max_map_count fails before it starts, with
// the numbers and the fixes (before: an mmap or mprotect failed halfway into the launch). h100 holds
// 132 x 2 work-groups of 1,024: 270,336 fibers, 540,672 mappings.
TEST(Errors, TooManyResidentWorkItemsForTheMappingLimitFailBeforeTheLaunch) {
    unsigned long long limit = 0;
    if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
        if (std::fscanf(f, "%llu", &limit) != 1) {
            limit = 0;
        }
        std::fclose(f);
    }
    if (limit == 0 || limit > 500000) {
        GTEST_SKIP() << "vm.max_map_count is " << limit << ": this launch would fit (and be huge)";
    }
    canopy::emu::scoped_options o(canopy::test::emu_options("h100"));
    bool ran = false;
    try {
        canopy::launch({.grid = 264, .block = 1024}, [] {});
        ran = true;
    } catch (const canopy::error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("264 resident work-groups of 1024 work-items on virtual device 'h100' make 270336 "
                         "fibers"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("vm.max_map_count = " + std::to_string(limit)), std::string::npos) << m;
        EXPECT_NE(m.find("Use smaller work-groups"), std::string::npos) << m;
    }
    EXPECT_FALSE(ran);
}

TEST(Errors, AnExceptionInAKernelFailsTheLaunch) {
    canopy::emu::scoped_options o(canopy::test::emu_options());
    try {
        canopy::launch({.grid = 1, .block = 32}, [=] {
            if (canopy::thread_id() == 5) {
                throw std::runtime_error("boom");
            }
            canopy::spin_until([] { return false; }); // the others would wait forever: they are unwound
        });
        FAIL();
    } catch (const canopy::device_error& e) {
        EXPECT_NE(std::string(e.what()).find("block 0 work-item 5: kernel threw: boom"), std::string::npos)
            << e.what();
    }
}

TEST(Errors, ImpossibleLaunchesAreRejectedUpFront) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    auto k = [] {};
    try {
        canopy::launch({.grid = 1, .block = 512}, k);
        FAIL();
    } catch (const canopy::device_error&) {
        FAIL() << "a configuration error is not a kernel failure";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("exceeds the maximum 256"), std::string::npos) << e.what();
    }
    EXPECT_THROW(canopy::launch({.grid = 1, .block = 0}, k), canopy::error);
    EXPECT_THROW(canopy::launch({.grid = 1, .block = 32, .shared_bytes = 1 << 20}, k), canopy::error);
}

TEST(Errors, SharedMemoryIsPerWorkGroupAndUninitialized) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    canopy::device_buffer<unsigned> out(4 * 2);
    unsigned* p = out.data();
    canopy::launch({.grid = 4, .block = 32, .shared_bytes = 64}, [=] {
        CANOPY_SHARED(unsigned, first);
        unsigned* dyn = canopy::dynamic_shared<unsigned>();
        if (canopy::thread_id() == 0) {
            p[canopy::block_id() * 2 + 1] = first; // before any write: the poison pattern
            first = canopy::block_id() + 100;
            dyn[3] = canopy::block_id();
        }
        canopy::block_barrier();
        if (canopy::thread_id() == 31) {
            p[canopy::block_id() * 2] = first * 1000 + dyn[3];
        }
    });
    const auto h = out.to_vector();
    for (unsigned b = 0; b < 4; ++b) {
        EXPECT_EQ(h[b * 2], (b + 100) * 1000 + b);
        EXPECT_EQ(h[b * 2 + 1], 0xCDCDCDCDu);
    }
}

TEST(Errors, TooMuchSharedMemoryIsReported) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    try {
        canopy::launch({.grid = 1, .block = 32}, [=] {
            CANOPY_SHARED(unsigned char[64 * 1024], big);
            big[canopy::thread_id()] = 1;
        });
        FAIL();
    } catch (const canopy::device_error& e) {
        EXPECT_NE(std::string(e.what()).find("block-shared memory of 65536 bytes exceeds"), std::string::npos)
            << e.what();
    }
}

#if !defined(CANOPY_ASAN) && !defined(CANOPY_TSAN)
int deep(int n) {
    volatile char pad[1024];
    pad[0] = static_cast<char>(n);
    return n == 0 ? pad[0] : deep(n - 1) + pad[0];
}

TEST(ErrorsDeathTest, StackOverflowHitsTheGuardPage) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            auto o = canopy::test::emu_options("tiny");
            o.stack_bytes = 16 * 1024;
            canopy::emu::scoped_options s(o);
            canopy::launch({.grid = 1, .block = 1}, [=] { (void)deep(1000); });
        },
        "");
}
#endif

} // namespace

// One rule for empty grids on every backend (platform/launch.hpp; the CUDA and HIP launches return before
// launching): 0 work-groups launch nothing -- no work-item runs, no launch is counted -- and that is
// not an error, while a block of 0 work-items is, also with an empty grid.
TEST(Errors, AnEmptyGridLaunchesNothing) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    canopy::device_buffer<unsigned> ran(1);
    ran.fill_zero();
    unsigned* p = ran.data();
    canopy::emu::reset_launch_totals();
    canopy::launch({.grid = 0, .block = 32}, [=] {
        canopy::atomic_ref<unsigned, canopy::scope::device>(*p).fetch_add(1, std::memory_order_relaxed);
    });
    EXPECT_EQ(ran.to_vector()[0], 0u);
    EXPECT_EQ(canopy::emu::launch_totals().launches, 0u);
    EXPECT_EQ(canopy::emu::last_report().grid, 0u);
    EXPECT_THROW(canopy::launch({.grid = 0, .block = 0}, [] {}), canopy::error);
    EXPECT_THROW(canopy::launch({.grid = 0, .block = 512}, [] {}), canopy::error); // tiny's maximum: 256
}
