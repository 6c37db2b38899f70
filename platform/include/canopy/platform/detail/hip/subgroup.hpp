// canopy/platform/detail/hip/subgroup.hpp — wavefront collectives on AMD GPUs. Included by subgroup.hpp.
//
// AMD runs a wavefront in lockstep under an exec mask; lanes that have exited (or never existed, in a
// partial last wavefront) have their exec bit clear. So "all live lanes, converged" is simply the
// current exec mask: ballot/any/all count exactly those lanes and shuffles read only from them.
//
// subgroup_barrier(): a wavefront executes in lockstep, so the lanes are together by construction;
// what the barrier must still do is keep the compiler from moving memory accesses across it (one lane's
// store before, another lane's load after) — a wavefront-scope acq_rel fence, which the AMDGPU memory
// model lowers to no instruction (a wavefront's memory operations are in order), plus wave_barrier,
// which pins the point for the convergence analysis. tests/codegen checks the IR fence and that no
// s_barrier (a work-group barrier) or cache maintenance is emitted.
//
// exclusive_scan uses rocPRIM's warp_scan (DPP row shifts on gfx9, DPP + permlane on RDNA). Its
// hardware-width variants assume a full wavefront, so a partial one takes a short serial path over the
// live lanes instead: ballot(true) says which case we are in, one s_cmp per call.
#pragma once

#include <hip/hip_runtime.h>
#include <rocprim/warp/warp_scan.hpp>

#include "canopy/platform/ids.hpp"

#include <cstdint>
#include <type_traits>

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

/// Lane `src`'s v (ds_bpermute), for any trivially copyable T of at most 8 bytes: moved as one 32-bit
/// word, or two for 5..8 bytes.
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T shfl_any(T v, unsigned src) {
    check_subgroup_value<T>();
    using word = std::conditional_t<(sizeof(T) <= 4), unsigned int, unsigned long long>;
    word w = 0;
    __builtin_memcpy(&w, &v, sizeof(T));
    w = __shfl(w, static_cast<int>(src), static_cast<int>(wave_size));
    subgroup_raw<T> r;
    __builtin_memcpy(r.bytes, &w, sizeof(T));
    return r.value;
}

/// Every lane of a full wavefront: 64 bits on wave64, the low 32 on wave32.
CANOPY_DEVICE CANOPY_FORCEINLINE lane_mask full_subgroup_mask() {
    if constexpr (wave_size == 64) {
        return ~lane_mask{0};
    } else {
        return (lane_mask{1} << wave_size) - 1;
    }
}

} // namespace canopy::detail

namespace canopy {

/// Bit i set when live lane i's p is true (wave32 leaves the high 32 bits 0).
CANOPY_DEVICE CANOPY_FORCEINLINE lane_mask ballot(bool p) { return static_cast<lane_mask>(__ballot(p)); }
CANOPY_DEVICE CANOPY_FORCEINLINE bool any(bool p) { return __any(p) != 0; }
CANOPY_DEVICE CANOPY_FORCEINLINE bool all(bool p) { return __all(p) != 0; }

/// Every lane gets lane src's v (src must be live).
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T broadcast(T v, unsigned src) {
    return detail::shfl_any(v, src);
}

/// Each lane gets the v of the lane it names (src may differ per lane; it must be live).
template <class T> CANOPY_DEVICE CANOPY_FORCEINLINE T shuffle(T v, unsigned src) {
    return detail::shfl_any(v, src);
}

/// Waits for every live lane of the wavefront and orders their memory accesses (see the header comment).
CANOPY_DEVICE CANOPY_FORCEINLINE void subgroup_barrier() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

/// init op v_0 op ... op v_{lane-1} over the live lanes below this one (init on the lowest live lane).
template <class T, class Op> CANOPY_DEVICE CANOPY_FORCEINLINE T exclusive_scan(T v, T init, Op op) {
    detail::check_subgroup_value<T>();
    const lane_mask live = ballot(true);
    if (live == detail::full_subgroup_mask()) {
        // rocPRIM picks warp_scan_dpp / warp_scan_shuffle for a power-of-two width equal to the
        // hardware's; both keep everything in registers (empty storage_type). Should a rocPRIM ever
        // need LDS for this width, each sub-group gets its own slot of a work-group-wide array sized
        // for the largest work-group (1024 work-items).
        using scan_type = rocprim::warp_scan<T, detail::wave_size>;
        using storage_type = typename scan_type::storage_type;
        detail::subgroup_raw<T> out;
        if constexpr (std::is_empty_v<storage_type>) {
            storage_type storage;
            scan_type().exclusive_scan(v, out.value, init, storage, op);
        } else {
            __shared__ storage_type storage[1024 / detail::wave_size];
            scan_type().exclusive_scan(v, out.value, init, storage[threadIdx.x / detail::wave_size], op);
        }
        return out.value;
    }
    // A partial wavefront: visit the live lanes in order, each fetched with one shuffle. `live` is the
    // same on every live lane, so the loop is uniform (convergent) and only reads live lanes.
    T acc = init;
    const unsigned me = lane_id();
    for (lane_mask rest = live; rest != 0; rest &= rest - 1) {
        const auto src = static_cast<unsigned>(__builtin_ctzll(rest));
        const T x = detail::shfl_any(v, src);
        if (src < me) {
            acc = op(acc, x);
        }
    }
    return acc;
}

} // namespace canopy
