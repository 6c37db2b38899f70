// canopy/platform/atomic.hpp — scoped atomics in the shape of libcu++'s cuda::atomic_ref.
//
//   canopy::atomic_ref<unsigned, canopy::scope::workgroup> r{word};
//   r.fetch_add(1, std::memory_order_acq_rel);
//   canopy::fence<canopy::scope::device>(std::memory_order_release);
//
// The scope is part of the type (a reference used at two scopes is two references, which is how the
// code should read). Orders are std::memory_order. Every backend maps (operation, order, scope) to the
// hardware at one point, the backend's detail/<backend>/atomic.hpp:
//   AMD:      __hip_atomic_* with __HIP_MEMORY_SCOPE_{WAVEFRONT,WORKGROUP,AGENT,SYSTEM}
//   NVIDIA:   cuda::atomic_ref<T, thread_scope_{block,block,device,system}> (sub-group is block: PTX
//             has no warp scope)
//   emulator: a yield point of the scheduler, then the emulator's memory model (coherent std::atomic
//             semantics now; the scoped-cache model of issue 3 plugs in behind the same seam).
#pragma once

#include <atomic>
#include <type_traits>

#include "canopy/platform/config.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/site.hpp"

namespace canopy::detail {
/// The read-modify-write operations every backend implements (besides exchange and CAS).
enum class rmw_op : unsigned char { add, sub, and_, or_, xor_, min, max };

/// The failure order a single-order compare_exchange uses (as std::atomic does).
constexpr std::memory_order cas_failure_order(std::memory_order o) {
    return o == std::memory_order_acq_rel   ? std::memory_order_acquire
           : o == std::memory_order_release ? std::memory_order_relaxed
                                            : o;
}
} // namespace canopy::detail

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/atomic.hpp"
#elif defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/atomic.hpp"
#else
#    include "canopy/platform/detail/cuda/atomic.hpp"
#endif

namespace canopy {

// The backend header provides, in canopy::detail:
//   template <scope S, class T> T    atomic_load(const T* p, std::memory_order o);
//   template <scope S, class T> void atomic_store(T* p, T v, std::memory_order o);
//   template <scope S, class T> T    atomic_exchange(T* p, T v, std::memory_order o);
//   template <scope S, class T> bool atomic_cas(T* p, T& expected, T desired,
//                                               std::memory_order success, std::memory_order failure);
//   template <scope S, rmw_op Op, class T> T atomic_fetch(T* p, T v, std::memory_order o);
//   template <scope S> void fence(std::memory_order o);

template <class T, scope S = scope::device> class atomic_ref {
    static_assert(std::is_trivially_copyable_v<T>, "atomic_ref needs a trivially copyable type");
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomic_ref supports 4- and 8-byte types");

  public:
    static constexpr scope scope_value = S;
    static constexpr std::size_t required_alignment = sizeof(T);

    CANOPY_HOST_DEVICE explicit atomic_ref(T& obj) : p_(&obj) {}

    CANOPY_DEVICE T load(std::memory_order o = std::memory_order_seq_cst CANOPY_SITE_PARAM_TAIL) const {
        return detail::atomic_load<S>(p_, o CANOPY_SITE_ARG_TAIL);
    }
    CANOPY_DEVICE void store(T v,
                             std::memory_order o = std::memory_order_seq_cst CANOPY_SITE_PARAM_TAIL) const {
        detail::atomic_store<S>(p_, v, o CANOPY_SITE_ARG_TAIL);
    }
    CANOPY_DEVICE T exchange(T v,
                             std::memory_order o = std::memory_order_seq_cst CANOPY_SITE_PARAM_TAIL) const {
        return detail::atomic_exchange<S>(p_, v, o CANOPY_SITE_ARG_TAIL);
    }
    CANOPY_DEVICE bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                                               std::memory_order failure CANOPY_SITE_PARAM_TAIL) const {
        return detail::atomic_cas<S>(p_, expected, desired, success, failure CANOPY_SITE_ARG_TAIL);
    }
    CANOPY_DEVICE bool
    compare_exchange_strong(T& expected, T desired,
                            std::memory_order o = std::memory_order_seq_cst CANOPY_SITE_PARAM_TAIL) const {
        return detail::atomic_cas<S>(p_, expected, desired, o,
                                     detail::cas_failure_order(o) CANOPY_SITE_ARG_TAIL);
    }
    // No backend here fails spuriously in a way callers could exploit, so weak is strong.
    CANOPY_DEVICE bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                                             std::memory_order failure CANOPY_SITE_PARAM_TAIL) const {
        return compare_exchange_strong(expected, desired, success, failure CANOPY_SITE_ARG_TAIL);
    }
    CANOPY_DEVICE bool
    compare_exchange_weak(T& expected, T desired,
                          std::memory_order o = std::memory_order_seq_cst CANOPY_SITE_PARAM_TAIL) const {
        return compare_exchange_strong(expected, desired, o CANOPY_SITE_ARG_TAIL);
    }

#define CANOPY_ATOMIC_FETCH(name, op)                                                                        \
    CANOPY_DEVICE T name(T v, std::memory_order o = std::memory_order_seq_cst CANOPY_SITE_PARAM_TAIL)        \
        const {                                                                                              \
        static_assert(std::is_integral_v<T>, #name " needs an integral type");                               \
        return detail::atomic_fetch<S, detail::rmw_op::op>(p_, v, o CANOPY_SITE_ARG_TAIL);                   \
    }
    CANOPY_ATOMIC_FETCH(fetch_add, add)
    CANOPY_ATOMIC_FETCH(fetch_sub, sub)
    CANOPY_ATOMIC_FETCH(fetch_and, and_)
    CANOPY_ATOMIC_FETCH(fetch_or, or_)
    CANOPY_ATOMIC_FETCH(fetch_xor, xor_)
    CANOPY_ATOMIC_FETCH(fetch_min, min)
    CANOPY_ATOMIC_FETCH(fetch_max, max)
#undef CANOPY_ATOMIC_FETCH

  private:
    T* p_;
};

/// A fence at scope S: orders this work-item's accesses for every work-item within S.
template <scope S> CANOPY_DEVICE inline void fence(std::memory_order o CANOPY_SITE_PARAM_TAIL) {
    detail::fence<S>(o CANOPY_SITE_ARG_TAIL);
}

} // namespace canopy
