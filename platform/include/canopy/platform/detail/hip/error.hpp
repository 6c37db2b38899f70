// canopy/platform/detail/hip/error.hpp — CANOPY_CHECK and CANOPY_DEVICE_ASSERT on AMD GPUs (HIP).
// Included by error.hpp only (after canopy::error is defined).
#pragma once

#include <hip/hip_runtime.h>

#include <string>

namespace canopy::detail {

/// CANOPY_CHECK's host side: throws canopy::error("file:line: expr failed: <HIP's message>").
inline void check_api(hipError_t e, const char* expr, const char* file, int line) {
    if (e != hipSuccess) {
        throw error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                    " failed: " + hipGetErrorString(e));
    }
}

/// CANOPY_DEVICE_ASSERT's failure path, out of line so that the check itself stays a compare and a
/// branch. s_trap ends the kernel; the host sees the fault at its next synchronization.
[[noreturn]] CANOPY_DEVICE inline void device_assert_fail(const char* msg, const char* file, int line) {
    printf("canopy device assertion failed: block %u thread %u: %s (%s:%d)\n",
           static_cast<unsigned>(blockIdx.x), static_cast<unsigned>(threadIdx.x), msg, file, line);
    __builtin_trap();
}

} // namespace canopy::detail

/// Evaluates a hipError_t expression once; throws canopy::error when it is not hipSuccess.
#define CANOPY_CHECK(expr) ::canopy::detail::check_api((expr), #expr, __FILE__, __LINE__)

/// Stops the kernel, printing the failing work-group and work-item, when cond is false.
#define CANOPY_DEVICE_ASSERT(cond, msg)                                                                      \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ::canopy::detail::device_assert_fail((msg), __FILE__, __LINE__);                                 \
        }                                                                                                    \
    } while (0)
