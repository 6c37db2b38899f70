// canopy/platform/detail/hip/atomic.hpp — scoped atomics on AMD GPUs: Clang's __hip_atomic_* builtins.
// Included by atomic.hpp only.
//
// Every (operation, order, scope) of canopy::atomic_ref and canopy::fence reaches the hardware here.
// The builtins take the scope as an argument, and the AMDGPU backend turns (order, scope) into cache
// maintenance following the memory model tables of LLVM's AMDGPUUsage ("Memory Model GFX90A",
// "Memory Model GFX10-GFX11"). On gfx90a outside tgsplit mode that is, for global memory:
//
//   scope      acquire (load / RMW / fence)         release (store / RMW / fence)       relaxed load
//   wavefront  nothing                              nothing                             L1 hit ok
//   workgroup  nothing: the work-group's waves      nothing: the work-group's waves     L1 hit ok
//              share the CU's L1                    share the CU's L1
//   agent      glc load (L2), s_waitcnt vmcnt(0),   s_waitcnt vmcnt(0) before the       glc (reads L2)
//              buffer_wbinvl1_vol (drop stale L1)   access (earlier stores reached L2)
//   system     as agent, plus buffer_invl2          as agent, plus buffer_wbl2 first    glc
//
// tests/codegen/check_codegen.sh asserts exactly these instructions on the gfx90a ISA, and the
// syncscope of every atomic in the LLVM IR, so a wrong mapping here fails CI.
//
// Orders are std::memory_order, passed to the builtins as the matching __ATOMIC_* value. The functions
// are force-inlined, so with the constant orders that kernel code writes, the optimizer keeps only one
// case; a run-time order also works (Clang emits a switch). Orders that C++ does not allow for an
// operation are reduced to the part that operation can carry (consume is acquire; a load cannot
// release, a store cannot acquire) instead of silently becoming relaxed, which is what Clang does with
// an invalid run-time order.
//
// Clang gives non-seq_cst __hip_atomic_* the "<scope>-one-as" sync scopes: their acquire/release
// ordering covers global memory only, not LDS. Publishing shared memory (CANOPY_SHARED) to the rest of
// the work-group needs block_barrier() or a canopy::fence (fences order every address space).
#pragma once

#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace canopy::detail {

// Scope mapping. Each case says what the scope lets the hardware skip.
constexpr int hip_memory_scope(scope s) {
    switch (s) {
    case scope::subgroup:
        // The lanes of one wavefront run in lockstep through the same L1: no cache maintenance and
        // no waits are ever needed between them.
        return __HIP_MEMORY_SCOPE_WAVEFRONT;
    case scope::workgroup:
        // The waves of a work-group run on one CU and share its vector L1, so ordering needs no L1
        // invalidate or L2 write-back (true outside gfx90a's tgsplit mode, which canopy does not use).
        return __HIP_MEMORY_SCOPE_WORKGROUP;
    case scope::device:
        // Other work-groups run on other CUs with their own L1: acquire must invalidate this CU's L1,
        // release must wait until earlier writes reached the (device-coherent) L2. AMD calls it "agent".
        return __HIP_MEMORY_SCOPE_AGENT;
    case scope::system:
        // The host and peer devices do not see this device's L2 for non-coherent memory: release
        // writes L2 back (buffer_wbl2) and acquire invalidates it (buffer_invl2) on gfx90a.
        return __HIP_MEMORY_SCOPE_SYSTEM;
    }
    return __HIP_MEMORY_SCOPE_SYSTEM;
}

/// A read-modify-write (or CAS success) order: all six orders are valid; consume is acquire.
constexpr int hip_rmw_order(std::memory_order o) {
    switch (o) {
    case std::memory_order_relaxed: return __ATOMIC_RELAXED;
    case std::memory_order_consume:
        return __ATOMIC_ACQUIRE; // nobody implements consume; acquire is its sound strengthening
    case std::memory_order_acquire: return __ATOMIC_ACQUIRE;
    case std::memory_order_release: return __ATOMIC_RELEASE;
    case std::memory_order_acq_rel: return __ATOMIC_ACQ_REL;
    case std::memory_order_seq_cst: return __ATOMIC_SEQ_CST;
    }
    return __ATOMIC_SEQ_CST;
}

/// A load can only acquire: release contributes nothing to a load and acq_rel is its acquire half.
constexpr int hip_load_order(std::memory_order o) {
    switch (o) {
    case std::memory_order_release: return __ATOMIC_RELAXED;
    case std::memory_order_acq_rel: return __ATOMIC_ACQUIRE;
    default: return hip_rmw_order(o);
    }
}

/// A store can only release: acquire/consume contribute nothing to a store, acq_rel is its release half.
constexpr int hip_store_order(std::memory_order o) {
    switch (o) {
    case std::memory_order_consume:
    case std::memory_order_acquire: return __ATOMIC_RELAXED;
    case std::memory_order_acq_rel: return __ATOMIC_RELEASE;
    default: return hip_rmw_order(o);
    }
}

/// A failed CAS is a load: the same reduction as hip_load_order.
constexpr int hip_cas_failure_order(std::memory_order o) { return hip_load_order(o); }

// Integers, floating-point values and pointers go to the builtins as they are. Any other 4- or 8-byte
// trivially copyable type (a small struct) is accessed as an unsigned word of its size, through a
// may_alias type so that type-based alias analysis cannot move plain accesses to the object across
// the atomic, and with the alignment atomic_ref::required_alignment promises (a struct's own alignment
// may be smaller, which the builtins would reject as a misaligned atomic).
template <class T>
inline constexpr bool hip_native_atomic_v =
    std::is_integral_v<T> || std::is_floating_point_v<T> || std::is_pointer_v<T>;

