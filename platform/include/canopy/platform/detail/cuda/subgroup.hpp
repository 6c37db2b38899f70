// canopy/platform/detail/cuda/subgroup.hpp — warp collectives on NVIDIA GPUs. Included by subgroup.hpp.
//
// The *_sync intrinsics need the mask of the lanes taking part, and naming a lane that does not execute
// the call (one that has exited, or a missing lane of a partial last warp) is undefined behaviour. canopy's
// contract (subgroup.hpp) is that every live lane reaches a collective, converged. Under that contract
// the lanes executing the call together are exactly the live lanes, which is what __activemask()
// returns, so it is the mask: 0xffffffff would be undefined as soon as one lane has exited, and asking
// callers for a mask would put vendor semantics into kernel code. Code that breaks the contract (a
// collective in divergent code) gets whichever lanes happen to be converged; the emulator reports it.
//
// exclusive_scan uses CUB's WarpScan (shuffle-based, no shared memory) for a full warp and a short
// serial path over the live lanes otherwise, since WarpScan always works on all 32 lanes.
#pragma once

#include <cub/warp/warp_scan.cuh>
#include <cuda_runtime.h>

#include <type_traits>

#include "canopy/platform/ids.hpp"

namespace canopy::detail {

/// Uninitialized storage for a T that need not be default-constructible (trivially copyable is enough).
template <class T> union subgroup_raw {
    CANOPY_DEVICE subgroup_raw() {}
    T value;
    unsigned char bytes[sizeof(T)];
};

template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE void check_subgroup_value() {
    static_assert(std::is_trivially_copyable_v<T>, "sub-group collectives move trivially copyable values");
    static_assert(sizeof(T) <= 8, "sub-group collectives move values of at most 8 bytes");
}

/// Lane `src`'s v among the lanes of `mask`, for any trivially copyable T of at most 8 bytes: moved as
/// one 32-bit word (shfl.sync), or a 64-bit one (two shfl.sync) for 5..8 bytes.
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T shfl_any(unsigned mask, T v, unsigned src) {
    check_subgroup_value<T>();
    using word = std::conditional_t<(sizeof(T) <= 4), unsigned int, unsigned long long>;
    word w = 0;
    memcpy(&w, &v, sizeof(T));
    w = __shfl_sync(mask, w, static_cast<int>(src));
    subgroup_raw<T> r;
    memcpy(r.bytes, &w, sizeof(T));
    return r.value;
}

} // namespace canopy::detail

namespace canopy {

/// Bit i set when live lane i's p is true (the high 32 bits are always 0).
CANOPY_DEVICE CANOPY_FORCEINLINE lane_mask ballot(bool p) { return __ballot_sync(__activemask(), p); }
CANOPY_DEVICE CANOPY_FORCEINLINE bool any(bool p) { return __any_sync(__activemask(), p) != 0; }
CANOPY_DEVICE CANOPY_FORCEINLINE bool all(bool p) { return __all_sync(__activemask(), p) != 0; }

/// Every lane gets lane src's v (src must be live).
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T broadcast(T v, unsigned src) {
    return detail::shfl_any(__activemask(), v, src);
}

/// Each lane gets the v of the lane it names (src may differ per lane; it must be live).
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T shuffle(T v, unsigned src) {
    return detail::shfl_any(__activemask(), v, src);
}

/// init op v_0 op ... op v_{lane-1} over the live lanes below this one (init on the lowest live lane).
template <class T, class Op> CANOPY_DEVICE CANOPY_FORCEINLINE T exclusive_scan(T v, T init, Op op) {
    detail::check_subgroup_value<T>();
    const unsigned live = __activemask();
    if (live == 0xffffffffU) {
        // For the architectural warp width (a power of two) CUB picks WarpScanShfl, whose TempStorage
        // is an empty struct: a local is all it needs. Should a CUB ever need real storage here, each
        // warp gets its slot of a block-wide array sized for the largest block (1024 threads).
        using scan_type = cub::WarpScan<T>;
        using storage_type = typename scan_type::TempStorage;
        detail::subgroup_raw<T> out;
        if constexpr (sizeof(storage_type) <= 1) {
            storage_type storage;
            scan_type(storage).ExclusiveScan(v, out.value, init, op);
        } else {
            __shared__ storage_type storage[1024 / 32];
            scan_type(storage[threadIdx.x / 32U]).ExclusiveScan(v, out.value, init, op);
        }
        return out.value;
    }
    // A partial warp: visit the live lanes in order, each fetched with one shuffle among the live
    // lanes. `live` is the same on every live lane, so the loop is uniform and reads only live lanes.
    T acc = init;
    const unsigned me = lane_id();
    for (unsigned rest = live; rest != 0; rest &= rest - 1) {
        const auto src = static_cast<unsigned>(__ffs(static_cast<int>(rest)) - 1);
        const T x = detail::shfl_any(live, v, src);
        if (src < me) {
            acc = op(acc, x);
        }
    }
    return acc;
}

} // namespace canopy
