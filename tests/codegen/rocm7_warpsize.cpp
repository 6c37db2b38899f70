// tests/codegen/rocm7_warpsize.cpp — does canopy compile where warpSize is not a constant expression?
//
// ROCm 7 made HIP's warpSize a run-time value (a binary may serve wave32 and wave64 targets), so
// `if constexpr (warpSize == 64)`, `rocprim::warp_scan<T, warpSize>` and `__shared__ T s[1024 / warpSize]`
// stop compiling there. Debian's ROCm 5.2 still has the constexpr, so this file recreates ROCm 7's
// situation: after HIP's and rocPRIM's own headers (which keep theirs), every later use of `warpSize`
// names a __device__ function the compiler cannot evaluate at compile time. Then it instantiates every
// sub-group collective and the task runtime. check_codegen.sh compiles it for gfx90a (wave64) and
// gfx1030 (wave32); the static_asserts check that canopy's compile-time width is the target's.
#include <hip/hip_runtime.h>
#include <rocprim/warp/warp_scan.hpp>

__device__ int canopy_rocm7_warp_size(); // not constexpr: what ROCm 7's warpSize is to a constant expression
#define warpSize (canopy_rocm7_warp_size())

#include <cstdint>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"

#if defined(__HIP_DEVICE_COMPILE__) && defined(__gfx90a__)
static_assert(canopy::detail::wave_size == 64, "gfx90a (CDNA2) runs wave64");
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__gfx940__)
static_assert(canopy::detail::wave_size == 64, "gfx940 (CDNA3) runs wave64");
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__gfx1030__)
static_assert(canopy::detail::wave_size == 32, "gfx1030 (RDNA2) is compiled for wave32");
#endif

extern "C" CANOPY_KERNEL void cg_rocm7_collectives(unsigned* out, std::uint64_t* out64) {
    const unsigned t = canopy::thread_id();
    const canopy::lane_mask m = canopy::ballot((t & 1U) != 0);
    unsigned v =
        canopy::broadcast(t, 0) + canopy::shuffle(t, (canopy::lane_id() + 1U) % canopy::subgroup_size());
    v += canopy::any(t == 3U) ? 1U : 0U;
    v += canopy::all(t < 4096U) ? 2U : 0U;
    v += canopy::exclusive_sum(t);
    out64[t] = canopy::exclusive_sum(static_cast<std::uint64_t>(m));
    canopy::subgroup_barrier();
    out[t] = v + canopy::subgroup_size();
}

// The task runtime, instantiated for every GPU policy exactly as the compile-only check does, but here
// under the non-constant warpSize above.
#include "compile_runtime.cpp"
