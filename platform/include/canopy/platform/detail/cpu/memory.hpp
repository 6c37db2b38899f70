// Emulator: device memory is host memory, 256-byte aligned like a GPU allocation (emu::allocate_device).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "canopy/emulator/allocations.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/site.hpp"

namespace canopy::detail {

/// `where`: the allocating call site, recorded so that reports can name the buffer (emu::allocations).
inline void* device_alloc(std::size_t bytes, canopy::site where = {}) {
    return emu::allocate_device(bytes, where);
}
inline void device_free(void* p) noexcept { emu::free_device(p); }
// A zero-length copy or fill is a no-op, as on the GPU APIs: an empty device_buffer holds a null pointer,
// and memcpy/memset with a null pointer is undefined even for 0 bytes (UBSan reports it).
inline void copy_to_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        std::memcpy(dst, src, bytes);
    }
}
inline void copy_to_host(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0) {
        std::memcpy(dst, src, bytes);
    }
}
inline void fill_bytes(void* dst, int byte, std::size_t bytes) { emu::fill_device(dst, byte, bytes); }

} // namespace canopy::detail
