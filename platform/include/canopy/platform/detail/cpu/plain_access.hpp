// Emulator: ld/st are scheduling points (deterministic scheduler) and go through the launch's memory
// model, so that a missing synchronization shows up as a stale value. Without a model they are relaxed
// atomic accesses: a GPU's plain access is not a C++ data race in the emulator's own terms (TSan stays
// quiet about them), and relaxed is exactly as weak as the kernel may assume. With a race detector on
// (work_item::race) each access of at most 8 bytes is reported to it with its call site; larger
// objects are not seen (read them field by field with ld()).
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

namespace canopy {

// Always inlined: every task's payload goes through them, and out of line they were a tenth of a
// parallel UTS run (the call, and the checks below not folded into the caller).
template <class T> [[gnu::always_inline]] inline T ld(const T* p, CANOPY_SITE_PARAM) {
    static_assert(std::is_trivially_copyable_v<T>);
    emu::work_item& w = emu::self();
    if (w.yield_at_plain) {
        emu::yield(w);
    }
    if constexpr (sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0) {
        if (w.race) [[unlikely]] { // no yield until the load: it is this same step
            emu::race_on_access(w, emu::race_event{p, sizeof(T), emu::race_op::plain_load, scope::device,
                                                   std::memory_order_relaxed, false, where});
        }
        if (w.model) {
            if (w.profile) [[unlikely]] { // the site profile (CANOPY_EMU_SITE_PROFILE)
                const std::uint64_t c0 = w.clock;
                const std::uint64_t v = w.model->plain_load(w, p, sizeof(T));
                emu::profile_access(w, where, emu::site_op::plain_load, c0);
                return detail::from_bits<T>(v);
            }
            return detail::from_bits<T>(w.model->plain_load(w, p, sizeof(T)));
        }
        if constexpr (std::is_arithmetic_v<T> || std::is_pointer_v<T>) {
            return std::atomic_ref<T>(*const_cast<T*>(p)).load(std::memory_order_relaxed);
        } else {
            return *p;
        }
    } else {
        return *p; // larger objects: read field by field with ld() where the model should see them
    }
}

template <class T> [[gnu::always_inline]] inline void st(T* p, T v, CANOPY_SITE_PARAM) {
    static_assert(std::is_trivially_copyable_v<T>);
    emu::work_item& w = emu::self();
    if (w.yield_at_plain) {
        emu::yield(w);
    }
    emu::note_progress(w);
    if constexpr (sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0) {
        if (w.race) [[unlikely]] {
            emu::race_on_access(w, emu::race_event{p, sizeof(T), emu::race_op::plain_store, scope::device,
                                                   std::memory_order_relaxed, false, where});
        }
        if (w.model) {
            const std::uint64_t c0 = w.clock;
            w.model->plain_store(w, p, sizeof(T), detail::to_bits(v));
            emu::profile_access(w, where, emu::site_op::plain_store, c0); // CANOPY_EMU_SITE_PROFILE
            return;
        }
        if constexpr (std::is_arithmetic_v<T> || std::is_pointer_v<T>) {
            std::atomic_ref<T>(*p).store(v, std::memory_order_relaxed);
        } else {
            *p = v;
        }
    } else {
        *p = v;
    }
}

} // namespace canopy
