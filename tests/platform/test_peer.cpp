// canopy/platform/peer.hpp on the emulator: one device, which reaches itself; anything else is an error
// that names where the emulator's several devices are (inside one launch).
#include <string>

#include <gtest/gtest.h>

#include "canopy/platform/error.hpp"
#include "canopy/platform/peer.hpp"

TEST(Peer, TheEmulatorIsOneDeviceThatReachesItself) {
    EXPECT_EQ(canopy::device_count(), 1u);
    EXPECT_TRUE(canopy::can_access_peer(0, 0));
    EXPECT_NO_THROW(canopy::enable_peer_access(0));
    try {
        canopy::enable_peer_access(1);
        ADD_FAILURE() << "device 1 does not exist on the emulator";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("inside one launch"), std::string::npos) << e.what();
    }
}
