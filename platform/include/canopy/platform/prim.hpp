// canopy/platform/prim.hpp — device-wide primitives: the rocPRIM / CUB facade.
//
// Host functions over device pointers, synchronous. AMD: rocPRIM; NVIDIA: CUB; emulator: the C++
// standard library over the (host) memory that stands for device memory.
//
//   void        exclusive_sum(const T* in, T* out, std::size_t n);
//   T           reduce_sum(const T* in, std::size_t n);                 (result to the host)
//   void        radix_sort_by_key(K* keys, V* values, std::size_t n);  (ascending, stable, in place)
//   std::size_t select_flagged(const T* in, const unsigned char* flags, T* out, std::size_t n);
//               copies in[i] with flags[i] != 0 to out, in order; returns how many
#pragma once

#include <cstddef>

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/prim.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/prim.hpp"
#endif
