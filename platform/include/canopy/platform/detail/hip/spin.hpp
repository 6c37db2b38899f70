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

} // namespace canopy
