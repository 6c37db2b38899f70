// canopy/platform/detail/cuda/memory.hpp — device memory and copies on NVIDIA GPUs (CUDA).
// Included by memory.hpp only.
//
// All copies run on the default stream and return when they are complete, so the host may reuse or
// read its buffer at once; since canopy's streams are blocking (stream.hpp), they also wait for
// kernels queued on any stream before them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "canopy/platform/error.hpp"

namespace canopy::detail {

inline void* device_alloc(std::size_t bytes) {
    if (bytes == 0) {
        return nullptr;
    }
    void* p = nullptr;
    CANOPY_CHECK(cudaMalloc(&p, bytes));
    return p;
}

inline void device_free(void* p) noexcept {
    if (p != nullptr && cudaFree(p) != cudaSuccess) {
        // Nothing to report from a noexcept path; clear the CUDA runtime's last error so that it is not
        // blamed on the next launch (launch.hpp checks cudaGetLastError()).
        static_cast<void>(cudaGetLastError());
    }
}

inline void copy_to_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    }
}

inline void copy_to_host(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    }
}

/// Device-to-device copy (prim.hpp uses it to bring sorted data back in place).
inline void copy_on_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    }
}

inline void fill_bytes(void* dst, int byte, std::size_t bytes) {
    if (bytes != 0) {
        CANOPY_CHECK(cudaMemset(dst, byte, bytes));
        // cudaMemset on device memory is asynchronous with respect to the host: wait, as promised.
        CANOPY_CHECK(cudaStreamSynchronize(nullptr));
    }
}

} // namespace canopy::detail
