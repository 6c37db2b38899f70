// tests/codegen/scopes_kernels.cpp — kernels whose machine code shows that canopy's scopes and orders
// reach the hardware. check_codegen.sh compiles this file through platform/ for AMD gfx90a (ISA and
// LLVM IR) and NVIDIA sm_90 (PTX), splits the output per kernel and greps each one.
//
// Every kernel is extern "C" and named cg_<operation>_<order>_<scope>, so that the script finds it
// by name on every backend. Each does one scoped operation between plain accesses that stand for the
// data the operation publishes or consumes:
//   load:   out[t] = atomic load of *flag                  (the value keeps the load alive)
//   store:  data[t] = 1 (plain); atomic store *flag = 1    (release must order the first store)
//   rmw:    out[t] = atomic fetch_add(*flag, 1)
//   fence:  acquire: a = data[t]; fence; out[t] = a + data[t + 64]
//           release / seq_cst: out[t] = 1; fence; data[t] = 1
// Plain accesses are indexed by the work-item id, so they stay vector memory operations (the AMD
// backend would turn uniform plain loads into scalar loads, which are outside the fences' ordering).
#include <cstdint>

#include "canopy/platform/platform.hpp"

#define CANOPY_CG_KERNEL extern "C" CANOPY_KERNEL void

#define CANOPY_CG_LOAD(order, s)                                                                             \
    CANOPY_CG_KERNEL cg_load_##order##_##s(unsigned* flag, unsigned* out) {                                  \
        out[canopy::thread_id()] =                                                                           \
            canopy::atomic_ref<unsigned, canopy::scope::s>{*flag}.load(std::memory_order_##order);           \
    }

#define CANOPY_CG_STORE(order, s)                                                                            \
    CANOPY_CG_KERNEL cg_store_##order##_##s(unsigned* flag, unsigned* data) {                                \
        canopy::st(&data[canopy::thread_id()], 1U);                                                          \
        canopy::atomic_ref<unsigned, canopy::scope::s>{*flag}.store(1U, std::memory_order_##order);          \
    }

#define CANOPY_CG_RMW(order, s)                                                                              \
    CANOPY_CG_KERNEL cg_fetch_add_##order##_##s(unsigned* flag, unsigned* out) {                             \
        out[canopy::thread_id()] =                                                                           \
            canopy::atomic_ref<unsigned, canopy::scope::s>{*flag}.fetch_add(1U, std::memory_order_##order);  \
    }

#define CANOPY_CG_FENCE_ACQUIRE(s)                                                                           \
    CANOPY_CG_KERNEL cg_fence_acquire_##s(unsigned* data, unsigned* out) {                                   \
        const unsigned t = canopy::thread_id();                                                              \
        const unsigned a = canopy::ld(&data[t]);                                                             \
        canopy::fence<canopy::scope::s>(std::memory_order_acquire);                                          \
        canopy::st(&out[t], a + canopy::ld(&data[t + 64]));                                                  \
    }

#define CANOPY_CG_FENCE_PUBLISH(order, s)                                                                    \
    CANOPY_CG_KERNEL cg_fence_##order##_##s(unsigned* data, unsigned* out) {                                 \
        const unsigned t = canopy::thread_id();                                                              \
        canopy::st(&out[t], 1U);                                                                             \
        canopy::fence<canopy::scope::s>(std::memory_order_##order);                                          \
        canopy::st(&data[t], 1U);                                                                            \
    }

#define CANOPY_CG_SCOPE(s)                                                                                   \
    CANOPY_CG_LOAD(relaxed, s)                                                                               \
    CANOPY_CG_LOAD(acquire, s)                                                                               \
    CANOPY_CG_LOAD(seq_cst, s)                                                                               \
    CANOPY_CG_STORE(relaxed, s)                                                                              \
    CANOPY_CG_STORE(release, s)                                                                              \
    CANOPY_CG_STORE(seq_cst, s)                                                                              \
    CANOPY_CG_RMW(relaxed, s)                                                                                \
    CANOPY_CG_RMW(acq_rel, s)                                                                                \
    CANOPY_CG_FENCE_ACQUIRE(s)                                                                               \
    CANOPY_CG_FENCE_PUBLISH(release, s)                                                                      \
    CANOPY_CG_FENCE_PUBLISH(seq_cst, s)

