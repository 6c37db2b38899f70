// canopy/platform/subgroup.hpp — sub-group (wavefront / warp) collectives.
//
// Every collective must be reached by all live lanes of the sub-group, converged (lanes that have
// exited take no part: their ballot bit is 0 and they are skipped by scans). This is the portable
// subset of AMD's exec-mask semantics and CUDA's *_sync semantics: canopy never passes partial masks,
// so divergent collectives are a bug that the emulator reports. Values are trivially copyable, at most
// 8 bytes.
//
//   lane_mask ballot(bool p)          bit i set when lane i's p is true
//   bool any(bool p), bool all(bool p)
//   T broadcast(T v, unsigned src)    every lane gets lane src's v
//   T shuffle(T v, unsigned src)      each lane gets the v of the lane it names (src may differ per lane)
//   T exclusive_sum(T v)              sum of v over the lanes below this one (0 for lane 0)
//   T exclusive_scan(T v, T init, Op) init op v_0 op ... op v_{lane-1}
//
// AMD: rocPRIM's warp_scan; NVIDIA: CUB's WarpScan; emulator: its own arrival-counted collective.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/subgroup.hpp"
#elif defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/subgroup.hpp"
#else
#    include "canopy/platform/detail/cuda/subgroup.hpp"
#endif

namespace canopy {
template <class T> CANOPY_DEVICE inline T exclusive_sum(T v) {
    return exclusive_scan(v, T{0}, [](T a, T b) { return static_cast<T>(a + b); });
}
} // namespace canopy
