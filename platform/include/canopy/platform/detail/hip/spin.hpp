// canopy/platform/detail/hip/spin.hpp — spin_until on AMD GPUs. Included by spin.hpp only.
//
// Between polls the wave sleeps with s_sleep, which frees its SIMD's issue slots for the other waves
// (among them, often, the producer being waited for) and keeps the poll loads off the memory system.
// s_sleep's operand is an immediate: s_sleep N sleeps about 64*N clocks. We sleep in units of
// s_sleep 1 (64 clocks, ~32 ns at 2 GHz) and double the count from b.initial_ns up to b.max_ns.
#pragma once

#include <hip/hip_runtime.h>

namespace canopy {

template <class Pred> CANOPY_DEVICE inline void spin_until(Pred pred, backoff b = {}) {
    constexpr unsigned ns_per_unit = 32; // s_sleep 1 = 64 clocks, counted at 2 GHz
    unsigned ns = b.initial_ns;
    while (!pred()) {
        for (unsigned slept = 0; slept < ns; slept += ns_per_unit) {
            __builtin_amdgcn_s_sleep(1);
        }
        ns = ns < b.max_ns / 2 ? ns * 2 : b.max_ns;
    }
}

/// s_memrealtime (what HIP's wall_clock64 reads): a constant 100 MHz counter on CDNA and RDNA2, i.e.
/// 10 ns per tick; -1 where the target has none (gfx11 reads it with s_sendmsg_rtn instead; there no
/// bound is enforced).
CANOPY_DEVICE CANOPY_FORCEINLINE long long device_ticks_10ns() {
#if defined(__HIP_DEVICE_COMPILE__) && __has_builtin(__builtin_amdgcn_s_memrealtime)
    return static_cast<long long>(__builtin_amdgcn_s_memrealtime());
#else
    return -1;
#endif
}

template <class Pred> CANOPY_DEVICE inline bool spin_until_bounded(Pred pred, backoff b = {}) {
    if constexpr (spin_timeout_ns == 0) {
        spin_until(pred, b);
        return true;
    } else {
        constexpr unsigned ns_per_unit = 32;
        const long long start = device_ticks_10ns();
        unsigned ns = b.initial_ns;
        while (!pred()) {
            if (start >= 0 &&
                static_cast<unsigned long long>(device_ticks_10ns() - start) * 10ULL > spin_timeout_ns) {
                return false;
            }
            for (unsigned slept = 0; slept < ns; slept += ns_per_unit) {
                __builtin_amdgcn_s_sleep(1);
            }
            ns = ns < b.max_ns / 2 ? ns * 2 : b.max_ns;
        }
        return true;
    }
}

} // namespace canopy
