// Emulator: values travel through the emulator's memory model and collectives as the low bytes of a
// uint64_t. One conversion pair for every caller.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace canopy::detail {

template <class T> std::uint64_t to_bits(T v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                  "values of at most 8 trivially copyable bytes");
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

template <class T> T from_bits(std::uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

} // namespace canopy::detail
