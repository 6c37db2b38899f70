// canopy/platform/detail/hip/memory.hpp — device memory and copies on AMD GPUs (HIP).
// Included by memory.hpp only.
//
// All copies run on the default stream and return when they are complete, so the host may reuse or
// read its buffer at once; since canopy's streams are blocking (stream.hpp), they also wait for
// kernels queued on any stream before them.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

#include "canopy/platform/error.hpp"

namespace canopy::detail {

inline void* device_alloc(std::size_t bytes) {
    if (bytes == 0) {
        return nullptr;
    }
    void* p = nullptr;
    CANOPY_CHECK(hipMalloc(&p, bytes));
    return p;
}

inline void device_free(void* p) noexcept {
    if (p != nullptr && hipFree(p) != hipSuccess) {
        // Nothing to report from a noexcept path; clear HIP's last error so that it is not blamed on
        // the next launch (launch.hpp checks hipGetLastError()).
        static_cast<void>(hipGetLastError());
    }
}

inline void copy_to_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
    }
}

inline void copy_to_host(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost));
    }
}

/// Device-to-device copy (prim.hpp uses it to bring sorted data back in place).
inline void copy_on_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyDeviceToDevice));
    }
}

inline void fill_bytes(void* dst, int byte, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(hipMemset(dst, byte, bytes));
        // hipMemset on device memory is asynchronous with respect to the host: wait, as promised.
        CANOPY_CHECK(hipStreamSynchronize(nullptr));
    }
}

} // namespace canopy::detail