using hip_word32 = std::uint32_t __attribute__((may_alias, aligned(4)));
using hip_word64 = std::uint64_t __attribute__((may_alias, aligned(8)));
template <class T> using hip_word_t = std::conditional_t<sizeof(T) == 4, hip_word32, hip_word64>;

template <scope S, class T> CANOPY_DEVICE CANOPY_FORCEINLINE T atomic_load(const T* p, std::memory_order o) {
    if constexpr (hip_native_atomic_v<T>) {
        return __hip_atomic_load(p, hip_load_order(o), hip_memory_scope(S));
    } else {
        const auto w = __hip_atomic_load(reinterpret_cast<const hip_word_t<T>*>(p), hip_load_order(o),
                                         hip_memory_scope(S));
        return __builtin_bit_cast(T, w);
    }
}

template <scope S, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE void atomic_store(T* p, T v, std::memory_order o) {
    if constexpr (hip_native_atomic_v<T>) {
        __hip_atomic_store(p, v, hip_store_order(o), hip_memory_scope(S));
    } else {
        __hip_atomic_store(reinterpret_cast<hip_word_t<T>*>(p), __builtin_bit_cast(hip_word_t<T>, v),
                           hip_store_order(o), hip_memory_scope(S));
    }
}

template <scope S, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE T atomic_exchange(T* p, T v, std::memory_order o) {
    if constexpr (hip_native_atomic_v<T>) {
        return __hip_atomic_exchange(p, v, hip_rmw_order(o), hip_memory_scope(S));
    } else {
        const auto w =
            __hip_atomic_exchange(reinterpret_cast<hip_word_t<T>*>(p), __builtin_bit_cast(hip_word_t<T>, v),
                                  hip_rmw_order(o), hip_memory_scope(S));
        return __builtin_bit_cast(T, w);
    }
}

/// Strong compare-exchange (values compare bitwise, as std::atomic does); on failure `expected`
/// receives the current value.
template <scope S, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE bool atomic_cas(T* p, T& expected, T desired, std::memory_order success,
                                                 std::memory_order failure) {
    if constexpr (hip_native_atomic_v<T>) {
        return __hip_atomic_compare_exchange_strong(p, &expected, desired, hip_rmw_order(success),
                                                    hip_cas_failure_order(failure), hip_memory_scope(S));
    } else {
        auto e = __builtin_bit_cast(hip_word_t<T>, expected);
        const bool ok = __hip_atomic_compare_exchange_strong(
            reinterpret_cast<hip_word_t<T>*>(p), &e, __builtin_bit_cast(hip_word_t<T>, desired),
            hip_rmw_order(success), hip_cas_failure_order(failure), hip_memory_scope(S));
        expected = __builtin_bit_cast(T, e);
        return ok;
    }
}

template <scope S, rmw_op Op, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE T atomic_fetch(T* p, T v, std::memory_order o) {
    static_assert(std::is_integral_v<T>, "atomic_fetch needs an integral type");
    constexpr int sc = hip_memory_scope(S);
    const int mo = hip_rmw_order(o);
    if constexpr (Op == rmw_op::add) {
        return __hip_atomic_fetch_add(p, v, mo, sc);
    } else if constexpr (Op == rmw_op::sub) {
        // Clang 15 (ROCm 5.2) has no __hip_atomic_fetch_sub: add the two's complement negation,
        // computed in the unsigned type so that negating the most negative value is not overflow.
        using U = std::make_unsigned_t<T>;
        return __hip_atomic_fetch_add(p, static_cast<T>(U{0} - static_cast<U>(v)), mo, sc);
    } else if constexpr (Op == rmw_op::and_) {
        return __hip_atomic_fetch_and(p, v, mo, sc);
    } else if constexpr (Op == rmw_op::or_) {
        return __hip_atomic_fetch_or(p, v, mo, sc);
    } else if constexpr (Op == rmw_op::xor_) {
        return __hip_atomic_fetch_xor(p, v, mo, sc);
    } else if constexpr (Op == rmw_op::min) {
        return __hip_atomic_fetch_min(p, v, mo, sc); // signed or unsigned min by T, as std::atomic
    } else {
        static_assert(Op == rmw_op::max);
        return __hip_atomic_fetch_max(p, v, mo, sc);
    }
}

// __builtin_amdgcn_fence takes the order as a constant and the scope as a string literal ("" is
// system), so each scope spells out its own switch. A relaxed fence is no fence.
#define CANOPY_HIP_FENCE_(scope_name)                                                                        \
    switch (o) {                                                                                             \
    case std::memory_order_relaxed: break;                                                                   \
    case std::memory_order_consume:                                                                          \
    case std::memory_order_acquire: __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, scope_name); break;             \
    case std::memory_order_release: __builtin_amdgcn_fence(__ATOMIC_RELEASE, scope_name); break;             \
    case std::memory_order_acq_rel: __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, scope_name); break;             \
    case std::memory_order_seq_cst: __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, scope_name); break;             \
    }

template <scope S> CANOPY_DEVICE CANOPY_FORCEINLINE void fence(std::memory_order o) {
    if constexpr (S == scope::subgroup) {
        CANOPY_HIP_FENCE_("wavefront")
    } else if constexpr (S == scope::workgroup) {
        CANOPY_HIP_FENCE_("workgroup")
    } else if constexpr (S == scope::device) {
        CANOPY_HIP_FENCE_("agent")
    } else {
        CANOPY_HIP_FENCE_("")
    }
}

#undef CANOPY_HIP_FENCE_

} // namespace canopy::detail
