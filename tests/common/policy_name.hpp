// Test helper: the name of a test instantiated per runtime policy (gtest names allow [A-Za-z0-9_] only,
// so "steal-rsp" becomes steal_rsp): INSTANTIATE_TEST_SUITE_P(..., canopy::test::policy_name).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "canopy/runtime/policy.hpp"

namespace canopy::test {

inline std::string policy_name(const ::testing::TestParamInfo<runtime::policy>& pi) {
    std::string s = runtime::to_string(pi.param);
    for (char& c : s) {
        c = c == '-' ? '_' : c;
    }
    return s;
}

} // namespace canopy::test
