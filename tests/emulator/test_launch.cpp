#include <gtest/gtest.h>

#include "canopy/platform/platform.hpp"

TEST(Launch, WritesEveryGlobalId) {
    canopy::device_buffer<unsigned> out(4 * 64);
    unsigned* p = out.data();
    canopy::launch({.grid = 4, .block = 64}, [=] { p[canopy::global_id()] = canopy::global_id() + 1; });
    auto h = out.to_vector();
    for (unsigned i = 0; i < h.size(); ++i) {
        EXPECT_EQ(h[i], i + 1);
    }
}
