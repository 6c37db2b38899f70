// canopy/platform/detail/cuda/subgroup.hpp — warp collectives on NVIDIA GPUs. Included by subgroup.hpp.
//
// THE MEMBER MASK. Since Volta, threads of a warp are scheduled independently: after a branch the warp
// is not guaranteed to reconverge, so the lanes that happen to execute an instruction together are a
// property of the schedule, not of the program. __activemask() reports exactly that accident; a *_sync
// called with it does not wait for the lanes that are behind (e.g. the lanes that skipped the
// leader-only branch the runtime's scheduler has just left), and a shuffle from one of them reads an
// undefined value. So every *_sync here names the lanes that EXIST in the calling warp, computed from
// the ids (all 32, or the first blockDim.x % 32 lanes of a partial last warp): the *_sync then waits
// until every non-exited lane it names has arrived (PTX ISA, shfl.sync / vote.sync / bar.warp.sync:
// "wait until all non-exited threads corresponding to membermask" have executed it). Naming a lane
// that has exited is allowed; naming one that does not exist, or a live lane that never arrives, is
// not (the emulator reports the second as a divergent collective). These are the emulator's semantics
// too: a collective there completes when every live lane of the sub-group has arrived.
//
// Lanes that have exited contribute 0 to a ballot and are skipped by scans: exclusive_scan learns them
// with one vote.sync over the member mask (its result names the non-exited lanes, synchronized), and
// uses CUB's WarpScan only when all 32 lanes are there; otherwise a short serial path over them.
//
// subgroup_barrier() is __syncwarp(members): bar.warp.sync both waits for the named lanes and orders
// memory among them, which is what a hand-off between lanes needs — shfl.sync and vote.sync are not
// memory operations in the PTX memory model, so they order nothing.
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

/// The lanes that exist in the calling warp (see the header comment): every lane of a full warp, the
/// low blockDim.x % 32 lanes of the last warp of a block whose size is not a multiple of 32. A function
/// of the ids only, so every lane of the warp computes the same mask wherever it is in the program.
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned member_mask() {
    const unsigned present = blockDim.x - (threadIdx.x & ~31U);
    return present >= 32U ? 0xffffffffU : (1U << present) - 1U;
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
CANOPY_DEVICE CANOPY_FORCEINLINE lane_mask ballot(bool p) { return __ballot_sync(detail::member_mask(), p); }
CANOPY_DEVICE CANOPY_FORCEINLINE bool any(bool p) { return __any_sync(detail::member_mask(), p) != 0; }
CANOPY_DEVICE CANOPY_FORCEINLINE bool all(bool p) { return __all_sync(detail::member_mask(), p) != 0; }

/// Every lane gets lane src's v (src must be live).
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T broadcast(T v, unsigned src) {
    return detail::shfl_any(detail::member_mask(), v, src);
}

/// Each lane gets the v of the lane it names (src may differ per lane; it must be live).
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T shuffle(T v, unsigned src) {
    return detail::shfl_any(detail::member_mask(), v, src);
}

/// Waits for every live lane of the warp and orders their memory accesses (__syncwarp: bar.warp.sync).
CANOPY_DEVICE CANOPY_FORCEINLINE void subgroup_barrier() { __syncwarp(detail::member_mask()); }

/// init op v_0 op ... op v_{lane-1} over the live lanes below this one (init on the lowest live lane).
template <class T, class Op> CANOPY_DEVICE CANOPY_FORCEINLINE T exclusive_scan(T v, T init, Op op) {
    detail::check_subgroup_value<T>();
    // Which named lanes are live, learnt by a vote that waits for all of them: the same on every lane.
    const unsigned live = __ballot_sync(detail::member_mask(), true);
    if (live == 0xffffffffU) {
        // A full warp: CUB's WarpScan, whose shuffles name all 32 lanes (exactly our member mask). For
        // the architectural warp width (a power of two) CUB picks WarpScanShfl, whose TempStorage is an
        // empty struct: a local is all it needs. Should a CUB ever need real storage here, each warp
        // gets its slot of a block-wide array sized for the largest block (1024 threads).
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
    // A partial warp (or exited lanes): visit the live lanes in order, each fetched with one shuffle
    // among exactly the live lanes. `live` is the same on every live lane, so the loop is uniform.
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
