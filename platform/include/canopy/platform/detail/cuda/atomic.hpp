// canopy/platform/detail/cuda/atomic.hpp — scoped atomics on NVIDIA GPUs: libcu++'s cuda::atomic_ref.
// Included by atomic.hpp only.
//
// Every (operation, order, scope) of canopy::atomic_ref and canopy::fence reaches the hardware here, by
// forwarding to cuda::atomic_ref<T, thread_scope> and cuda::atomic_thread_fence, whose PTX libcu++
// generates (ld.acquire.<scope>, st.release.<scope>, atom.<op>.<order>.<scope>, fence.{acq_rel,sc}.<scope>).
// The PTX memory model (PTX ISA, "Memory Consistency Model") scopes are .cta, .gpu and .sys:
//
//   canopy scope  thread_scope          PTX    why
//   subgroup      thread_scope_block    .cta   PTX has no warp scope; under independent thread
//                                              scheduling a warp's threads are ordinary threads that
//                                              need ordering like any others, and .cta is the
//                                              narrowest scope that gives it
//   workgroup     thread_scope_block    .cta   the block's threads share one SM and its L1
//   device        thread_scope_device   .gpu   other blocks may run on other SMs: coherent at L2
//   system        thread_scope_system   .sys   the host and peer GPUs too
//
// tests/codegen/check_codegen.sh asserts these scope qualifiers in the PTX, so a wrong mapping here
// fails CI. Orders map one to one onto cuda::std::memory_order, except that orders C++ does not allow
// for an operation are reduced to the part that operation can carry (consume is acquire; a load cannot
// release, a store cannot acquire).
#pragma once

#include <cuda/atomic>
#include <cuda/std/atomic>

#include <atomic>
#include <type_traits>

namespace canopy::detail {

constexpr cuda::thread_scope cuda_thread_scope(scope s) {
    switch (s) {
    case scope::subgroup: return cuda::thread_scope_block; // no warp scope in PTX (see the table above)
    case scope::workgroup: return cuda::thread_scope_block;
    case scope::device: return cuda::thread_scope_device;
    case scope::system: return cuda::thread_scope_system;
    }
    return cuda::thread_scope_system;
}

template <scope S, class T> using cuda_ref = cuda::atomic_ref<T, cuda_thread_scope(S)>;

/// A read-modify-write (or CAS success) order: all six are valid; consume is acquire.
constexpr cuda::std::memory_order cuda_rmw_order(std::memory_order o) {
    switch (o) {
    case std::memory_order_relaxed: return cuda::std::memory_order_relaxed;
    case std::memory_order_consume:
        return cuda::std::memory_order_acquire; // acquire is consume's sound strengthening
    case std::memory_order_acquire: return cuda::std::memory_order_acquire;
    case std::memory_order_release: return cuda::std::memory_order_release;
    case std::memory_order_acq_rel: return cuda::std::memory_order_acq_rel;
    case std::memory_order_seq_cst: return cuda::std::memory_order_seq_cst;
    }
    return cuda::std::memory_order_seq_cst;
}

/// A load can only acquire: release contributes nothing to a load and acq_rel is its acquire half.
constexpr cuda::std::memory_order cuda_load_order(std::memory_order o) {
    switch (o) {
    case std::memory_order_release: return cuda::std::memory_order_relaxed;
    case std::memory_order_acq_rel: return cuda::std::memory_order_acquire;
    default: return cuda_rmw_order(o);
    }
}

/// A store can only release: acquire/consume contribute nothing to a store, acq_rel is its release half.
constexpr cuda::std::memory_order cuda_store_order(std::memory_order o) {
    switch (o) {
    case std::memory_order_consume:
    case std::memory_order_acquire: return cuda::std::memory_order_relaxed;
    case std::memory_order_acq_rel: return cuda::std::memory_order_release;
    default: return cuda_rmw_order(o);
    }
}

// cuda::atomic_ref binds to a non-const T&; a load does not write, so casting const away is sound.

template <scope S, class T> CANOPY_DEVICE CANOPY_FORCEINLINE T atomic_load(const T* p, std::memory_order o) {
    return cuda_ref<S, T>(*const_cast<T*>(p)).load(cuda_load_order(o));
}

template <scope S, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE void atomic_store(T* p, T v, std::memory_order o) {
    cuda_ref<S, T>(*p).store(v, cuda_store_order(o));
}

template <scope S, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE T atomic_exchange(T* p, T v, std::memory_order o) {
    return cuda_ref<S, T>(*p).exchange(v, cuda_rmw_order(o));
}

/// Strong compare-exchange (values compare bitwise); on failure `expected` receives the current value.
template <scope S, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE bool atomic_cas(T* p, T& expected, T desired, std::memory_order success,
                                                 std::memory_order failure) {
    return cuda_ref<S, T>(*p).compare_exchange_strong(expected, desired, cuda_rmw_order(success),
                                                      cuda_load_order(failure));
}

template <scope S, rmw_op Op, class T>
CANOPY_DEVICE CANOPY_FORCEINLINE T atomic_fetch(T* p, T v, std::memory_order o) {
    static_assert(std::is_integral_v<T>, "atomic_fetch needs an integral type");
    const cuda_ref<S, T> r(*p);
    const cuda::std::memory_order mo = cuda_rmw_order(o);
    if constexpr (Op == rmw_op::add) {
        return r.fetch_add(v, mo);
    } else if constexpr (Op == rmw_op::sub) {
        return r.fetch_sub(v, mo);
    } else if constexpr (Op == rmw_op::and_) {
        return r.fetch_and(v, mo);
    } else if constexpr (Op == rmw_op::or_) {
        return r.fetch_or(v, mo);
    } else if constexpr (Op == rmw_op::xor_) {
        return r.fetch_xor(v, mo);
    } else if constexpr (Op == rmw_op::min) {
        return r.fetch_min(v, mo); // libcu++ extension; signed or unsigned by T
    } else {
        static_assert(Op == rmw_op::max);
        return r.fetch_max(v, mo);
    }
}

/// A fence at scope S (fence.acq_rel.<scope> for acquire/release/acq_rel, fence.sc.<scope> for
/// seq_cst). A relaxed fence is no fence.
template <scope S> CANOPY_DEVICE CANOPY_FORCEINLINE void fence(std::memory_order o) {
    if (o != std::memory_order_relaxed) {
        cuda::atomic_thread_fence(cuda_rmw_order(o), cuda_thread_scope(S));
    }
}

} // namespace canopy::detail
