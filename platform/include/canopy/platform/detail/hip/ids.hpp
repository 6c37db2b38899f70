// canopy/platform/detail/hip/ids.hpp — ids and sizes on AMD GPUs (HIP). Included by ids.hpp only.
//
// Launches are one-dimensional, so only the .x components exist. The sub-group is the wavefront, whose
// width is a property of the compilation target, not of the vendor: HIP's warpSize is a constexpr per
// device compilation (__AMDGCN_WAVEFRONT_SIZE): 64 on gfx90a (CDNA2), 32 on gfx1030 (RDNA2, which HIP
// compiles in wave32 mode). One source therefore holds both, and nothing here assumes 64.
#pragma once

#include <hip/hip_runtime.h>

namespace canopy {

CANOPY_DEVICE CANOPY_FORCEINLINE unsigned thread_id() { return static_cast<unsigned>(threadIdx.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned block_id() { return static_cast<unsigned>(blockIdx.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned block_dim() { return static_cast<unsigned>(blockDim.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned grid_dim() { return static_cast<unsigned>(gridDim.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned subgroup_size() { return static_cast<unsigned>(warpSize); }
// In a 1-D work-group, wavefront w holds work-items [w*warpSize, (w+1)*warpSize), so the lane is the
// work-item id modulo the (power-of-two, compile-time) wave size: a mask, no mbcnt needed.
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned lane_id() { return thread_id() % subgroup_size(); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned subgroup_id() { return thread_id() / subgroup_size(); }

} // namespace canopy
