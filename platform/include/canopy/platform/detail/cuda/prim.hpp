// canopy/platform/detail/cuda/prim.hpp — device-wide primitives on NVIDIA GPUs: CUB.
// Included by prim.hpp only.
//
// Each function follows CUB's two-phase convention: a first call with a null temporary pointer
// returns the temporary storage size, a second call does the work. Everything runs on the default
// stream and the functions return once the result is complete.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/util_type.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "canopy/platform/error.hpp"
#include "canopy/platform/memory.hpp"

namespace canopy::detail {

/// CUB's temporary storage. Never empty: a null pointer would turn the second call into another
/// size query.
inline device_buffer<unsigned char> prim_temp(std::size_t bytes) {
    return device_buffer<unsigned char>(bytes != 0 ? bytes : 1);
}

inline void prim_finish() { CANOPY_CHECK(cudaStreamSynchronize(nullptr)); }

} // namespace canopy::detail

namespace canopy::prim {

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0). in and out may be the same array.
template <class T> void exclusive_sum(const T* in, T* out, std::size_t n) {
    if (n == 0) {
        return;
    }
    std::size_t bytes = 0;
    CANOPY_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, out, n));
    detail::prim_finish();
}

/// in[0] + ... + in[n-1], returned to the host (T{} when n == 0).
template <class T> T reduce_sum(const T* in, std::size_t n) {
    if (n == 0) {
        return T{};
    }
    device_buffer<T> result(1);
    std::size_t bytes = 0;
    CANOPY_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, result.data(), n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(cub::DeviceReduce::Sum(temp.data(), bytes, in, result.data(), n));
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
    // CUB's DoubleBuffer form ping-pongs between the caller's arrays and these, and says where the
    // result ended up; it needs no second copy of the input.
    device_buffer<K> keys_alt(n);
    device_buffer<V> values_alt(n);
    cub::DoubleBuffer<K> kb(keys, keys_alt.data());
    cub::DoubleBuffer<V> vb(values, values_alt.data());
    std::size_t bytes = 0;
    CANOPY_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kb, vb, n));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, kb, vb, n));
    if (kb.Current() != keys) {
        detail::copy_on_device(keys, kb.Current(), n * sizeof(K));
    }
    if (vb.Current() != values) {
        detail::copy_on_device(values, vb.Current(), n * sizeof(V));
    }
    detail::prim_finish();
}

/// Copies in[i] with flags[i] != 0 to out, in order; returns how many.
template <class T>
std::size_t select_flagged(const T* in, const unsigned char* flags, T* out, std::size_t n) {
    if (n == 0) {
        return 0;
    }
    device_buffer<std::uint64_t> count(1);
    const auto items = static_cast<std::int64_t>(n);
    std::size_t bytes = 0;
    CANOPY_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count.data(), items));
    auto temp = detail::prim_temp(bytes);
    CANOPY_CHECK(cub::DeviceSelect::Flagged(temp.data(), bytes, in, flags, out, count.data(), items));
    detail::prim_finish();
    std::uint64_t host = 0;
    count.download(&host, 1);
    return static_cast<std::size_t>(host);
}

} // namespace canopy::prim
