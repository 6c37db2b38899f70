// canopy/platform/barrier.hpp — the work-group barrier.
//
// block_barrier() waits until every work-item of the work-group has reached it, and makes their
// work-group-scope writes (and shared memory) visible to each other: it is a barrier plus a
// work-group-scope acq_rel fence, as __syncthreads() and OpenCL's barrier(CLK_GLOBAL_MEM_FENCE) are.
// It must be reached by every work-item of the work-group (no early exits before it): the emulator
// reports "block 3: barrier reached by 37 of 64 work-items" instead of hanging.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/barrier.hpp"
#elif defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/barrier.hpp"
#else
#    include "canopy/platform/detail/cuda/barrier.hpp"
#endif
