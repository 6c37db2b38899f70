// subgroup_barrier(): every live lane of the sub-group arrives, and memory written by one lane before it
// is read correctly by another lane after it. The oracle is the value each lane wrote (a function of
// its id). Plain accesses yield on the deterministic scheduler, so without the barrier a reader runs
// before the writer on some seeds: both tests fail when subgroup_barrier() is made a no-op.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

unsigned value_of(unsigned g) { return g * 2654435761u | 1u; } // never 0: 0 is "not written yet"

canopy::emu::options opts(unsigned sg, bool scoped) {
    auto o = canopy::test::emu_options("hrf8", sg);
    if (scoped) {
        o.memory_model = canopy::emu::memory_model_kind::scoped;
    }
    return o;
}

// Each live lane writes its slot, meets the others at the barrier, and reads the slot of the next live
// lane of its sub-group. A partial last sub-group (block 100) and exited lanes (every 7th) included.
TEST(SubgroupBarrier, OrdersLaneToLaneHandOffs) {
    for (unsigned sg : {32u, 64u}) {
        for (bool scoped : {false, true}) {
            canopy::test::for_seeds(opts(sg, scoped), 6, [&] {
                const unsigned grid = 3, block = 100;
                canopy::device_buffer<unsigned> data(grid * block), out(grid * block);
                data.fill_zero();
                out.fill_zero();
                unsigned* d = data.data();
                unsigned* o = out.data();
                canopy::launch({.grid = grid, .block = block}, [=] {
                    const unsigned g = canopy::global_id();
                    const unsigned lane = canopy::lane_id();
                    if (lane % 7 == 6) {
                        return; // exited lanes take no part
                    }
                    canopy::st(&d[g], value_of(g));
                    canopy::subgroup_barrier();
                    const unsigned base = canopy::block_id() * canopy::block_dim() +
                                          canopy::subgroup_id() * canopy::subgroup_size();
                    const unsigned width =
                        std::min(canopy::subgroup_size(),
                                 canopy::block_dim() - canopy::subgroup_id() * canopy::subgroup_size());
                    unsigned next = (lane + 1) % width;
                    if (next % 7 == 6) {
                        next = (next + 1) % width;
                    }
                    canopy::st(&o[g], canopy::ld(&d[base + next]));
                });
                const auto h = out.to_vector();
                for (unsigned b = 0; b < grid; ++b) {
                    for (unsigned t = 0; t < block; ++t) {
                        const unsigned lane = t % sg;
                        if (lane % 7 == 6) {
                            continue;
                        }
                        const unsigned base = b * block + t / sg * sg;
                        const unsigned width = std::min(sg, block - t / sg * sg);
                        unsigned next = (lane + 1) % width;
                        if (next % 7 == 6) {
                            next = (next + 1) % width;
                        }
                        ASSERT_EQ(h[b * block + t], value_of(base + next))
                            << "block " << b << " work-item " << t << " read its neighbour's slot too early";
                    }
                }
            });
        }
    }
}

// The runtime scheduler's shape: the leader writes a batch in a leader-only branch, the others go
// straight to the barrier; they must wait for the leader (a *_sync with __activemask() would not).
TEST(SubgroupBarrier, WaitsForTheLeaderAfterABranch) {
    canopy::test::for_seeds(opts(32, true), 8, [&] {
        constexpr unsigned n = 24;
        canopy::device_buffer<unsigned> data(n), out(64 * n);
        data.fill_zero();
        unsigned* d = data.data();
        unsigned* o = out.data();
        canopy::launch({.grid = 1, .block = 64}, [=] {
            if (canopy::lane_id() == 0 && canopy::subgroup_id() == 0) {
                for (unsigned i = 0; i < n; ++i) {
                    canopy::st(&d[i], value_of(i));
                }
            }
            canopy::subgroup_barrier();
            if (canopy::subgroup_id() == 0) {
                for (unsigned i = 0; i < n; ++i) {
                    canopy::st(&o[canopy::thread_id() * n + i], canopy::ld(&d[i]));
                }
            }
        });
        const auto h = out.to_vector();
        for (unsigned t = 0; t < 32; ++t) {
            for (unsigned i = 0; i < n; ++i) {
                ASSERT_EQ(h[t * n + i], value_of(i))
                    << "lane " << t << " passed the barrier before the leader";
            }
        }
    });
}

TEST(SubgroupBarrier, DivergentBarrierIsReported) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    try {
        canopy::launch({.grid = 1, .block = 32}, [=] {
            if (canopy::lane_id() < 5) {
                canopy::subgroup_barrier();
            } else {
                (void)canopy::ballot(true);
            }
        });
        FAIL() << "a sub-group barrier completed against a ballot";
    } catch (const canopy::device_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("divergent collectives"), std::string::npos) << m;
        EXPECT_NE(m.find("subgroup_barrier"), std::string::npos) << m;
    }
}

} // namespace
