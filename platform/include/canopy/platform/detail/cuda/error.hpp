// canopy/platform/detail/cuda/error.hpp — CANOPY_CHECK and CANOPY_DEVICE_ASSERT on NVIDIA GPUs (CUDA).
// Included by error.hpp only (after canopy::error is defined).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

namespace canopy::detail {

/// CANOPY_CHECK's host side: throws canopy::error("file:line: expr failed: <CUDA's message>").
inline void check_api(cudaError_t e, const char* expr, const char* file, int line) {
    if (e != cudaSuccess) {
        throw error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                    " failed: " + cudaGetErrorString(e));
    }
}

/// CANOPY_DEVICE_ASSERT's failure path, out of line so that the check itself stays a compare and a
/// branch. __trap() aborts the kernel; the host sees cudaErrorLaunchFailure at its next synchronization.
CANOPY_DEVICE inline void device_assert_fail(const char* msg, const char* file, int line) {
    printf("canopy device assertion failed: block %u thread %u: %s (%s:%d)\n", blockIdx.x, threadIdx.x, msg,
           file, line);
    __trap();
}

} // namespace canopy::detail

/// Evaluates a cudaError_t expression once; throws canopy::error when it is not cudaSuccess.
#define CANOPY_CHECK(expr) ::canopy::detail::check_api((expr), #expr, __FILE__, __LINE__)

/// Stops the kernel, printing the failing work-group and work-item, when cond is false.
#define CANOPY_DEVICE_ASSERT(cond, msg)                                                                      \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ::canopy::detail::device_assert_fail((msg), __FILE__, __LINE__);                                 \
        }                                                                                                    \
    } while (0)
