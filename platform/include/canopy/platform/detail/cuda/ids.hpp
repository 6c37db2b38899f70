// canopy/platform/detail/cuda/ids.hpp — ids and sizes on NVIDIA GPUs (CUDA). Included by ids.hpp only.
//
// Launches are one-dimensional, so only the .x components exist. A warp is 32 threads on every NVIDIA
// architecture, so subgroup_size() is that constant (CUDA's warpSize is a run-time variable that never
// differs from it), and lane and warp ids follow from threadIdx.x.
#pragma once

#include <cuda_runtime.h>

namespace canopy {

CANOPY_DEVICE CANOPY_FORCEINLINE unsigned thread_id() { return threadIdx.x; }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned block_id() { return blockIdx.x; }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned block_dim() { return blockDim.x; }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned grid_dim() { return gridDim.x; }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned subgroup_size() { return 32U; }
// In a 1-D block, warp w holds threads [32w, 32w+32): %laneid is threadIdx.x % 32.
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned lane_id() { return threadIdx.x % 32U; }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned subgroup_id() { return threadIdx.x / 32U; }

} // namespace canopy
