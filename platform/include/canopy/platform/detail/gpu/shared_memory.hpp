// canopy/platform/detail/gpu/shared_memory.hpp — block-shared memory (NVIDIA shared memory, AMD LDS).
// Included by shared_memory.hpp only.
//
// CANOPY_SHARED(type, name) is a plain function-scope __shared__ variable. The type goes through an
// alias template so that array types work: `__shared__ int[64] t;` is not C++, but
// `__shared__ shared_type<int[64]> t;` declares `int t[64]`.
#pragma once

#include <cstddef>

#include "canopy/platform/detail/gpu/vendor.hpp"

namespace canopy::detail {

template <class T> using shared_type = T;

/// The alignment dynamic_shared<T>() guarantees: enough for every scalar and vector type up to 16 bytes.
inline constexpr std::size_t dynamic_shared_alignment = 16;

/// The launch's dynamic shared memory (launch_config::shared_bytes). One extern declaration, shared
/// by every T: all extern __shared__ arrays of a kernel start at the same address anyway, and nvcc
/// rejects two declarations of one name with different types.
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned char* dynamic_shared_base() {
    extern __shared__ unsigned char canopy_dynamic_shared_[]
        __attribute__((aligned(dynamic_shared_alignment)));
    return canopy_dynamic_shared_;
}

} // namespace canopy::detail

#define CANOPY_SHARED(type, name) __shared__ ::canopy::detail::shared_type<type> name

namespace canopy {

/// The launch's dynamic shared memory (launch_config::shared_bytes bytes), viewed as T.
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T* dynamic_shared() {
    static_assert(alignof(T) <= detail::dynamic_shared_alignment,
                  "dynamic_shared<T>: T needs more alignment than dynamic shared memory guarantees");
    return reinterpret_cast<T*>(detail::dynamic_shared_base());
}

} // namespace canopy
