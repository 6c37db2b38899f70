// canopy/platform/detail/gpu/memory.hpp — device memory and copies on GPUs (CUDA and HIP, through the
// vendor map). Included by memory.hpp only.
//
// All copies run on the default stream and return when they are complete, so the host may reuse or
// read its buffer at once; since canopy's streams are blocking (stream.hpp), they also wait for
// kernels queued on any stream before them.
#pragma once

#include <cstddef>

#include "canopy/platform/detail/gpu/vendor.hpp"
#include "canopy/platform/error.hpp"

namespace canopy::detail {

inline void* device_alloc(std::size_t bytes) {
    if (bytes == 0) {
        return nullptr;
    }
    void* p = nullptr;
    CANOPY_CHECK(CANOPY_GPU_API(Malloc)(&p, bytes));
    return p;
}

inline void device_free(void* p) noexcept {
    if (p != nullptr && CANOPY_GPU_API(Free)(p) != gpu::success) {
        // Nothing to report from a noexcept path; clear the runtime's last error so that it is not
        // blamed on the next launch (launch.hpp checks GetLastError()).
        static_cast<void>(CANOPY_GPU_API(GetLastError)());
    }
}

inline void copy_to_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(CANOPY_GPU_API(Memcpy)(dst, src, bytes, CANOPY_GPU_API(MemcpyHostToDevice)));
    }
}

inline void copy_to_host(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(CANOPY_GPU_API(Memcpy)(dst, src, bytes, CANOPY_GPU_API(MemcpyDeviceToHost)));
    }
}

/// Device-to-device copy (prim.hpp uses it to bring sorted data back in place).
inline void copy_on_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(CANOPY_GPU_API(Memcpy)(dst, src, bytes, CANOPY_GPU_API(MemcpyDeviceToDevice)));
    }
}

inline void fill_bytes(void* dst, int byte, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(CANOPY_GPU_API(Memset)(dst, byte, bytes));
        // Memset on device memory is asynchronous with respect to the host: wait, as promised.
        CANOPY_CHECK(CANOPY_GPU_API(StreamSynchronize)(nullptr));
    }
}

} // namespace canopy::detail
