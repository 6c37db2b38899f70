// canopy/platform/detail/hip/barrier.hpp — the work-group barrier on AMD GPUs. Included by barrier.hpp.
//
// HIP's __syncthreads() is a work-group-scope release fence, s_barrier, and a work-group-scope acquire
// fence, so it orders global memory as well as LDS at work-group scope: exactly the contract of
// block_barrier() in barrier.hpp.
#pragma once

#include <hip/hip_runtime.h>

namespace canopy {

CANOPY_DEVICE CANOPY_FORCEINLINE void block_barrier() { __syncthreads(); }

} // namespace canopy
