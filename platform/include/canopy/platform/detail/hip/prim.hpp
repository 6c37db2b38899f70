// canopy/platform/detail/hip/prim.hpp — device-wide primitives on AMD GPUs: rocPRIM.
// Included by prim.hpp only.
//
// Each function follows rocPRIM's two-phase convention: a first call with a null temporary pointer
// returns the temporary storage size, a second call does the work. Everything runs on the default
// stream and the functions return once the result is complete.
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
#include "canopy/platform/memory.hpp"

namespace canopy::detail {

/// rocPRIM's temporary storage. Never empty: a null pointer would turn the second call into another
/// size query.
inline device_buffer<unsigned char> prim_temp(std::size_t bytes) {
    return device_buffer<unsigned char>(bytes != 0 ? bytes : 1);
}

inline void prim_finish() { CANOPY_CHECK(hipStreamSynchronize(nullptr)); }

} // namespace canopy::detail

namespace canopy::prim {

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0). in and out may be the same array.
template <class T> void exclusive_sum(const T* in, T* out, std::size_t n) {
    if (n == 0) {
        return;
    }
    std::size_t bytes = 0;
    CANOPY_CHECK(rocprim::exclusive_scan(nullptr, bytes, in, out, T{0}, n, rocprim::plus<T>{}));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(rocprim::exclusive_scan(temp.data(), bytes, in, out, T{0}, n, rocprim::plus<T>{}));
    detail::prim_finish();
}

/// in[0] + ... + in[n-1], returned to the host (T{} when n == 0).
template <class T> T reduce_sum(const T* in, std::size_t n) {
    if (n == 0) {
        return T{};
    }
    device_buffer<T> result(1);
    std::size_t bytes = 0;
    CANOPY_CHECK(rocprim::reduce(nullptr, bytes, in, result.data(), T{0}, n, rocprim::plus<T>{}));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(rocprim::reduce(temp.data(), bytes, in, result.data(), T{0}, n, rocprim::plus<T>{}));
    detail::prim_finish();
    T host{};
    result.download(&host, 1);
    return host;
}

/// Sorts (keys[i], values[i]) by key, ascending and stable, in place. Keys are integers or floats.
template <class K, class V> void radix_sort_by_key(K* keys, V* values, std::size_t n) {
    if (n < 2) {
        return;
    }
    // rocPRIM's double-buffer form ping-pongs between the caller's arrays and these, and says where
    // the result ended up; it needs no second copy of the input.
    device_buffer<K> keys_alt(n);
    device_buffer<V> values_alt(n);
    rocprim::double_buffer<K> kb(keys, keys_alt.data());
    rocprim::double_buffer<V> vb(values, values_alt.data());
    std::size_t bytes = 0;
    CANOPY_CHECK(rocprim::radix_sort_pairs(nullptr, bytes, kb, vb, n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(rocprim::radix_sort_pairs(temp.data(), bytes, kb, vb, n));
    if (kb.current() != keys) {
        detail::copy_on_device(keys, kb.current(), n * sizeof(K));
    }
    if (vb.current() != values) {
        detail::copy_on_device(values, vb.current(), n * sizeof(V));
    }
    detail::prim_finish();
}

/// Copies in[i] with flags[i] != 0 to out, in order; returns how many.
template <class T>
std::size_t select_flagged(const T* in, const unsigned char* flags, T* out, std::size_t n) {
    if (n == 0) {
        return 0;
    }
    if (n > UINT_MAX) {
        // rocPRIM 5.x counts selected items in 32-bit offsets.
        throw error("canopy::prim::select_flagged: " + std::to_string(n) +
                    " items exceed rocPRIM's 32-bit limit; split the input");
    }
    device_buffer<std::size_t> count(1);
    std::size_t bytes = 0;
    CANOPY_CHECK(rocprim::select(nullptr, bytes, in, flags, out, count.data(), n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(rocprim::select(temp.data(), bytes, in, flags, out, count.data(), n));
    detail::prim_finish();
    std::size_t host = 0;
    count.download(&host, 1);
    return host;
}

} // namespace canopy::prim
