// Emulator: spin_until yields the fiber between polls and tells the watchdog where it waits.
#pragma once

#include <cstdint>

#include "canopy/emulator/launch.hpp"
#include "canopy/platform/site.hpp"

namespace canopy {

template <class Pred> void spin_until(Pred pred, backoff = {}, CANOPY_SITE_PARAM) {
    emu::work_item& w = emu::self();
    w.in_spin = true;
    w.wait_site = where;
    while (!pred()) {
        emu::spin_wait(where);
    }
    emu::spin_done();
}

/// Bounded by options::spin_limit polls (0: unbounded; the emulator's watchdog catches real hangs).
template <class Pred> bool spin_until_bounded(Pred pred, backoff = {}, CANOPY_SITE_PARAM) {
    emu::work_item& w = emu::self();
    w.in_spin = true;
    w.wait_site = where;
    const std::uint64_t limit = emu::spin_limit();
    for (std::uint64_t polls = 0; !pred(); ++polls) {
        if (limit != 0 && polls >= limit) {
            emu::spin_done();
            return false;
        }
        emu::spin_wait(where);
    }
    emu::spin_done();
    return true;
}

} // namespace canopy
