// The site profile (CANOPY_EMU_SITE_PROFILE, emulator/site_profile.hpp): every access's call site,
// count and the cycles its work-item's clock advanced over it. The oracles are the kernel's own counts
// and the scoped-cache model's cost table: a device-scope RMW performed at L2 costs l2_access, a store
// that hits costs l1_hit, and a collective costs each lane the wait for its sub-group's slowest lane.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/site_profile.hpp"
#include "canopy/platform/platform.hpp"

namespace {

namespace emu = canopy::emu;

canopy::emu::options profiled(bool on) {
    auto o = canopy::test::emu_options("tiny");
    o.timed = true;
    o.memory_model = emu::memory_model_kind::scoped;
    o.site_profile = on;
    return o;
}

/// The row of this file's `line` and kind, or an empty row (count 0) when there is none.
emu::site_cost row_at(const std::vector<emu::site_cost>& rows, unsigned line, emu::site_op op) {
    for (const emu::site_cost& r : rows) {
        if (r.line == line && r.op == op && r.file.find("test_site_profile.cpp") != std::string::npos) {
            return r;
        }
    }
    return {};
}

constexpr unsigned grid = 2, block = 32, rmws = 3, spread = 16; // words 64 bytes apart: no shared line
constexpr unsigned long long lane_work = 1000;

// One access per function, each on the line after its function's header, so that the test knows
// the site the profile must name (the profile keys on the call's file and line).
// The lines are what the test checks: kept as written.
// clang-format off
constexpr unsigned rmw_line = __LINE__ + 2;
void rmw_once(canopy::atomic_ref<unsigned, canopy::scope::device>& r) {
    (void)r.fetch_add(1, std::memory_order_relaxed);
}
constexpr unsigned store_line = __LINE__ + 2;
void store_once(unsigned* p, unsigned v) {
    canopy::st(p, v);
}
constexpr unsigned ballot_line = __LINE__ + 2;
void ballot_once() {
    (void)canopy::ballot(true);
}
// clang-format on

/// Each work-item: `rmws` relaxed device-scope RMWs on its own line, one plain store to its own line
/// of another buffer, then lane-dependent work and a ballot.
void run_kernel(unsigned* words, unsigned* plain) {
    canopy::launch({.grid = grid, .block = block}, [=] {
        const unsigned g = canopy::block_id() * canopy::block_dim() + canopy::thread_id();
        canopy::atomic_ref<unsigned, canopy::scope::device> r(words[g * spread]);
        for (unsigned i = 0; i < rmws; ++i) {
            rmw_once(r);
        }
        store_once(&plain[g * spread], g);
        canopy::model_cycles(lane_work * canopy::lane_id());
        ballot_once();
    });
}

TEST(SiteProfile, CountsAndCyclesPerSiteMatchTheKernelAndTheCostTable) {
    const emu::options o = profiled(true);
    emu::scoped_options scoped(o);
    emu::reset_site_profile();
    canopy::device_buffer<unsigned> words(grid * block * spread), plain(grid * block * spread);
    words.fill_zero();
    plain.fill_zero();
    run_kernel(words.data(), plain.data());
    const auto rows = emu::site_profile_rows();
    ASSERT_FALSE(rows.empty()) << "the profile was on and recorded nothing";
    const unsigned items = grid * block;

    const emu::site_cost rmw = row_at(rows, rmw_line, emu::site_op::rmw);
    EXPECT_EQ(rmw.count, rmws * items);
    // Relaxed, device scope, each on its own line: performed at L2, no lock waits.
    EXPECT_EQ(rmw.cycles, rmw.count * o.costs.l2_access) << emu::format_site_profile(rows);

    const emu::site_cost store = row_at(rows, store_line, emu::site_op::plain_store);
    EXPECT_EQ(store.count, items);
    // A plain store writes its L1 line (write-allocate without a fill: the model's store costs l1_hit).
    EXPECT_EQ(store.cycles, store.count * o.costs.l1_hit) << emu::format_site_profile(rows);

    // The ballot: lane i arrives lane_work * i cycles after lane 0 and every lane leaves with the slowest
    // of its sub-group, so a sub-group of sg lanes waits lane_work * sg (sg - 1) / 2 in all, plus at most
    // a few cycles of the rendezvous itself per lane.
    const emu::site_cost ballot = row_at(rows, ballot_line, emu::site_op::collective);
    EXPECT_EQ(ballot.count, items);
    const unsigned long long sg = o.device.subgroup_size;
    const unsigned long long wait = (items / sg) * lane_work * sg * (sg - 1) / 2;
    EXPECT_GE(ballot.cycles, wait) << emu::format_site_profile(rows);
    EXPECT_LE(ballot.cycles, wait + 8 * items) << emu::format_site_profile(rows);

    // Costliest first, and the table names every one of the three sites.
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_GE(rows[i - 1].cycles, rows[i].cycles) << "row " << i << " out of order";
    }
    const std::string table = emu::format_site_profile(rows);
    for (unsigned line : {rmw_line, store_line, ballot_line}) {
        EXPECT_NE(table.find("test_site_profile.cpp:" + std::to_string(line)), std::string::npos) << table;
    }

    // A second launch adds to the same rows; reset forgets them.
    run_kernel(words.data(), plain.data());
    EXPECT_EQ(row_at(emu::site_profile_rows(), rmw_line, emu::site_op::rmw).count, 2 * rmws * items);
    emu::reset_site_profile();
    EXPECT_TRUE(emu::site_profile_rows().empty());
}

TEST(SiteProfile, OffRecordsNothing) {
    emu::scoped_options scoped(profiled(false));
    emu::reset_site_profile();
    canopy::device_buffer<unsigned> words(grid * block * spread), plain(grid * block * spread);
    words.fill_zero();
    run_kernel(words.data(), plain.data());
    EXPECT_TRUE(emu::site_profile_rows().empty());
}

} // namespace
