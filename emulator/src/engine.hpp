// The emulator's engine (private): one launch's work-groups, fibers and schedulers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "canopy/emulator/chooser.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/race_detector.hpp"
#include "canopy/emulator/work_item.hpp"

namespace canopy::emu {

class stack_pool;
struct fiber_record;
struct block_state;
struct worker_state;
struct trace_session;

class engine {
  public:
    engine(const options& opt, unsigned grid, unsigned block, std::size_t dynamic_shared_bytes,
           kernel_entry entry, const void* kernel, memory_model* model);
    ~engine();
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    /// Runs the launch to completion; throws canopy::device_error when it failed.
    void run();

    // kernel-side services (called on a work-item's fiber)
    void yield_from(work_item& wi);
    void spin_wait(work_item& wi, site where);
    std::uint64_t spin_limit() const { return opt_.spin_limit; }
    void block_barrier(work_item& wi, site where);
    const std::uint64_t* collective(work_item& wi, collective_kind kind, std::uint64_t value, site where,
                                    lane_mask* mask);
    void* block_shared(work_item& wi, const void* key, std::size_t size, std::size_t align);
    void* dynamic_shared(work_item& wi);
    [[noreturn]] void fail_in_fiber(const std::string& msg);

  private:
    unsigned worker_count() const;
    launch_report report_header(unsigned threads) const; // what a launch report says of the launch itself
    void worker_loop(worker_state& w);
    void monitor_parallel();
    void park_for_report(worker_state& w);
    void fill_slots(worker_state& w);
    void start_block(worker_state& w, std::size_t slot_index, unsigned block_id);
    void make_runnable(worker_state& w, fiber_record& f);
    void make_blocked(fiber_record& f);
    /// Runs f until it (or the last lane of a chain of direct switches it began) switches back;
    /// returns the work-item that did.
    fiber_record& switch_in(worker_state& w, fiber_record& f);
    void switch_out(fiber_record& f);
    // Parallel scheduler: a lane that waits in a collective runs the next runnable lane of its
    // sub-group directly (direct_switches_), at most max_chain times per scheduling step.
    fiber_record* next_lane(fiber_record& f);
    void switch_to_lane(fiber_record& from, fiber_record& to);
    void fiber_main(fiber_record& f);
    void destroy_fiber(fiber_record& f);
#if defined(CANOPY_TSAN)
    void start_on_carrier(worker_state& w, fiber_record& f); // TSan: see tsan_carrier (engine.cpp)
    void retire_carriers(worker_state& w);
#endif
    void finish_work_item(worker_state& w, fiber_record& f);
    fiber_record* earliest_runnable(worker_state& w); // timed scheduling: see options::timed
    fiber_record* highest_priority(worker_state& w);  // PCT scheduling: see options::pct_depth
    void pct_after_step(fiber_record& f, std::uint64_t step, bool idle_poll);
    void push_timed(worker_state& w, fiber_record& f);
    bool any_working(const worker_state& w) const;
    void abort_fibers(worker_state& w);
    /// `last`: the lane whose arrival completes it (nullptr: completed by a lane exiting).
    void complete_collective(block_state& b, unsigned subgroup, work_item* last);
    void check_block_stuck(block_state& b);
    void fail(const std::string& msg);
    std::string describe_block(const block_state& b) const;
    std::string describe_all() const;

    options opt_;
    unsigned grid_, block_;
    std::size_t dynamic_shared_;
    // Every resident slot's dynamic shared memory, in one allocation: slot s's work-group uses
    // [s * dynamic_shared_, (s + 1) * dynamic_shared_). One range, so that the scoped-cache model can
    // treat all of it as work-group local memory (its scratchpad: not cached, never written back).
    std::unique_ptr<std::byte[]> dynamic_pool_;
    kernel_entry entry_;
    const void* kernel_;
    memory_model* model_;
    std::unique_ptr<memory_model> owned_model_; // the scoped-cache model, when the options ask for it
    std::unique_ptr<race_detector> race_;       // options::race_check, for this launch only
    trace_session* trace_ = nullptr;            // --trace: the timeline this launch records (trace.hpp)
    unsigned slots_ = 0;
    unsigned devices_ = 1;         // options::devices (at least 1)
    stack_pool* stacks_ = nullptr; // process-wide, shared by launches
    std::vector<std::unique_ptr<worker_state>> workers_;
    std::atomic<unsigned> next_block_{0};
    random_chooser own_choices_{1}; // deterministic scheduler only (one thread)
    chooser* choices_ = &own_choices_;
    std::uint64_t digest_ = 0xcbf29ce484222325ULL;
    // PCT (options::pct_depth): the steps at which the running work-item's priority drops, ascending,
    // the next one due, and the next priority for a work-item that polled without progress (they go
    // below the change points' d - i, each below the previous one, so spinners take turns).
    std::vector<std::uint64_t> pct_change_steps_;
    std::uint64_t pct_steps_ = 0; // k: priorities order the first k steps, a uniform choice the rest
    std::size_t pct_next_change_ = 0;
    std::int64_t pct_next_yield_priority_ = 0;

    // Parallel scheduler, no sanitizer: lanes waiting in collectives switch to each other directly,
    // not through the scheduler. Sanitizers' fiber annotations pair every switch with the scheduler.
    bool direct_switches_ = false;
    static constexpr unsigned max_chain = 1024; // then the scheduler runs the other work-groups

    std::atomic<bool> aborting_{false};
    std::atomic<bool> deadlock_{false};
    std::atomic<unsigned> parked_{0};
    std::atomic<bool> report_done_{false};
    std::mutex fail_mutex_;
    std::mutex monitor_mutex_; // with monitor_cv_: a worker finished
    std::condition_variable monitor_cv_;
    bool failed_ = false;
    std::string failure_;
};

} // namespace canopy::emu
