// canopy/platform/detail/cuda/prim_calls.hpp — the device-wide library calls under prim.hpp on NVIDIA
// GPUs: CUB. Only the calls: the two-phase scaffolding around them (size query, temporary storage,
// completion, results to the host) is written once in detail/gpu/prim.hpp.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/util_type.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace canopy::detail::prim_calls {

inline constexpr const char* library = "CUB";

template <class T>
cudaError_t exclusive_sum(void* temp, std::size_t& bytes, const T* in, T* out, std::size_t n) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n);
}

template <class T>
cudaError_t reduce_sum(void* temp, std::size_t& bytes, const T* in, T* out, std::size_t n) {
    return cub::DeviceReduce::Sum(temp, bytes, in, out, n);
}

/// CUB's DoubleBuffer: the sort ping-pongs between two arrays and says where the result ended up.
template <class T> using double_buffer = cub::DoubleBuffer<T>;
template <class T> T* current(double_buffer<T>& b) { return b.Current(); }

template <class K, class V>
cudaError_t radix_sort_pairs(void* temp, std::size_t& bytes, double_buffer<K>& k, double_buffer<V>& v,
                             std::size_t n) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n);
}

/// How many items a select call wrote. CUB takes 64-bit item counts, so any n is accepted.
using select_count = std::uint64_t;
inline void check_select_size(std::size_t /*n*/) {}

template <class T>
cudaError_t select_flagged(void* temp, std::size_t& bytes, const T* in, const unsigned char* flags, T* out,
                           select_count* count, std::size_t n) {
    return cub::DeviceSelect::Flagged(temp, bytes, in, flags, out, count, static_cast<std::int64_t>(n));
}

} // namespace canopy::detail::prim_calls
