// canopy/platform/detail/hip/ids.hpp — ids and sizes on AMD GPUs (HIP). Included by ids.hpp only.
//
// Launches are one-dimensional, so only the .x components exist. The sub-group is the wavefront, whose
// width is a property of the compilation target, not of the vendor: 64 on gfx9 (CDNA: gfx90a, gfx940),
// 32 on RDNA (gfx1030), which HIP compiles in wave32 mode unless told otherwise. One source holds both,
// and nothing here assumes 64.
//
// WAVE SIZE AT COMPILE TIME. Collectives need the width as a constant expression (rocPRIM's warp_scan
// template argument, array bounds, if constexpr). HIP's `warpSize` used to be one, but since ROCm 7 it
// is a run-time value (one binary may serve wave32 and wave64 targets), so code that says
// `if constexpr (warpSize == 64)` stops compiling there; the compiler's __AMDGCN_WAVEFRONT_SIZE(__)
// predefines that replaced it are deprecated too (a warning, an error under -Werror) and removed in
// newer clang. canopy takes the width from the target family the device pass compiles for: every gfx9
// (CDNA: gfx90a, gfx940) is wave64 — the ISA has no wave32 — and RDNA (gfx10, gfx11, gfx12) is compiled
// by HIP in wave32 mode, its default (canopy does not support -mwavefrontsize64 on RDNA). The host pass
// sees no target; device functions are not emitted there, so any constant does. The host learns the
// real width from the device (device_info::subgroup_size), and tests/codegen checks that platform/ and
// the runtime compile with a non-constant warpSize (the ROCm 7 situation).
#pragma once

#include <hip/hip_runtime.h>

#if !defined(__HIP_DEVICE_COMPILE__)
#    define CANOPY_HIP_WAVE_SIZE 64 // host pass: unused by emitted code
#elif defined(__GFX9__)
#    define CANOPY_HIP_WAVE_SIZE 64
#elif defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__)
#    define CANOPY_HIP_WAVE_SIZE 32
#else
#    error "canopy: unknown AMD target family: add its wavefront size to platform/detail/hip/ids.hpp"
#endif

namespace canopy {

namespace detail {
/// The wavefront width of the target this device pass compiles for: a constant expression.
inline constexpr unsigned wave_size = CANOPY_HIP_WAVE_SIZE;
static_assert(wave_size == 32 || wave_size == 64, "AMD wavefronts are 32 or 64 lanes");
} // namespace detail

CANOPY_DEVICE CANOPY_FORCEINLINE unsigned thread_id() { return static_cast<unsigned>(threadIdx.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned block_id() { return static_cast<unsigned>(blockIdx.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned block_dim() { return static_cast<unsigned>(blockDim.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned grid_dim() { return static_cast<unsigned>(gridDim.x); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned subgroup_size() { return detail::wave_size; }
// In a 1-D work-group, wavefront w holds work-items [w*wave_size, (w+1)*wave_size), so the lane is the
// work-item id modulo the (power-of-two, compile-time) wave size: a mask, no mbcnt needed.
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned lane_id() { return thread_id() % subgroup_size(); }
CANOPY_DEVICE CANOPY_FORCEINLINE unsigned subgroup_id() { return thread_id() / subgroup_size(); }

} // namespace canopy
