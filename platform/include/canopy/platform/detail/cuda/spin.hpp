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

} // namespace canopy
