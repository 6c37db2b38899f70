// tests/gpu/gpu_cases.hpp — what canopy_gpu_tests' sources share (test_gpu_*.cpp, one binary).
//
// canopy_gpu_tests holds the tests that can run on a real GPU: written against platform/, the runtime
// and the workloads only (no emulator header), so that the same sources build for every backend. On the hip
// and cuda presets (CANOPY_GPU_TESTS=ON) tools/gpu-check.sh runs them on the GPU; on cpu, ctest runs the same
// sources on the emulator (its default options: the deterministic scheduler on the tiny device), so the
// tests themselves are checked by CI on every submission. Sizes follow the backend: a GPU gets the
// published UTS trees and Kronecker 14, the emulator small ones.
//
// Every check compares a computed result with an oracle the host computes independently: a permutation
// of tickets, a closed form (lane sums, Fibonacci), the published UTS counts or the sequential reference
// traversal, and for graphs the sequential oracles plus Graph500's validation rules, the proved PageRank
// error bound and a proper-colouring check.
//
// The tests are split into five sources (platform, runtime, UTS, BFS/SSSP, PageRank/colouring) so that their
// kernels compile in parallel: one source of all of them was the longest compile of the GPU builds.
#pragma once

#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"

namespace canopy_gpu_tests {

namespace rt = canopy::runtime;

#if defined(CANOPY_BACKEND_CPU)
inline constexpr bool emulated = true;
#else
inline constexpr bool emulated = false;
#endif

struct core_case {
    rt::policy policy;
    rt::queue_design queues;
    unsigned device_rings; // ring core: 1 (one ring) or 0 (one per 8 work-groups)
};

inline std::vector<core_case> cores() {
    std::vector<core_case> v;
    for (rt::policy p : {rt::policy::hrf_direct, rt::policy::hrf_indirect, rt::policy::steal_emulated}) {
        v.push_back({p, rt::queue_design::ring, 0});
        v.push_back({p, rt::queue_design::ring, 1});
        v.push_back({p, rt::queue_design::locked, 0});
    }
    return v;
}

inline std::string name(const core_case& k) {
    return std::string(rt::to_string(k.policy)) + " " + rt::to_string(k.queues) +
           (k.queues == rt::queue_design::ring ? " rings=" + std::to_string(k.device_rings) : "");
}

/// The runtime configuration of a core case, with the queue capacities both runtime tests use.
inline rt::config config_of(const core_case& k) {
    rt::config c;
    c.policy = k.policy;
    c.queues = k.queues;
    c.device_rings = k.device_rings;
    c.private_capacity = 64;
    c.device_capacity = 256;
    return c;
}

} // namespace canopy_gpu_tests
