// canopy/platform/detail/cuda/spin.hpp — spin_until on NVIDIA GPUs. Included by spin.hpp only.
//
// Between polls the thread __nanosleep()s (sm_70 and newer), starting at b.initial_ns and doubling up
// to b.max_ns: the warp leaves the scheduler to the others (often the producer being waited for) and
// the poll loads stop hammering the memory system. Only one thread per warp need be spinning; with
// independent thread scheduling the other lanes of its warp keep making progress.
#pragma once

#include <cuda_runtime.h>

namespace canopy {

template <class Pred> CANOPY_DEVICE inline void spin_until(Pred pred, backoff b = {}) {
    unsigned ns = b.initial_ns;
    while (!pred()) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
        if (ns != 0) {
            __nanosleep(ns);
        }
#endif
        ns = ns < b.max_ns / 2 ? ns * 2 : b.max_ns;
    }
}

/// Nanoseconds of the GPU's global timer (%globaltimer: the same clock on every SM).
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned long long device_time_ns() {
    unsigned long long t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <class Pred> CANOPY_DEVICE inline bool spin_until_bounded(Pred pred, backoff b = {}) {
    if constexpr (spin_timeout_ns == 0) {
        spin_until(pred, b);
        return true;
    } else {
        const unsigned long long start = device_time_ns();
        unsigned ns = b.initial_ns;
        while (!pred()) {
            if (device_time_ns() - start > spin_timeout_ns) {
                return false;
            }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
            if (ns != 0) {
                __nanosleep(ns);
            }
#endif
            ns = ns < b.max_ns / 2 ? ns * 2 : b.max_ns;
        }
        return true;
    }
}

} // namespace canopy
