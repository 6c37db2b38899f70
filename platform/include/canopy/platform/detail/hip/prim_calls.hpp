// canopy/platform/detail/hip/prim_calls.hpp — the device-wide library calls under prim.hpp on AMD
// GPUs: rocPRIM. Only the calls: the two-phase scaffolding around them (size query, temporary storage,
// completion, results to the host) is written once in detail/gpu/prim.hpp.
#pragma once

#include <hip/hip_runtime.h>
#include <rocprim/device/device_radix_sort.hpp>
#include <rocprim/device/device_reduce.hpp>
#include <rocprim/device/device_scan.hpp>
#include <rocprim/device/device_select.hpp>
#include <rocprim/functional.hpp>
#include <rocprim/types.hpp>

#include <climits>
#include <cstddef>
#include <string>

#include "canopy/platform/error.hpp"

namespace canopy::detail::prim_calls {

inline constexpr const char* library = "rocPRIM";

template <class T>
hipError_t exclusive_sum(void* temp, std::size_t& bytes, const T* in, T* out, std::size_t n) {
    return rocprim::exclusive_scan(temp, bytes, in, out, T{0}, n, rocprim::plus<T>{});
}

template <class T> hipError_t reduce_sum(void* temp, std::size_t& bytes, const T* in, T* out, std::size_t n) {
    return rocprim::reduce(temp, bytes, in, out, T{0}, n, rocprim::plus<T>{});
}

/// rocPRIM's double_buffer: the sort ping-pongs between two arrays and says where the result ended up.
template <class T> using double_buffer = rocprim::double_buffer<T>;
template <class T> T* current(double_buffer<T>& b) { return b.current(); }

template <class K, class V>
hipError_t radix_sort_pairs(void* temp, std::size_t& bytes, double_buffer<K>& k, double_buffer<V>& v,
                            std::size_t n) {
    return rocprim::radix_sort_pairs(temp, bytes, k, v, n);
}

/// How many items a select call wrote.
using select_count = std::size_t;
inline void check_select_size(std::size_t n) {
    if (n > UINT_MAX) {
        // rocPRIM 5.x counts selected items in 32-bit offsets.
        throw error("canopy::prim::select_flagged: " + std::to_string(n) +
                    " items exceed rocPRIM's 32-bit limit; split the input");
    }
}

template <class T>
hipError_t select_flagged(void* temp, std::size_t& bytes, const T* in, const unsigned char* flags, T* out,
                          select_count* count, std::size_t n) {
    return rocprim::select(temp, bytes, in, flags, out, count, n);
}

} // namespace canopy::detail::prim_calls
