// The SCM's flat address map against std::unordered_map as the oracle: random inserts, overwrites,
// lookups and erases over clustered, aligned keys (the shape of real addresses, which is what makes
// probe runs long and backward-shift deletion non-trivial).
#include <cstdint>
#include <random>
#include <unordered_map>

#include <gtest/gtest.h>

#include "canopy/emulator/address_map.hpp"

namespace {

using canopy::emu::address_map;

TEST(AddressMap, MatchesUnorderedMapUnderRandomOperations) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        std::mt19937_64 rng(seed);
        address_map m;
        std::unordered_map<std::uintptr_t, std::size_t> oracle;
        const std::uintptr_t base = 0x7f0000001000 + seed * 0x100000;
        for (int step = 0; step < 200000; ++step) {
            // 4096 distinct keys, 8-byte aligned: many collide in their home slot.
            const std::uintptr_t key = base + 8 * (rng() % 4096);
            const auto op = rng() % 4;
            if (op == 0 || op == 1) {
                const std::size_t v = rng() % 1000;
                const bool inserted = m.set(key, v);
                EXPECT_EQ(inserted, oracle.count(key) == 0) << "seed " << seed << " step " << step;
                oracle[key] = v;
            } else if (op == 2) {
                m.erase(key);
                oracle.erase(key);
            } else {
                const auto it = oracle.find(key);
                const std::size_t want = it == oracle.end() ? address_map::npos : it->second;
                ASSERT_EQ(m.find(key), want) << "seed " << seed << " step " << step;
            }
            ASSERT_EQ(m.size(), oracle.size()) << "seed " << seed << " step " << step;
        }
        for (const auto& [k, v] : oracle) { // every survivor still reachable after all the shifts
            ASSERT_EQ(m.find(k), v) << "seed " << seed;
        }
        m.clear();
        EXPECT_EQ(m.size(), 0u);
        EXPECT_EQ(m.find(base), address_map::npos);
    }
}

TEST(AddressMap, EmplaceKeepsTheFirstValue) {
    address_map m;
    EXPECT_EQ(m.emplace(0x1000, 7), 7u);
    EXPECT_EQ(m.emplace(0x1000, 9), 7u);
    EXPECT_EQ(m.find(0x1000), 7u);
    m.erase(0x2000); // absent: nothing happens
    EXPECT_EQ(m.size(), 1u);
}

} // namespace
