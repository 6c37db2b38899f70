// ids and sizes: every work-item sees the ids a 1-D GPU launch gives it, at both sub-group sizes, with
// a partial last sub-group, and with more work-groups than are resident.
#include <gtest/gtest.h>

#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

struct ids {
    unsigned thread, block, block_dim, grid_dim, lane, subgroup, subgroup_size, global, subgroups;
};

void check_ids(unsigned subgroup, unsigned grid, unsigned block) {
    canopy::test::for_seeds(canopy::test::emu_options("hrf8", subgroup), 3, [&] {
        canopy::device_buffer<ids> out(grid * block);
        ids* p = out.data();
        canopy::launch({.grid = grid, .block = block}, [=] {
            ids v{canopy::thread_id(),     canopy::block_id(),  canopy::block_dim(),
                  canopy::grid_dim(),      canopy::lane_id(),   canopy::subgroup_id(),
                  canopy::subgroup_size(), canopy::global_id(), canopy::subgroups_per_block()};
            p[canopy::global_id()] = v;
        });
        const auto h = out.to_vector();
        for (unsigned g = 0; g < grid * block; ++g) {
            const ids& v = h[g];
            ASSERT_EQ(v.global, g);
            ASSERT_EQ(v.thread, g % block);
            ASSERT_EQ(v.block, g / block);
            ASSERT_EQ(v.block_dim, block);
            ASSERT_EQ(v.grid_dim, grid);
            ASSERT_EQ(v.subgroup_size, subgroup);
            ASSERT_EQ(v.lane, (g % block) % subgroup);
            ASSERT_EQ(v.subgroup, (g % block) / subgroup);
            ASSERT_EQ(v.subgroups, (block + subgroup - 1) / subgroup);
        }
    });
}

TEST(Ids, Subgroup32) { check_ids(32, 5, 96); }
TEST(Ids, Subgroup64) { check_ids(64, 5, 128); }
TEST(Ids, PartialLastSubgroup) { check_ids(64, 3, 100); }
TEST(Ids, MoreWorkGroupsThanResident) { check_ids(64, 70, 256); } // hrf8 holds 32 of 256

TEST(Ids, DeviceInfoDescribesTheVirtualDevice) {
    canopy::emu::scoped_options o(canopy::test::emu_options("hrf8"));
    const auto d = canopy::query_device();
    EXPECT_EQ(d.backend, "cpu");
    EXPECT_EQ(d.name, "emulator:hrf8");
    EXPECT_EQ(d.compute_units, 8u);
    EXPECT_EQ(d.subgroup_size, 64u);
    // resident work-groups: the formula and the emulator agree
    EXPECT_EQ(canopy::resident_blocks_per_cu(d, 256, 0) * d.compute_units,
              canopy::max_resident_blocks<int>(256));
    EXPECT_EQ(canopy::max_resident_blocks<int>(256), 32u);
    EXPECT_EQ(canopy::max_resident_blocks<int>(1024), 8u);
    EXPECT_EQ(canopy::max_resident_blocks<int>(2048), 0u);
}

TEST(Ids, KernelApiOutsideAKernelIsAnError) { EXPECT_THROW((void)canopy::thread_id(), canopy::error); }

} // namespace
