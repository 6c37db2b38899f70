// canopy/platform/error.hpp — host errors (canopy::error, CANOPY_CHECK) and device assertions.
//
// CANOPY_CHECK(api_call) turns a failed backend API call into canopy::error carrying file:line, the
// expression and the API's own message. CANOPY_DEVICE_ASSERT(cond, msg) stops the kernel with the
// failing work-group and work-item ids: the emulator reports them and the launch throws
// canopy::device_error on the host; GPU backends print them and trap.
#pragma once

#include "canopy/platform/config.hpp"
// canopy::error and canopy::device_error: vocabulary the emulator throws too.
#include "canopy/vocabulary/error.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/error.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/error.hpp"
#endif
