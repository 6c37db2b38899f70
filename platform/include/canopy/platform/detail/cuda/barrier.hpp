// canopy/platform/detail/cuda/barrier.hpp — the work-group barrier on NVIDIA GPUs. Included by barrier.hpp.
//
// __syncthreads() (bar.sync 0) waits for the whole block and orders the block's memory accesses, global
// and shared, at block (.cta) scope: exactly the contract of block_barrier() in barrier.hpp.
#pragma once

#include <cuda_runtime.h>

namespace canopy {

CANOPY_DEVICE CANOPY_FORCEINLINE void block_barrier() { __syncthreads(); }

} // namespace canopy
