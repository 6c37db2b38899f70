// Emulator: each atomic is a scheduling point (deterministic scheduler), then either the launch's
// memory model (the scoped-cache model plugs in here) or a std::atomic_ref operation with the same
// memory order — never HIP-CPU's "everything relaxed". The scope is passed to the model; coherent
// memory has nothing to do with it. With a race detector on (work_item::race), the operation is then
// reported to it with its call site, in the same scheduling step (no yield in between).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "canopy/emulator/memory_model.hpp"
#include "canopy/emulator/site_profile.hpp"
#include "canopy/emulator/work_item.hpp"
#include "canopy/platform/detail/cpu/bits.hpp"
#include "canopy/platform/site.hpp"

namespace canopy::detail {

template <scope S, class T> emu::mm_access atomic_access(const T* p, std::memory_order o) {
    emu::mm_access a;
    a.address = const_cast<T*>(p);
    a.size = sizeof(T);
    a.scope = S;
    a.order = o;
    a.is_signed = std::is_signed_v<T>;
    return a;
}
// std::atomic_ref rejects some orders on some operations (a release load, an acquire store); GPU
// memory models treat them as the nearest valid order, and so do we.
constexpr std::memory_order load_order(std::memory_order o) {
    return o == std::memory_order_release   ? std::memory_order_relaxed
           : o == std::memory_order_acq_rel ? std::memory_order_acquire
                                            : o;
}
constexpr std::memory_order store_order(std::memory_order o) {
    return (o == std::memory_order_acquire || o == std::memory_order_consume) ? std::memory_order_relaxed
           : o == std::memory_order_acq_rel                                   ? std::memory_order_release
                                                                              : o;
}

template <class T>
void race_note(emu::work_item& w, const T* p, emu::race_op op, scope s, std::memory_order o, site where) {
    emu::race_on_access(w, emu::race_event{p, sizeof(T), op, s, o, false, where});
}

template <scope S, class T> T atomic_load(const T* p, std::memory_order o, site where = {}) {
    emu::work_item& w = emu::self();
    if (w.yield_at_atomics) {
        emu::yield(w);
    }
    T v;
    const std::uint64_t c0 = w.clock;
    if (w.model) {
        v = from_bits<T>(w.model->load(w, atomic_access<S>(p, o)));
    } else {
        v = std::atomic_ref<T>(*const_cast<T*>(p)).load(load_order(o));
    }
    emu::profile_access(w, where, emu::site_op::load, c0);
    if (w.race) [[unlikely]] {
        race_note(w, p, emu::race_op::load, S, o, where);
    }
    return v;
}

template <scope S, class T> void atomic_store(T* p, T v, std::memory_order o, site where = {}) {
    emu::work_item& w = emu::self();
    if (w.yield_at_atomics) {
        emu::yield(w);
    }
    emu::note_progress(w);
    const std::uint64_t c0 = w.clock;
    if (w.model) {
        w.model->store(w, atomic_access<S>(p, o), to_bits(v));
    } else {
        std::atomic_ref<T>(*p).store(v, store_order(o));
    }
    emu::profile_access(w, where, emu::site_op::store, c0);
    if (w.race) [[unlikely]] {
        race_note(w, p, emu::race_op::store, S, o, where);
    }
}

template <scope S, class T> T atomic_exchange(T* p, T v, std::memory_order o, site where = {}) {
    emu::work_item& w = emu::self();
    if (w.yield_at_atomics) {
        emu::yield(w);
    }
    T old;
    const std::uint64_t c0 = w.clock;
    if (w.model) {
        old = from_bits<T>(
            w.model->rmw(w, atomic_access<S>(p, o), emu::mm_rmw::exchange, to_bits(v), 0, nullptr));
    } else {
        old = std::atomic_ref<T>(*p).exchange(v, o);
    }
    emu::profile_access(w, where, emu::site_op::rmw, c0);
    if (w.race) [[unlikely]] {
        race_note(w, p, emu::race_op::rmw, S, o, where);
    }
    // Only a change of value counts as progress: a test-and-set spin that keeps writing 1 over 1 is
    // still waiting, and the watchdog must see that.
    if (std::memcmp(&old, &v, sizeof(T)) != 0) {
        emu::note_progress(w);
    }
    return old;
}

template <scope S, class T>
bool atomic_cas(T* p, T& expected, T desired, std::memory_order success, std::memory_order failure,
                site where = {}) {
    emu::work_item& w = emu::self();
    if (w.yield_at_atomics) {
        emu::yield(w);
    }
    bool ok;
    const std::uint64_t c0 = w.clock;
    if (w.model) {
        auto a = atomic_access<S>(p, success);
        a.failure_order = failure;
        const std::uint64_t old =
            w.model->rmw(w, a, emu::mm_rmw::cas, to_bits(expected), to_bits(desired), &ok);
        if (!ok) {
            expected = from_bits<T>(old);
        }
    } else {
        ok = std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired, success, load_order(failure));
    }
    emu::profile_access(w, where, emu::site_op::rmw, c0);
    if (w.race) [[unlikely]] {
        race_note(w, p, ok ? emu::race_op::rmw : emu::race_op::rmw_failed, S, ok ? success : failure, where);
    }
    if (ok && std::memcmp(&expected, &desired, sizeof(T)) != 0) {
        emu::note_progress(w);
    }
    return ok;
}

