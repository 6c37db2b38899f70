// canopy/platform/detail/gpu/error.hpp — CANOPY_CHECK and CANOPY_DEVICE_ASSERT on GPUs (CUDA and HIP,
// through the vendor map). Included by error.hpp only (after canopy::error is defined).
#pragma once

#include <cstdio>
#include <string>

#include "canopy/platform/detail/gpu/vendor.hpp"

namespace canopy::detail {

/// CANOPY_CHECK's host side: throws canopy::error("file:line: expr failed: <the runtime's message>").
inline void check_api(gpu::error_t e, const char* expr, const char* file, int line) {
    if (e != gpu::success) {
        throw error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                    " failed: " + CANOPY_GPU_API(GetErrorString)(e));
    }
}

/// CANOPY_DEVICE_ASSERT's failure path, out of line so that the check itself stays a compare and a
/// branch. The trap ends the kernel; the host sees the fault at its next synchronization. (HIP's trap
/// is a noreturn builtin; CUDA's __trap() is not declared so, and nvcc would warn of a noreturn function
/// that returns.)
#if defined(CANOPY_BACKEND_HIP)
[[noreturn]]
#endif
CANOPY_DEVICE inline void
device_assert_fail(const char* msg, const char* file, int line) {
    printf("canopy device assertion failed: block %u thread %u: %s (%s:%d)\n",
           static_cast<unsigned>(blockIdx.x), static_cast<unsigned>(threadIdx.x), msg, file, line);
    CANOPY_GPU_TRAP();
}

} // namespace canopy::detail

/// Evaluates a runtime-API expression once; throws canopy::error when it does not return success.
#define CANOPY_CHECK(expr) ::canopy::detail::check_api((expr), #expr, __FILE__, __LINE__)

/// Stops the kernel, printing the failing work-group and work-item, when cond is false.
#define CANOPY_DEVICE_ASSERT(cond, msg)                                                                      \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ::canopy::detail::device_assert_fail((msg), __FILE__, __LINE__);                                 \
        }                                                                                                    \
    } while (0)
