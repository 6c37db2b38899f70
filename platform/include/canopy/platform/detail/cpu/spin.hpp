// Emulator: spin_until yields the fiber between polls and tells the watchdog where it waits.
#pragma once

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

} // namespace canopy
