// Emulator: device-wide primitives are the standard library over the host memory that stands for
// device memory (the kernels that produced it have finished: launches are synchronous).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace canopy::prim {

template <class T> void exclusive_sum(const T* in, T* out, std::size_t n) {
    std::exclusive_scan(in, in + n, out, T{0});
}

template <class T> T reduce_sum(const T* in, std::size_t n) { return std::accumulate(in, in + n, T{0}); }

template <class K, class V> void radix_sort_by_key(K* keys, V* values, std::size_t n) {
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<K> k(n);
    std::vector<V> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        k[i] = keys[idx[i]];
        v[i] = values[idx[i]];
    }
    std::copy(k.begin(), k.end(), keys);
    std::copy(v.begin(), v.end(), values);
}

template <class T>
std::size_t select_flagged(const T* in, const unsigned char* flags, T* out, std::size_t n) {
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (flags[i]) {
            out[m++] = in[i];
        }
    }
    return m;
}

} // namespace canopy::prim
