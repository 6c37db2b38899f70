// canopy/platform/subgroup.hpp — sub-group (wavefront / warp) collectives.
//
// Every collective must be reached by all live lanes of the sub-group (lanes that have exited take no
// part: their ballot bit is 0 and they are skipped by scans), and it WAITS for all of them: it is not
// "the lanes that happen to be here". That is CUDA's *_sync with an explicit mask naming every lane of
// the warp (what canopy passes: never __activemask(), since NVIDIA lanes need not reconverge after a
// branch), AMD's exec-mask semantics (a wavefront reconverges by construction), and the emulator's
// arrival-counted collective. A collective that some live lane never reaches is a bug: the emulator
// reports it as divergent; a GPU hangs or returns garbage. Values are trivially copyable, <= 8 bytes.
//
// Collectives move values, not memory: shfl.sync and vote.sync are not memory operations in the PTX
// model, so a lane's plain stores are NOT ordered before another lane's loads by a broadcast. A
// hand-off of memory between lanes of one sub-group uses subgroup_barrier(), which waits for every
// live lane and orders their memory accesses (CUDA __syncwarp; AMD a wavefront-scope fence; the
// emulator an arrival-counted barrier). It orders among the sub-group only: data another work-item
// published at a wider scope must still be acquired at that scope by the lane that reads it, or by a
// lane that then hands it over through subgroup_barrier (causality is transitive: PTX, HRF-indirect).
//
//   void subgroup_barrier()           every live lane arrives; their memory accesses are ordered
//   lane_mask ballot(bool p)          bit i set when lane i's p is true
//   bool any(bool p), bool all(bool p)
//   T broadcast(T v, unsigned src)    every lane gets lane src's v
//   T shuffle(T v, unsigned src)      each lane gets the v of the lane it names (src may differ per lane)
//   T exclusive_sum(T v)              sum of v over the lanes below this one (0 for lane 0)
//   unsigned lane_count(lane_mask m)  lanes set in m (not a collective)
//   T exclusive_scan(T v, T init, Op) init op v_0 op ... op v_{lane-1}
//
// AMD: rocPRIM's warp_scan; NVIDIA: CUB's WarpScan; emulator: its own arrival-counted collective.
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/platform/site.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/subgroup.hpp"
#elif defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/subgroup.hpp"
#else
#    include "canopy/platform/detail/cuda/subgroup.hpp"
#endif

namespace canopy {
/// Lanes set in a ballot's mask (a builtin every backend's device compiler has: nvcc, hipcc, the host).
CANOPY_HOST_DEVICE inline unsigned lane_count(lane_mask m) {
    return static_cast<unsigned>(__builtin_popcountll(static_cast<unsigned long long>(m)));
}

// The caller's site travels on (emulator): a divergence report or the site profile names the code that
// summed, not this line.
template <class T> CANOPY_DEVICE inline T exclusive_sum(T v CANOPY_SITE_PARAM_TAIL) {
    return exclusive_scan(v, T{0}, [](T a, T b) { return static_cast<T>(a + b); } CANOPY_SITE_ARG_TAIL);
}
} // namespace canopy