CANOPY_CG_SCOPE(subgroup)
CANOPY_CG_SCOPE(workgroup)
CANOPY_CG_SCOPE(device)
CANOPY_CG_SCOPE(system)

// The other read-modify-write operations, relaxed at device scope, and 64-bit and floating-point
// accesses: each must be one native atomic instruction.
#define CANOPY_CG_OP(name, call)                                                                             \
    CANOPY_CG_KERNEL cg_op_##name##_device(std::uint64_t* p64, unsigned* p32, float* pf, unsigned* out) {    \
        canopy::atomic_ref<unsigned, canopy::scope::device> r32{*p32};                                       \
        canopy::atomic_ref<std::uint64_t, canopy::scope::device> r64{*p64};                                  \
        canopy::atomic_ref<float, canopy::scope::device> rf{*pf};                                            \
        static_cast<void>(r32);                                                                              \
        static_cast<void>(r64);                                                                              \
        static_cast<void>(rf);                                                                               \
        out[canopy::thread_id()] = static_cast<unsigned>(call);                                              \
    }

CANOPY_CG_OP(sub, r32.fetch_sub(3U, std::memory_order_relaxed))
CANOPY_CG_OP(bit_and, r32.fetch_and(3U, std::memory_order_relaxed))
CANOPY_CG_OP(bit_or, r32.fetch_or(3U, std::memory_order_relaxed))
CANOPY_CG_OP(bit_xor, r32.fetch_xor(3U, std::memory_order_relaxed))
CANOPY_CG_OP(min, r32.fetch_min(3U, std::memory_order_relaxed))
CANOPY_CG_OP(max, r32.fetch_max(3U, std::memory_order_relaxed))
CANOPY_CG_OP(exchange, r32.exchange(3U, std::memory_order_relaxed))
CANOPY_CG_OP(cas, [&] {
    unsigned expected = 0;
    return r32.compare_exchange_strong(expected, 3U, std::memory_order_relaxed) ? 1U : expected;
}())
CANOPY_CG_OP(add64, r64.fetch_add(3U, std::memory_order_relaxed))
CANOPY_CG_OP(load64_acquire, r64.load(std::memory_order_acquire))
CANOPY_CG_OP(exchange_float, rf.exchange(1.5F, std::memory_order_relaxed))

// Sub-group hand-offs and collectives (issue 10): a lane's plain store, subgroup_barrier(), another
// lane's plain load. AMD: a wavefront-scope fence (IR) and no work-group barrier or cache maintenance
// (ISA); NVIDIA: bar.warp.sync with the warp's member mask, never one taken from activemask.
CANOPY_CG_KERNEL cg_subgroup_barrier(unsigned* data, unsigned* out) {
    const unsigned t = canopy::thread_id();
    canopy::st(&data[t], t + 1U);
    canopy::subgroup_barrier();
    const unsigned lane = canopy::lane_id();
    const unsigned next = t - lane + (lane + 1U) % canopy::subgroup_size();
    canopy::st(&out[t], canopy::ld(&data[next]));
}

// A collective straight after a leader-only branch (the runtime scheduler's shape): the broadcast must
// wait for the leader, whatever lanes happen to be converged.
CANOPY_CG_KERNEL cg_subgroup_after_branch(unsigned* data, unsigned* out) {
    const unsigned t = canopy::thread_id();
    unsigned v = 0;
    if (canopy::lane_id() == 0) {
        v = canopy::atomic_ref<unsigned, canopy::scope::device>{*data}.fetch_add(1U,
                                                                                 std::memory_order_relaxed);
    }
    v = canopy::broadcast(v, 0);
    const canopy::lane_mask m = canopy::ballot((v & 1U) != 0);
    out[t] = canopy::exclusive_sum(v) + static_cast<unsigned>(m);
}
