// canopy/emulator/work_item.hpp — the running work-item: what platform/detail/cpu needs on its hot path.
//
// Every work-item is a fiber. While one runs, `current` points at its work_item on that OS thread
// (a work-group's fibers never leave the OS thread that runs the work-group, so the pointer is never
// read on the wrong thread). Ids are copied into the work_item when it is created so that reading
// them costs one load.
#pragma once

#include <atomic>
#include <cstdint>

#include "canopy/vocabulary/scope.hpp"
#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

class engine;
struct block_state;
class memory_model;
class race_detector;
class site_profile;
struct trace_track;

enum class wi_state : std::uint8_t {
    runnable,      // ready to run (or running)
    at_barrier,    // blocked in block_barrier()
    at_collective, // blocked in a sub-group collective
    done,          // returned from the kernel
};

struct work_item {
    // ids (immutable while the kernel runs)
    unsigned thread = 0, block = 0, block_dim = 0, grid_dim = 0;
    unsigned lane = 0, subgroup = 0, subgroup_size = 0;
    unsigned cu = 0;          // the compute unit the work-group is resident on
    unsigned fiber_index = 0; // index in the work-group
    // scheduling
    wi_state state = wi_state::runnable;
    bool in_spin = false;   // inside spin_until (the watchdog's notion of "waiting")
    canopy::site wait_site; // where it waits (spin_until, barrier, collective)
    bool yield_at_atomics = false;
    bool yield_at_plain = false;
    // Simulated cycles this work-item has spent (options::timed): the memory model's costs, declared
    // compute (canopy::model_cycles) and one cycle per scheduling step that charged nothing else.
    std::uint64_t clock = 0;
    std::uint64_t* progress = nullptr; // bumped whenever this work-item changes memory
    memory_model* model = nullptr;     // nullptr: coherent memory (plain std::atomic semantics)
    race_detector* race = nullptr;     // the launch's race detector (options::race_check), or nullptr
    site_profile* profile = nullptr;   // options::site_profile: the accumulator (site_profile.hpp)
    unsigned global_id = 0;            // block * block_dim + thread: the race detector's thread index
    engine* eng = nullptr;
    block_state* blk = nullptr;
    // What this work-item has observed and where it is, as a hash chain: every scheduling step it
    // takes (engine) and every value the memory model hands it (observe). Its fiber is deterministic, so
    // equal chains mean equal local states; state_caching_dfs keys a run's state with it.
    std::uint64_t trace = 0;
    // The sub-group's timeline track (emulator/trace.hpp), or nullptr when the launch is not traced:
    // the one branch a trace hook costs when tracing is off.
    trace_track* timeline = nullptr;
    int run_index = -1;    // position in the scheduler's runnable list (-1: not in it)
    void* fiber = nullptr; // the engine's fiber record for this work-item
};

/// The work-item running on this OS thread, or nullptr outside a kernel.
extern thread_local work_item* current;

/// The running work-item; a clear error (not a crash) when kernel API is called from host code.
work_item& self_slow();
inline work_item& self() {
    work_item* w = current;
    return w ? *w : self_slow();
}

/// Gives the scheduler a chance to run another work-item (deterministic: a seeded random choice).
void yield(work_item& w);

/// Folds `v` into w's trace (splitmix64's finalizer: every bit of the chain depends on every input).
inline void observe(work_item& w, std::uint64_t v) {
    std::uint64_t z = (w.trace ^ v) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    w.trace = z ^ (z >> 31);
}

/// A memory change made by `w`: resets the deadlock watchdog.
inline void note_progress(work_item& w) { ++*w.progress; }

/// What the race detector (race_detector.hpp) is told about one access, right after it happened.
enum class race_op : std::uint8_t {
    plain_load,
    plain_store,
    load,       // atomic load
    store,      // atomic store
    rmw,        // atomic read-modify-write that wrote (fetch_*, exchange, successful CAS)
    rmw_failed, // a failed CAS: an atomic load with the failure order
};
struct race_event {
    const void* address = nullptr;
    unsigned size = 0;
    race_op op = race_op::plain_load;
    canopy::scope scope = canopy::scope::device;
    std::memory_order order = std::memory_order_relaxed;
    bool remote = false;
    canopy::site where;
};
/// Called by platform/detail/cpu on every access of a work-item whose `race` is set.
void race_on_access(work_item& w, const race_event& e);
/// Called by platform/detail/cpu on every fence of a work-item whose `race` is set.
void race_on_fence(work_item& w, canopy::scope s, std::memory_order o, canopy::site where);

/// Throws the exception that stops the kernel after a device assertion (reported with ids).
[[noreturn]] void device_assert_failed(const char* expr, const char* msg, const char* file, unsigned line);

} // namespace canopy::emu
