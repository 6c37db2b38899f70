// Emulator: launch_cooperative and grid_sync. Included by grid_sync.hpp only.
//
// The emulator has no vendor grid barrier, so grid_sync is an arrival-counting, sense-reversing
// barrier over the grid (two words in emulated device memory, installed by launch_cooperative for the
// launch's duration). Because launch_cooperative admits only grids that are resident at once, every
// arrival is eventually counted and the barrier cannot deadlock; its spin goes through spin_until, so
// a misuse still ends in a watchdog report instead of a hang.
#pragma once

#include <cstddef>
#include <string>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"

namespace canopy::detail {
/// The running cooperative launch's barrier words: [0] arrivals, [1] generation (nullptr: none).
inline unsigned*& emu_grid_sync_words() {
    static unsigned* words = nullptr;
    return words;
}
} // namespace canopy::detail

namespace canopy {

template <class Kernel> void launch_cooperative(const launch_config& cfg, const Kernel& k) {
    const unsigned resident = max_resident_blocks<Kernel>(cfg.block, cfg.shared_bytes);
    if (cfg.grid > resident) {
        throw error("canopy::launch_cooperative: grid of " + std::to_string(cfg.grid) +
                    " work-groups exceeds the " + std::to_string(resident) +
                    " the device holds resident at once; a cooperative launch must be co-resident "
                    "(launch at most max_resident_blocks work-groups)");
    }
    device_buffer<unsigned> words(2);
    words.fill_zero();
    unsigned*& slot = detail::emu_grid_sync_words();
    unsigned* const saved = slot;
    slot = words.data();
    try {
        launch(cfg, k);
    } catch (...) {
        slot = saved;
        throw;
    }
    slot = saved;
}

inline void grid_sync() {
    unsigned* const w = detail::emu_grid_sync_words();
    if (w == nullptr) {
        throw error("canopy::grid_sync called in a kernel not launched with canopy::launch_cooperative");
    }
    // Every work-item releases its own writes at device scope before the arrival: the representative's
    // release below then need not rely on cumulativity through the work-group barrier.
    fence<scope::device>(std::memory_order_release);
    block_barrier();
    if (thread_id() == 0) {
        // Acquire at device scope: with every work-item's release fence before the barrier, the
        // work-group barrier is a device-scope synchronization (fence, barrier, fence: OpenCL's
        // work_group_barrier(flags, memory_scope_device)), so the chain to other work-groups uses one
        // scope and the barrier is race-free under HRF-direct too (docs/race-detector.md).
        fence<scope::device>(std::memory_order_acquire);
        atomic_ref<unsigned, scope::device> arrived(w[0]);
        atomic_ref<unsigned, scope::device> generation(w[1]);
        // Relaxed: the generation cannot move before this work-group has arrived, so this only names
        // the episode it waits for.
        const unsigned g = generation.load(std::memory_order_relaxed);
        // acq_rel at device scope: releases this work-group's writes to the last arriver, which
        // acquires everyone's before it opens the barrier.
        if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == grid_dim()) {
            arrived.store(0, std::memory_order_relaxed); // ordered before the release below
            // Release at device scope: publishes every arrival's writes (acquired above) to the waiters.
            generation.store(g + 1, std::memory_order_release);
        } else {
            // Acquire at device scope: pairs with the opener's release.
            spin_until([&] { return generation.load(std::memory_order_acquire) != g; });
        }
        // Device-scope release, the barrier, every work-item's device-scope acquire: the departure
        // reaches the work-group at one scope (HRF-direct), as the arrival did.
        fence<scope::device>(std::memory_order_release);
    }
    block_barrier();
    fence<scope::device>(std::memory_order_acquire);
}

} // namespace canopy
