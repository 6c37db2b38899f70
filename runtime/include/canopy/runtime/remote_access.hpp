// canopy/runtime/remote_access.hpp — remote-scope-promoted atomics (RSP, Orr et al.; emulator only).
//
// steal-rsp's thief accesses the victim's work-group-scope queue words with device-scope operations
// marked `remote`: the scoped-cache model then promotes them (RSP Table 3, "proposed"): the victim's
// work-group-scope releases become visible to the thief and the thief's writes to the victim. No GPU
// has such instructions, so this exists only on the CPU backend; elsewhere it is a compile error.
// Without a memory model (coherent memory, the parallel scheduler) the operations are ordinary
// std::atomic_ref operations with the same order.
#pragma once

#include <atomic>

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include <cstdint>

#    include "canopy/emulator/memory_model.hpp"
#    include "canopy/emulator/work_item.hpp"
#    include "canopy/platform/scope.hpp"
#    include "canopy/platform/site.hpp"

namespace canopy::runtime {

/// The access policy (canopy/queues/scoped_access.hpp shape) of a steal-rsp thief.
struct remote_access {
    static constexpr scope value = scope::device;

    static emu::mm_access access(unsigned* p, std::memory_order o) {
        emu::mm_access a;
        a.address = p;
        a.size = sizeof(unsigned);
        a.scope = scope::device; // P9: the remote side's own scope must reach the owner: device
        a.order = o;
        a.failure_order = o == std::memory_order_acq_rel   ? std::memory_order_acquire
                          : o == std::memory_order_release ? std::memory_order_relaxed
                                                           : o;
        a.remote = true;
        return a;
    }
    /// Tells the race detector (when on) about a remote operation, in the step that performed it.
    static void note(emu::work_item& w, unsigned* p, emu::race_op op, std::memory_order o, site where) {
        if (w.race) [[unlikely]] {
            emu::race_on_access(w, emu::race_event{p, sizeof(unsigned), op, scope::device, o, true, where});
        }
    }
    static unsigned load(unsigned* p, std::memory_order o, CANOPY_SITE_PARAM) {
        emu::work_item& w = emu::self();
        if (w.yield_at_atomics) { // every atomic is a scheduling point, as in detail/cpu/atomic.hpp
            emu::yield(w);
        }
        unsigned v;
        if (w.model) {
            v = static_cast<unsigned>(w.model->load(w, access(p, o)));
        } else {
            v = std::atomic_ref<unsigned>(*p).load(o == std::memory_order_release ? std::memory_order_relaxed
                                                                                  : o);
        }
        note(w, p, emu::race_op::load, o, where);
        return v;
    }
    static void store(unsigned* p, unsigned v, std::memory_order o, CANOPY_SITE_PARAM) {
        emu::work_item& w = emu::self();
        if (w.yield_at_atomics) {
            emu::yield(w);
        }
        emu::note_progress(w);
        if (w.model) {
            w.model->store(w, access(p, o), v);
        } else {
            std::atomic_ref<unsigned>(*p).store(v, o == std::memory_order_acquire ? std::memory_order_relaxed
                                                                                  : o);
        }
        note(w, p, emu::race_op::store, o, where);
    }
    static bool cas(unsigned* p, unsigned expected, unsigned desired, std::memory_order o,
                    CANOPY_SITE_PARAM) {
        emu::work_item& w = emu::self();
        if (w.yield_at_atomics) {
            emu::yield(w);
        }
        bool ok = false;
        if (w.model) {
            w.model->rmw(w, access(p, o), emu::mm_rmw::cas, expected, desired, &ok);
        } else {
            ok = std::atomic_ref<unsigned>(*p).compare_exchange_strong(
                expected, desired, o,
                o == std::memory_order_acq_rel ? std::memory_order_acquire : std::memory_order_relaxed);
        }
        note(w, p, ok ? emu::race_op::rmw : emu::race_op::rmw_failed, ok ? o : access(p, o).failure_order,
             where);
        if (ok && expected != desired) {
            emu::note_progress(w);
        }
        return ok;
    }
    static void release_store(unsigned* p, unsigned v, CANOPY_SITE_PARAM) {
        store(p, v, std::memory_order_release, where);
    }
    /// Lock acquisition by a thief: the acquire stays on the remote CAS itself, because remote-scope
    /// promotion is a property of the operation (RSP Table 3 row 9): a following fence would be an
    /// ordinary device-scope fence that does not reach the victim's work-group scope.
    static bool try_acquire(unsigned* p, CANOPY_SITE_PARAM) {
        return cas(p, 0u, 1u, std::memory_order_acquire, where);
    }
    // Lock-free rings (canopy/queues/front_ring.hpp): for the same reason, the ring's acquire is an
    // acquire load of each reserved slot's sequence word, and its release a release store of it.
    static constexpr bool acquire_by_fence = false;
    static constexpr bool release_by_fence = false;
};

} // namespace canopy::runtime

#    define CANOPY_RUNTIME_HAS_RSP 1
#else
#    define CANOPY_RUNTIME_HAS_RSP 0
namespace canopy::runtime {
/// Not available: steal-rsp needs remote-scope promotion, which only the emulator models.
struct remote_access {
    template <class... A> static unsigned load(A...) {
        static_assert(sizeof...(A) == 0,
                      "steal-rsp (remote-scope promotion) exists only on the CPU emulator");
        return 0;
    }
};
} // namespace canopy::runtime
#endif
