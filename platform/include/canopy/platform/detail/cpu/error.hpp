// Emulator: host APIs report errors by throwing canopy::error themselves, so CANOPY_CHECK only has to
// turn a false/zero result into one; device assertions stop the kernel with work-group/work-item ids.
#pragma once

#include <string>

#include "canopy/emulator/work_item.hpp"

#define CANOPY_CHECK(expr)                                                                                   \
    do {                                                                                                     \
        if (!(expr)) {                                                                                       \
            throw ::canopy::error(std::string(__FILE__) + ":" + std::to_string(__LINE__) +                   \
                                  ": " #expr " failed");                                                     \
        }                                                                                                    \
    } while (0)

#define CANOPY_DEVICE_ASSERT(cond, msg)                                                                      \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ::canopy::emu::device_assert_failed(#cond, msg, __FILE__, __LINE__);                             \
        }                                                                                                    \
    } while (0)
