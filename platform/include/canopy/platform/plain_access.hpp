// canopy/platform/plain_access.hpp — ld/st: plain (non-atomic) accesses to memory other work-items read.
//
// Task payloads, queue slots and tree nodes are written with plain stores and published by a scoped
// release (or read with plain loads after a scoped acquire). Writing those accesses as canopy::ld /
// canopy::st instead of `*p` costs nothing on a GPU (they are plain loads and stores) and lets the
// emulator route them through its memory model, so that a missing or too-narrow synchronization shows
// up as a stale read instead of passing on a coherent CPU.
#pragma once

#include <type_traits>

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/plain_access.hpp"
#else
namespace canopy {
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T ld(const T* p) {
    static_assert(std::is_trivially_copyable_v<T>);
    return *p;
}
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE void st(T* p, T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    *p = v;
}
} // namespace canopy
#endif