template <rmw_op Op, class T> T apply_rmw(T old, T v) {
    using U = std::make_unsigned_t<T>; // wrap-around arithmetic, like the hardware
    switch (Op) {
    case rmw_op::add: return static_cast<T>(static_cast<U>(old) + static_cast<U>(v));
    case rmw_op::sub: return static_cast<T>(static_cast<U>(old) - static_cast<U>(v));
    case rmw_op::and_: return static_cast<T>(old & v);
    case rmw_op::or_: return static_cast<T>(old | v);
    case rmw_op::xor_: return static_cast<T>(old ^ v);
    case rmw_op::min: return v < old ? v : old;
    case rmw_op::max: return v > old ? v : old;
    }
    return old;
}

constexpr emu::mm_rmw to_mm(rmw_op op) {
    switch (op) {
    case rmw_op::add: return emu::mm_rmw::add;
    case rmw_op::sub: return emu::mm_rmw::sub;
    case rmw_op::and_: return emu::mm_rmw::and_;
    case rmw_op::or_: return emu::mm_rmw::or_;
    case rmw_op::xor_: return emu::mm_rmw::xor_;
    case rmw_op::min: return emu::mm_rmw::min;
    case rmw_op::max: return emu::mm_rmw::max;
    }
    return emu::mm_rmw::add;
}

template <scope S, rmw_op Op, class T> T atomic_fetch(T* p, T v, std::memory_order o, site where = {}) {
    emu::work_item& w = emu::self();
    if (w.yield_at_atomics) {
        emu::yield(w);
    }
    T old;
    const std::uint64_t c0 = w.clock;
    if (w.model) {
        old = from_bits<T>(w.model->rmw(w, atomic_access<S>(p, o), to_mm(Op), to_bits(v), 0, nullptr));
    } else {
        std::atomic_ref<T> r(*p);
        switch (Op) {
        case rmw_op::add: old = r.fetch_add(v, o); break;
        case rmw_op::sub: old = r.fetch_sub(v, o); break;
        case rmw_op::and_: old = r.fetch_and(v, o); break;
        case rmw_op::or_: old = r.fetch_or(v, o); break;
        case rmw_op::xor_: old = r.fetch_xor(v, o); break;
        default: {
            // min/max: a CAS loop (std::atomic_ref has no fetch_min before C++26).
            old = r.load(std::memory_order_relaxed);
            while (!r.compare_exchange_weak(old, apply_rmw<Op>(old, v), o, load_order(o))) {
            }
        }
        }
    }
    emu::profile_access(w, where, emu::site_op::rmw, c0);
    if (w.race) [[unlikely]] {
        race_note(w, p, emu::race_op::rmw, S, o, where);
    }
    if (apply_rmw<Op>(old, v) != old) {
        emu::note_progress(w);
    }
    return old;
}

template <scope S> void fence(std::memory_order o, site where = {}) {
    emu::work_item& w = emu::self();
    if (w.yield_at_atomics) {
        emu::yield(w);
    }
    const std::uint64_t c0 = w.clock;
    if (w.model) {
        w.model->fence(w, S, o);
    } else {
        std::atomic_thread_fence(o);
    }
    emu::profile_access(w, where, emu::site_op::fence, c0);
    if (w.race) [[unlikely]] {
        emu::race_on_fence(w, S, o, where);
    }
}

} // namespace canopy::detail
