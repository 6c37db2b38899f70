// Emulator: remote-scope-promoted atomics on 32-bit words (canopy/platform/remote.hpp). Each is a
// scheduling point like detail/cpu/atomic.hpp's, goes through the run's memory model with the remote
// flag (the scoped-cache model promotes it: RSP Table 3), and is reported to the race detector as remote.
#pragma once

#include <atomic>
#include <cstdint>

#include "canopy/emulator/memory_model.hpp"
#include "canopy/emulator/work_item.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/site.hpp"

namespace canopy::detail::cpu {

struct remote_ops {
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
};

} // namespace canopy::detail::cpu

namespace canopy {

inline unsigned remote_load(unsigned* p, std::memory_order o, CANOPY_SITE_PARAM) {
    return detail::cpu::remote_ops::load(p, o, where);
}
inline void remote_store(unsigned* p, unsigned v, std::memory_order o, CANOPY_SITE_PARAM) {
    detail::cpu::remote_ops::store(p, v, o, where);
}
inline bool remote_compare_exchange(unsigned* p, unsigned expected, unsigned desired, std::memory_order o,
                                    CANOPY_SITE_PARAM) {
    return detail::cpu::remote_ops::cas(p, expected, desired, o, where);
}

} // namespace canopy
