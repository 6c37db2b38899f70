// canopy/platform/detail/gpu/prim.hpp — device-wide primitives on GPUs: CUB (NVIDIA) or rocPRIM (AMD),
// whose calls detail/<vendor>/prim_calls.hpp make. Included by prim.hpp only.
//
// Each function follows the libraries' shared two-phase convention: a first call with a null temporary
// pointer returns the temporary storage size, a second call does the work. Everything runs on the
// default stream and the functions return once the result is complete.
#pragma once

#include <cstddef>
#include <cstdint>

#include "canopy/platform/detail/gpu/vendor.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/memory.hpp"
#if defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/prim_calls.hpp"
#else
#    include "canopy/platform/detail/cuda/prim_calls.hpp"
#endif

namespace canopy::detail {

/// The library's temporary storage. Never empty: a null pointer would turn the second call into
/// another size query.
inline device_buffer<unsigned char> prim_temp(std::size_t bytes) {
    return device_buffer<unsigned char>(bytes != 0 ? bytes : 1);
}

inline void prim_finish() { CANOPY_CHECK(CANOPY_GPU_API(StreamSynchronize)(nullptr)); }

} // namespace canopy::detail

namespace canopy::prim {

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0). in and out may be the same array.
template <class T> void exclusive_sum(const T* in, T* out, std::size_t n) {
    if (n == 0) {
        return;
    }
    std::size_t bytes = 0;
    CANOPY_CHECK(detail::prim_calls::exclusive_sum(nullptr, bytes, in, out, n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(detail::prim_calls::exclusive_sum(temp.data(), bytes, in, out, n));
    detail::prim_finish();
}

/// in[0] + ... + in[n-1], returned to the host (T{} when n == 0).
template <class T> T reduce_sum(const T* in, std::size_t n) {
    if (n == 0) {
        return T{};
    }
    device_buffer<T> result(1);
    std::size_t bytes = 0;
    CANOPY_CHECK(detail::prim_calls::reduce_sum(nullptr, bytes, in, result.data(), n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(detail::prim_calls::reduce_sum(temp.data(), bytes, in, result.data(), n));
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
    // The double-buffer form ping-pongs between the caller's arrays and these, and says where the result
    // ended up; it needs no second copy of the input.
    device_buffer<K> keys_alt(n);
    device_buffer<V> values_alt(n);
    detail::prim_calls::double_buffer<K> kb(keys, keys_alt.data());
    detail::prim_calls::double_buffer<V> vb(values, values_alt.data());
    std::size_t bytes = 0;
    CANOPY_CHECK(detail::prim_calls::radix_sort_pairs(nullptr, bytes, kb, vb, n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(detail::prim_calls::radix_sort_pairs(temp.data(), bytes, kb, vb, n));
    if (detail::prim_calls::current(kb) != keys) {
        detail::copy_on_device(keys, detail::prim_calls::current(kb), n * sizeof(K));
    }
    if (detail::prim_calls::current(vb) != values) {
        detail::copy_on_device(values, detail::prim_calls::current(vb), n * sizeof(V));
    }
    detail::prim_finish();
}

/// Copies in[i] with flags[i] != 0 to out, in order; returns how many.
template <class T>
std::size_t select_flagged(const T* in, const unsigned char* flags, T* out, std::size_t n) {
    if (n == 0) {
        return 0;
    }
    detail::prim_calls::check_select_size(n);
    device_buffer<detail::prim_calls::select_count> count(1);
    std::size_t bytes = 0;
    CANOPY_CHECK(detail::prim_calls::select_flagged(nullptr, bytes, in, flags, out, count.data(), n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(detail::prim_calls::select_flagged(temp.data(), bytes, in, flags, out, count.data(), n));
    detail::prim_finish();
    detail::prim_calls::select_count host = 0;
    count.download(&host, 1);
    return static_cast<std::size_t>(host);
}

} // namespace canopy::prim
