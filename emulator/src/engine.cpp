// The emulator's engine: work-items as fibers, work-groups admitted up to the device's residency,
// and two schedulers over them (deterministic and parallel). See docs/emulator.md for the why.
//
// Structure. A launch creates one `engine`. Resident work-group *slots* (CUs x resident work-groups
// per CU) each run work-groups one after another, taking ids from a counter, so at most `slots`
// work-groups are resident and a work-group that has not started waits until a resident one
// finishes (Sorensen et al. §2.3: the only forward-progress promise a GPU makes). Slots belong to
// workers (OS threads): the deterministic scheduler has one worker owning every slot and picks the
// next work-item with a seeded RNG at every yield point; the parallel scheduler gives each of T
// workers every T-th slot and round-robins its work-items. A work-group's fibers therefore always
// run on one OS thread, so its barrier and collective state needs no locks.
#include "engine.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <exception>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <boost/context/fiber.hpp>
#include <fmt/format.h>

#include "canopy/emulator/chooser.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/memory_model.hpp"
#include "canopy/emulator/scoped_cache_model.hpp"
#include "canopy/emulator/site_profile.hpp"
#include "canopy/emulator/stack_pool.hpp"
#include "canopy/emulator/trace.hpp" // timeline hooks (--trace)
#include "canopy/vocabulary/error.hpp"
#include "site_format.hpp"

#if defined(CANOPY_ASAN)
#    include <sanitizer/asan_interface.h>
#    include <sanitizer/common_interface_defs.h>
#endif
#if defined(CANOPY_TSAN)
#    include <sanitizer/tsan_interface.h>
#endif

namespace ctx = boost::context;

namespace canopy::emu {

thread_local work_item* current = nullptr;

namespace {

thread_local launch_report last_report_;
thread_local race_log race_log_;
thread_local launch_totals_t launch_totals_;
// Site pairs already in race_log_ (unordered: "file:line|file:line" with the smaller first).
thread_local std::set<std::string> race_log_keys_;

std::string race_key(const race_report& r) {
    std::string a = std::string(r.first.where.file) + ":" + std::to_string(r.first.where.line);
    std::string b = std::string(r.second.where.file) + ":" + std::to_string(r.second.where.line);
    return a < b ? a + "|" + b : b + "|" + a;
}

// Adds one launch's races to the thread's log: repeats of a site pair add occurrences.
void log_races(const std::vector<race_report>& races, unsigned limit) {
    ++race_log_.launches;
    for (const race_report& r : races) {
        const std::string k = race_key(r);
        if (race_log_keys_.insert(k).second) {
            ++race_log_.distinct_races;
            if (race_log_.races.size() < limit) {
                race_log_.races.push_back(r);
            }
            continue;
        }
        for (race_report& seen : race_log_.races) {
            if (race_key(seen) == k) {
                seen.occurrences += r.occurrences;
                break;
            }
        }
    }
}

/// Thrown inside a fiber to unwind it when the launch is being aborted.
struct kernel_abort {};

/// Whether two call sites are the same: one pointer comparison when both came from the same
/// std::source_location (the common case), the text otherwise (a header's __FILE__ may be several
/// copies).
bool same_site(const site& a, const site& b) {
    return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

/// Stack allocator handing boost::context our pooled, guard-paged stacks.
struct pooled_stack {
    stack_pool* pool;
    stack_memory mem;
    ctx::stack_context allocate() {
        ctx::stack_context sc;
        sc.size = mem.size;
        sc.sp = static_cast<char*>(mem.base) + mem.size; // stacks grow down from the top
        return sc;
    }
    void deallocate(ctx::stack_context&) noexcept { pool->release(mem); }
};

} // namespace

std::string format_site(const site& s) {
    const char* f = s.file ? s.file : "?";
    if (const char* p = std::strstr(f, "/tests/")) {
        f = p + 1;
    } else if (const char* q = std::strrchr(f, '/')) {
        f = q + 1;
    }
    return fmt::format("{}:{}", f, s.line);
}

#if defined(CANOPY_TSAN)
struct fiber_record;
/// TSan: a fiber that runs work-items one after another, with its TSan fiber (a shadow thread state:
/// a shadow stack and vector clocks, about a megabyte). One per work-item exhausted memory on long runs
/// (every launch created and destroyed one per work-item, and a fiber that parks for good leaves its
/// frames on its shadow stack); carriers are reused within a launch, so a worker creates only as many as
/// it has work-items resident at once. A carrier never returns -- its loop parks after each work-item
/// and resumes with the next -- so its shadow stack stays balanced.
struct tsan_carrier {
    ctx::fiber fib; // the parked carrier, while it is idle
    void* tsan_fiber = nullptr;
    stack_memory stack;
    fiber_record* cur = nullptr; // the work-item it runs
};
#endif

struct fiber_record {
    work_item wi;
    ctx::fiber fib;   // the work-item's own context, while it is suspended
    ctx::fiber sched; // the scheduler's context, while the work-item runs
    bool started = false;
    std::uint64_t heap_version = 0; // timed: the current entry of this fiber in the time heap
    std::int64_t pct_priority = 0;  // PCT: higher runs first (options::pct_depth)
    worker_state* worker = nullptr;
    stack_memory stack;
#if defined(CANOPY_ASAN)
    void* asan_fake = nullptr;
#endif
#if defined(CANOPY_TSAN)
    void* tsan_fiber = nullptr;
    tsan_carrier* carrier = nullptr;
#endif
};

struct subgroup_state {
    unsigned lanes = 0; // lanes in this sub-group (the last one may be partial)
    unsigned live = 0;  // lanes that have not exited
    unsigned arrived = 0;
    collective_kind kind = collective_kind::ballot;
    site where;
    lane_mask arrived_mask = 0;
    lane_mask snapshot_mask = 0;
    std::uint64_t input[max_subgroup_size] = {};
    std::uint64_t snapshot[max_subgroup_size] = {};
};

struct block_state {
    unsigned id = 0, cu = 0, slot = 0;
    std::size_t slot_index = 0;  // position in its worker's slots/blocks
    std::uint64_t end_clock = 0; // timed: the latest clock a work-item of this group finished at
    std::vector<fiber_record> fibers;
    std::vector<subgroup_state> subgroups;
    unsigned done = 0;
    unsigned blocked = 0; // at a barrier or collective
    unsigned bar_arrived = 0;
    site bar_site;
    // block-shared memory: one allocation per CANOPY_SHARED declaration, plus the dynamic part
    struct shared_alloc {
        const void* key;
        std::unique_ptr<std::byte[]> mem;
    };
    std::vector<shared_alloc> shared;
    std::size_t shared_used = 0;
    std::byte* dynamic = nullptr; // its part of engine::dynamic_pool_ (its slot's)
};

struct worker_state {
    unsigned id = 0;
    std::vector<unsigned> slots;                      // slots this worker runs
    std::vector<std::unique_ptr<block_state>> blocks; // indexed like slots; null when empty
    std::vector<bool> slot_finished;
    std::vector<std::uint64_t> slot_clock; // timed: when the slot's last work-group finished
    std::vector<fiber_record*> runnable;
    // Timed order: runnable work-items by (clock, seeded tie-break) in a binary min-heap; entries are
    // superseded, not removed (an entry whose version is not its fiber's current one is skipped). The
    // running work-item's entry stays at the root during its step and is replaced after it, one
    // sift-down that usually stops at once (its clock moved by a few cycles): a pop and a push cost two
    // full passes over the heap's height, a sixth of a timed run.
    struct timed_entry {
        std::uint64_t clock, tie, version;
        fiber_record* f;
        bool before(const timed_entry& o) const { return clock != o.clock ? clock < o.clock : tie < o.tie; }
    };
    struct timed_heap {
        std::vector<timed_entry> v;
        bool empty() const { return v.empty(); }
        const timed_entry& top() const { return v.front(); }
        void push(const timed_entry& e) {
            std::size_t i = v.size();
            v.push_back(e);
            while (i > 0) {
                const std::size_t parent = (i - 1) / 2;
                if (!v[i].before(v[parent])) {
                    break;
                }
                std::swap(v[i], v[parent]);
                i = parent;
            }
        }
        void replace_top(const timed_entry& e) {
            const std::size_t n = v.size();
            std::size_t i = 0;
            for (;;) {
                const std::size_t l = 2 * i + 1;
                if (l >= n) {
                    break;
                }
                const std::size_t c = l + 1 < n && v[l + 1].before(v[l]) ? l + 1 : l;
                if (!v[c].before(e)) {
                    break;
                }
                v[i] = v[c];
                i = c;
            }
            v[i] = e;
        }
        void pop() {
            const timed_entry last = v.back();
            v.pop_back();
            if (!v.empty()) {
                replace_top(last);
            }
        }
    };
    timed_heap heap;
    std::uint64_t makespan = 0; // timed: the latest clock a work-item finished at
    std::size_t cursor = 0;     // round-robin position (parallel)
    std::uint64_t progress = 0; // memory changes made by this worker's work-items
    std::atomic<std::uint64_t> published_progress{0};
    std::atomic<bool> stalled{false};
    std::atomic<bool> active{true};
    std::uint64_t steps = 0;
    unsigned chain = 0;     // direct switches between lanes in this scheduling step (engine::next_lane)
    std::uint64_t live = 0; // work-items of resident work-groups that have not finished
    bool refill = true;     // a slot may be free: admit work-groups before the next step
#if defined(CANOPY_ASAN)
    const void* main_stack_bottom = nullptr;
    std::size_t main_stack_size = 0;
#endif
#if defined(CANOPY_TSAN)
    void* tsan_main = nullptr;
    std::vector<std::unique_ptr<tsan_carrier>> carriers; // every carrier this worker made (this launch)
    std::vector<tsan_carrier*> idle_carriers;
#endif
};

// ------------------------------------------------------------------------------------------------

engine::engine(const options& opt, unsigned grid, unsigned block, std::size_t dynamic_shared_bytes,
               kernel_entry entry, const void* kernel, memory_model* model)
    : opt_(opt), grid_(grid), block_(block), dynamic_shared_(dynamic_shared_bytes), entry_(entry),
      kernel_(kernel), model_(model) {
    const auto& d = opt_.device;
    // One rule on every backend (platform/launch.hpp): a block of 0 work-items is a configuration error,
    // an empty grid (0 work-groups) launches nothing -- as a CUDA or HIP launch of canopy does, so that
    // a kernel over an empty input needs no special case and behaves the same here and on a GPU.
    if (block == 0) {
        throw canopy::error(fmt::format("emulator: block size 0 is not supported; use 1 <= "
                                        "launch_config::block <= {} (device_info::max_block_size)",
                                        d.max_block_size));
    }
    if (block > d.max_block_size) {
        throw canopy::error(
            fmt::format("emulator: block size {} exceeds the maximum {} of virtual device '{}' "
                        "(use a block of at most {} work-items)",
                        block, d.max_block_size, d.name, d.max_block_size));
    }
    if (dynamic_shared_bytes > d.shared_bytes_per_block) {
        throw canopy::error(fmt::format("emulator: {} bytes of dynamic shared memory exceed the {} bytes a "
                                        "work-group may use on virtual device '{}'",
                                        dynamic_shared_bytes, d.shared_bytes_per_block, d.name));
    }
    slots_ = resident_slots(block, dynamic_shared_bytes);
    if (slots_ == 0) {
        throw canopy::error(
            fmt::format("emulator: no work-group of {} work-items and {} shared bytes fits on a "
                        "compute unit of virtual device '{}'",
                        block, dynamic_shared_bytes, d.name));
    }
    devices_ = opt_.devices > 1 ? opt_.devices : 1;
    slots_ *= devices_;
    if (devices_ > 1 && grid_ > slots_) {
        // A work-group's device is its id modulo the devices: one launch stands for a persistent launch
        // on each, so all must be resident at once (a later work-group would take a slot, and a device,
        // that is not its own).
        throw canopy::error(fmt::format("emulator: a launch over {} devices must have every work-group "
                                        "resident at once: {} work-groups, {} resident ({} per device of "
                                        "virtual device '{}'); launch at most {}",
                                        devices_, grid_, slots_, slots_ / devices_, d.name, slots_));
    }
    if (devices_ > 1 && opt_.race_block_device.empty()) {
        for (unsigned b = 0; b < grid_; ++b) {
            opt_.race_block_device.push_back(b % devices_);
        }
    }
    if (model_ && opt_.scheduler != scheduler_kind::deterministic) {
        throw canopy::error("emulator: a memory model runs only under the deterministic scheduler (set "
                            "emu::options::scheduler = scheduler_kind::deterministic, or "
                            "CANOPY_EMU_SCHEDULER=deterministic; the CLI's --scheduler deterministic)");
    }
    if (opt_.race_check != race_check_kind::none && grid_ > 0) {
        if (opt_.scheduler != scheduler_kind::deterministic) {
            throw canopy::error(fmt::format(
                "emulator: the race detector ({}) runs only under the deterministic scheduler (set "
                "emu::options::scheduler = scheduler_kind::deterministic, or "
                "CANOPY_EMU_SCHEDULER=deterministic; the CLI's --scheduler deterministic)",
                to_string(opt_.race_check)));
        }
        // Throws when the launch is too large to check. A fresh detector per launch: the launch
        // boundary synchronizes everything with the host.
        race_ = std::make_unique<race_detector>(opt_.race_check, grid_, block_, d.subgroup_size, opt_.seed,
                                                opt_.race_report_limit, opt_.race_block_device);
    }
    stacks_ = &stack_pool::shared(opt_.stack_bytes);
    const std::size_t resident_groups = std::min<std::size_t>(grid, slots_);
    if (const std::string short_of = stacks_->room_for(resident_groups * block); !short_of.empty()) {
        throw canopy::error(
            fmt::format("emulator: {} resident work-groups of {} work-items on virtual device "
                        "'{}' make {}",
                        resident_groups, block, d.name, short_of));
    }
}

engine::~engine() = default;

unsigned engine::worker_count() const {
    if (opt_.scheduler == scheduler_kind::deterministic) {
        return 1;
    }
    unsigned t = opt_.threads ? opt_.threads : std::max(1u, std::thread::hardware_concurrency());
    return std::min(t, std::min(slots_, grid_));
}

launch_report engine::report_header(unsigned threads) const {
    launch_report r;
    r.device = opt_.device.name;
    r.scheduler = opt_.scheduler;
    r.seed = opt_.seed;
    r.grid = grid_;
    r.block = block_;
    r.resident_slots = slots_;
    r.threads = threads;
    return r;
}

void engine::run() {
    if (grid_ == 0) { // an empty grid launches nothing (see the constructor): no work-item, no launch counted
        last_report_ = report_header(0);
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const unsigned nworkers = worker_count();
    workers_.clear();
    for (unsigned w = 0; w < nworkers; ++w) {
        workers_.push_back(std::make_unique<worker_state>());
        workers_.back()->id = w;
    }
    const unsigned used_slots = std::min(slots_, grid_);
    if (dynamic_shared_ > 0 && used_slots > 0) {
        dynamic_pool_.reset(new std::byte[dynamic_shared_ * used_slots]);
    }
    for (unsigned s = 0; s < used_slots; ++s) {
        auto& w = *workers_[s % nworkers];
        w.slots.push_back(s);
        w.blocks.emplace_back();
        w.slot_finished.push_back(false);
        w.slot_clock.push_back(0);
    }
    if (opt_.scheduler != scheduler_kind::deterministic) {
        opt_.timed = false; // simulated time orders the deterministic scheduler's steps only
    }
#if !defined(CANOPY_ASAN) && !defined(CANOPY_TSAN)
    direct_switches_ = opt_.scheduler == scheduler_kind::parallel;
#endif
    own_choices_ = random_chooser(opt_.seed);
    choices_ = opt_.choices ? opt_.choices : &own_choices_;
    if (opt_.pct_depth > 0) {
        if (opt_.scheduler != scheduler_kind::deterministic || opt_.timed) {
            throw canopy::error("emulator: PCT scheduling (pct_depth) orders the deterministic scheduler's "
                                "steps; it runs neither under the parallel scheduler nor with timed order");
        }
        // PCT's d - 1 change points, uniform over [1, k], drawn from the run's chooser (so the seed
        // replays them); several may coincide, as in the paper's sampling.
        const std::uint64_t k = opt_.pct_steps ? opt_.pct_steps : 20'000;
        pct_steps_ = k;
        pct_change_steps_.clear();
        for (unsigned i = 1; i < opt_.pct_depth; ++i) {
            pct_change_steps_.push_back(1 + choices_->pick(k));
        }
        std::sort(pct_change_steps_.begin(), pct_change_steps_.end());
        pct_next_change_ = 0;
        pct_next_yield_priority_ = 0;
    }
    scoped_cache_model* scm = nullptr;
    if (!model_ && opt_.memory_model == memory_model_kind::scoped) {
        if (opt_.scheduler != scheduler_kind::deterministic) {
            throw canopy::error(
                "emulator: the scoped-cache memory model runs only under the deterministic scheduler (set "
                "emu::options::scheduler = scheduler_kind::deterministic or "
                "CANOPY_EMU_SCHEDULER=deterministic, "
                "or the coherent model; the CLI's --scheduler deterministic or --memory-model coherent)");
        }
        // The model draws its environment transitions from the scheduler's chooser: one seed replays both.
        auto m = std::make_unique<scoped_cache_model>(
            opt_.device.compute_units * devices_, *choices_,
            opt_.rsp_original_scheme ? rsp_scheme::original : rsp_scheme::proposed, opt_.costs);
        if (devices_ > 1) { // CU c is on device c % devices_ (start_block places work-groups so)
            std::vector<unsigned> device_of_cu(std::size_t{opt_.device.compute_units} * devices_);
            for (std::size_t c = 0; c < device_of_cu.size(); ++c) {
                device_of_cu[c] = static_cast<unsigned>(c % devices_);
            }
            m->set_devices(device_of_cu);
        }
        if (dynamic_pool_) {
            // Dynamic shared memory is the work-group's LDS / shared memory: it never passes through
            // the L1, so no release writes it back and no acquire invalidates it.
            m->add_scratchpad(dynamic_pool_.get(), dynamic_shared_ * used_slots);
        }
        scm = m.get();
        model_ = scm;
        owned_model_ = std::move(m);
    }

    // Timeline (--trace): every slot's sub-groups get their track before any worker runs.
    trace_ = trace_launch_begin(opt_, used_slots,
                                (block_ + opt_.device.subgroup_size - 1) / opt_.device.subgroup_size);
    if (opt_.scheduler == scheduler_kind::deterministic) {
        worker_loop(*workers_[0]);
    } else {
        std::vector<std::thread> threads;
        for (unsigned w = 0; w < nworkers; ++w) {
            threads.emplace_back([this, w] { worker_loop(*workers_[w]); });
        }
        monitor_parallel();
        for (auto& t : threads) {
            t.join();
        }
    }
    if (model_ && !failed_) {
        model_->kernel_end();
    }

    launch_report r = report_header(nworkers);
    for (const auto& w : workers_) {
        r.steps += w->steps;
    }
    r.digest = digest_;
    r.race_check = opt_.race_check;
    if (race_) {
        r.races = race_->reports();
        // The seed alone replays a race only on the same device, memory model and sub-group size: the
        // report names them all, as the environment a program that leaves emu::options alone reads.
        std::string replay = fmt::format(
            "CANOPY_EMU_SEED={} CANOPY_EMU_RACE_CHECK={} CANOPY_EMU_DEVICE={} CANOPY_EMU_SUBGROUP={} "
            "CANOPY_EMU_MEMORY_MODEL={} CANOPY_EMU_SCHEDULER=deterministic",
            opt_.seed, to_string(opt_.race_check), opt_.device.name, opt_.device.subgroup_size,
            to_string(opt_.memory_model));
        if (opt_.timed) {
            replay += " CANOPY_EMU_TIMED=1";
        }
        if (devices_ > 1) {
            replay += fmt::format(" CANOPY_EMU_DEVICES={}", devices_);
        }
        replay += " (a program that sets emu::options itself: set these fields; canopy's CLI: the same "
                  "command with these --seed, --device and --memory-model)";
        for (race_report& x : r.races) {
            x.replay = replay;
        }
        r.distinct_races = race_->distinct_races();
        log_races(r.races, opt_.race_report_limit);
    }

    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (scm) {
        r.memory_model = fmt::format(
            "scoped ({})", to_string(opt_.rsp_original_scheme ? rsp_scheme::original : rsp_scheme::proposed));
        r.memory = scm->counters();
    } else if (model_) {
        r.memory_model = "custom";
    }
    if (opt_.timed) {
        for (const auto& w : workers_) {
            r.memory.cycles_makespan = std::max(r.memory.cycles_makespan, w->makespan);
        }
    }
    last_report_ = r;
    ++launch_totals_.launches;
    launch_totals_.steps += r.steps;
    launch_totals_.cycles_makespan += r.memory.cycles_makespan;
    launch_totals_.memory += r.memory;
    launch_totals_.launch_cost = opt_.costs.launch;

    trace_launch_end(trace_, r.memory.cycles_makespan + opt_.costs.launch, r.steps); // timeline (--trace)
    if (failed_) {
        std::string msg = failure_;
        if (opt_.scheduler == scheduler_kind::deterministic) {
            msg += fmt::format("\n  (deterministic scheduler, seed {}; replay with CANOPY_EMU_SEED={})",
                               opt_.seed, opt_.seed);
        } else {
            msg += "\n  (parallel scheduler: not replayable; the deterministic scheduler finds and replays "
                   "such failures by seed)";
        }
        throw canopy::device_error(msg);
    }
}

// ---- admission ----------------------------------------------------------------------------------

void engine::start_block(worker_state& w, std::size_t slot_index, unsigned block_id) {
    auto b = std::make_unique<block_state>();
    b->id = block_id;
    b->slot = w.slots[slot_index];
    b->slot_index = slot_index;
    // Slots are dealt round-robin over CUs, as a GPU's dispatcher spreads work-groups. Several devices:
    // work-group b on a CU of device b % devices_ (CU c is on device c % devices_).
    b->cu = devices_ > 1 ? (b->slot % opt_.device.compute_units) * devices_ + block_id % devices_
                         : b->slot % opt_.device.compute_units;
    const unsigned sg = opt_.device.subgroup_size;
    const unsigned nsg = (block_ + sg - 1) / sg;
    b->subgroups.resize(nsg);
    for (unsigned i = 0; i < nsg; ++i) {
        b->subgroups[i].lanes = std::min(sg, block_ - i * sg);
        b->subgroups[i].live = b->subgroups[i].lanes;
    }
    if (dynamic_shared_ > 0) {
        b->dynamic = dynamic_pool_.get() + b->slot * dynamic_shared_;
        std::memset(b->dynamic, 0xCD, dynamic_shared_);
        b->shared_used = dynamic_shared_;
        if (race_) {
            race_->forget(b->dynamic, dynamic_shared_); // the slot's previous work-group used it
        }
    }
    b->fibers = std::vector<fiber_record>(block_);
    for (unsigned t = 0; t < block_; ++t) {
        fiber_record& f = b->fibers[t];
        work_item& wi = f.wi;
        wi.thread = t;
        wi.block = block_id;
        wi.block_dim = block_;
        wi.grid_dim = grid_;
        wi.lane = t % sg;
        wi.subgroup = t / sg;
        wi.subgroup_size = sg;
        wi.cu = b->cu;
        wi.fiber_index = t;
        wi.yield_at_atomics = opt_.scheduler == scheduler_kind::deterministic;
        wi.yield_at_plain = wi.yield_at_atomics && opt_.yield_at_plain_access;
        wi.clock = w.slot_clock[slot_index]; // timed: it starts when the slot's previous group ended
        wi.progress = &w.progress;
        wi.model = model_;
        wi.race = race_.get();
        wi.profile = opt_.site_profile || site_profile_requested() ? &process_site_profile() : nullptr;
        wi.global_id = block_id * block_ + t;
        wi.eng = this;
        wi.blk = b.get();
        wi.fiber = &f;
        wi.timeline = trace_track_for(trace_, b->slot, t / sg, b->cu, block_id, &w.steps); // --trace
        f.worker = &w;
        if (opt_.pct_depth > 0) {
            // PCT's initial priorities: distinct with overwhelming probability, all above the change
            // points' 1 .. d-1 (ties would go to the earlier entry of the runnable list: still seeded).
            f.pct_priority =
                (std::int64_t{1} << 40) + static_cast<std::int64_t>(choices_->pick(std::uint64_t{1} << 40));
        }
        make_runnable(w, f);
    }
    w.blocks[slot_index] = std::move(b);
    w.live += block_;
    ++w.progress;
}

void engine::fill_slots(worker_state& w) {
    for (std::size_t i = 0; i < w.slots.size(); ++i) {
        if (w.blocks[i] || w.slot_finished[i]) {
            continue;
        }
        const unsigned id = next_block_.fetch_add(1, std::memory_order_relaxed);
        if (id < grid_) {
            start_block(w, i, id);
        } else {
            w.slot_finished[i] = true;
        }
    }
}

void engine::make_runnable(worker_state& w, fiber_record& f) {
    f.wi.run_index = static_cast<int>(w.runnable.size());
    w.runnable.push_back(&f);
    if (opt_.timed) { // deterministic only (run() clears it for the parallel scheduler)
        push_timed(w, f);
    }
}

void engine::push_timed(worker_state& w, fiber_record& f) {
    // The tie-break is drawn when the entry is made: simultaneous events run in a seeded order.
    const worker_state::timed_entry e{f.wi.clock, choices_->pick(~std::uint64_t{0}), ++f.heap_version, &f};
    if (!w.heap.empty() && w.heap.top().f == &f && w.heap.top().version == e.version - 1) {
        w.heap.replace_top(e); // the entry it ran by is still the root: move it down from there
    } else {
        w.heap.push(e);
    }
}

void engine::make_blocked(fiber_record& f) {
    worker_state& w = *f.worker;
    const int i = f.wi.run_index;
    fiber_record* last = w.runnable.back();
    w.runnable[static_cast<std::size_t>(i)] = last;
    last->wi.run_index = i;
    w.runnable.pop_back();
    f.wi.run_index = -1;
}

// ---- fibers -------------------------------------------------------------------------------------

void engine::fiber_main(fiber_record& f) {
    try {
        entry_(kernel_);
    } catch (const kernel_abort&) {
        // the launch is being torn down; just finish
    } catch (const ctx::detail::forced_unwind&) {
        throw; // boost::context's own unwinding must pass through
    } catch (const std::exception& e) {
        fail(fmt::format("block {} work-item {}: kernel threw: {}", f.wi.block, f.wi.thread, e.what()));
    } catch (...) {
        fail(fmt::format("block {} work-item {}: kernel threw a non-standard exception", f.wi.block,
                         f.wi.thread));
    }
    f.wi.state = wi_state::done;
}

fiber_record& engine::switch_in(worker_state& w, fiber_record& f) {
#if defined(CANOPY_TSAN)
    if (!f.started) {
        start_on_carrier(w, f);
    }
#else
    if (!f.started) {
        // Acquire the stack before marking the fiber started: when mapping it fails (too many
        // resident work-items for vm.max_map_count), the launch fails and abort_fibers() unwinds every
        // *started* fiber; one marked started without a context would be resumed from nothing.
        stack_memory mem = stacks_->acquire();
        f.started = true;
        f.stack = mem;
        if (race_) {
            race_->forget(mem.base, mem.size); // pooled: an earlier work-item's ld/st on its stack
        }
        f.fib = ctx::fiber(std::allocator_arg, pooled_stack{stacks_, mem}, [this, &f](ctx::fiber&& sched) {
            f.sched = std::move(sched);
#    if defined(CANOPY_ASAN)
            __sanitizer_finish_switch_fiber(nullptr, &f.worker->main_stack_bottom,
                                            &f.worker->main_stack_size);
#    endif
            fiber_main(f);
#    if defined(CANOPY_ASAN)
            // nullptr: this fiber will not come back, so ASan may free its fake stack.
            __sanitizer_start_switch_fiber(nullptr, f.worker->main_stack_bottom, f.worker->main_stack_size);
#    endif
            return std::move(f.sched);
        });
    }
#endif
    current = &f.wi;
#if defined(CANOPY_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, f.stack.base, f.stack.size);
#endif
#if defined(CANOPY_TSAN)
    // Flag 0: a switch synchronizes the two fibers (they share an OS thread); TSan then reports races
    // between work-groups on different OS threads, which is where the parallel scheduler can race.
    __tsan_switch_to_fiber(f.tsan_fiber, 0);
#endif
    ctx::fiber back = std::move(f.fib).resume();
    // The work-item that switched back is `current`: f itself, or (parallel scheduler) the last lane of
    // a chain of direct switches that began with f (switch_to_lane). Its context is what came back.
    fiber_record& g = *static_cast<fiber_record*>(current->fiber);
    g.fib = std::move(back);
#if defined(CANOPY_ASAN)
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
#if defined(CANOPY_TSAN)
    if (g.wi.state == wi_state::done) {
        // The carrier parked after the work-item: it is idle, ready for the next one.
        g.carrier->fib = std::move(g.fib);
        w.idle_carriers.push_back(g.carrier);
        g.carrier = nullptr;
        g.tsan_fiber = nullptr;
    }
#endif
    current = nullptr;
    (void)w;
    return g;
}

void engine::switch_out(fiber_record& f) {
#if defined(CANOPY_ASAN)
    __sanitizer_start_switch_fiber(&f.asan_fake, f.worker->main_stack_bottom, f.worker->main_stack_size);
#endif
#if defined(CANOPY_TSAN)
    __tsan_switch_to_fiber(f.worker->tsan_main, 0);
#endif
    f.sched = std::move(f.sched).resume();
#if defined(CANOPY_ASAN)
    __sanitizer_finish_switch_fiber(f.asan_fake, &f.worker->main_stack_bottom, &f.worker->main_stack_size);
#endif
    if (aborting_.load(std::memory_order_relaxed)) {
        throw kernel_abort{};
    }
}

fiber_record* engine::next_lane(fiber_record& f) {
    if (!direct_switches_ || f.worker->chain >= max_chain) {
        return nullptr;
    }
    const block_state& b = *f.wi.blk;
    const unsigned lanes = b.subgroups[f.wi.subgroup].lanes;
    fiber_record* first = &f - f.wi.lane;
    for (unsigned k = 1; k < lanes; ++k) {
        const unsigned l = f.wi.lane + k < lanes ? f.wi.lane + k : f.wi.lane + k - lanes;
        fiber_record& g = first[l];
        // Runnable and not polling: a lane released by the last collective, about to run to the next.
        if (g.started && g.wi.run_index >= 0 && !g.wi.in_spin) {
            return &g;
        }
    }
    return nullptr;
}

void engine::switch_to_lane(fiber_record& from, fiber_record& to) {
    // One jump instead of two (from -> scheduler -> to). The scheduler's context travels with the
    // chain: the function runs on `to`'s stack, parks `from`'s context in from.fib and hands `to` the
    // scheduler's context, which `to` stores in its own sched (its switch_out or switch_to_lane
    // returns it). Whoever resumes `from` later hands it the scheduler's context the same way.
    ++from.worker->chain;
    ++from.worker->steps; // a scheduling step all the same (launch_report::steps, the --trace clock)
    current = &to.wi;
    from.sched = std::move(to.fib).resume_with([&from](ctx::fiber&& back) {
        from.fib = std::move(back);
        return std::move(from.sched);
    });
    if (aborting_.load(std::memory_order_relaxed)) {
        throw kernel_abort{};
    }
}

void engine::destroy_fiber(fiber_record& f) {
    // TSan: the TSan fiber belongs to the carrier, which outlives the work-item (retire_carriers).
    (void)f;
}

#if defined(CANOPY_TSAN)
void engine::start_on_carrier(worker_state& w, fiber_record& f) {
    tsan_carrier* c = nullptr;
    if (!w.idle_carriers.empty()) {
        c = w.idle_carriers.back();
        w.idle_carriers.pop_back();
    } else {
        // Acquire the stack first: when mapping it fails, nothing is half-made (see the non-TSan path).
        auto made = std::make_unique<tsan_carrier>();
        made->stack = stacks_->acquire();
        made->tsan_fiber = __tsan_create_fiber(0);
        c = made.get();
        made->fib =
            ctx::fiber(std::allocator_arg, pooled_stack{stacks_, made->stack}, [this, c](ctx::fiber&& sched) {
                for (;;) {
                    fiber_record& cur = *c->cur;
                    cur.sched = std::move(sched);
                    fiber_main(cur);
                    // Park: switch out like a yield; switch_in makes the carrier idle, and the next
                    // work-item's switch_in resumes it here, handing over the scheduler's context.
                    __tsan_switch_to_fiber(cur.worker->tsan_main, 0);
                    sched = std::move(cur.sched).resume();
                }
                return ctx::fiber{}; // never reached: a carrier never returns
            });
        w.carriers.push_back(std::move(made));
    }
    if (race_) {
        race_->forget(c->stack.base, c->stack.size); // an earlier work-item's ld/st on this stack
    }
    c->cur = &f;
    f.carrier = c;
    f.tsan_fiber = c->tsan_fiber;
    f.stack = c->stack;
    f.fib = std::move(c->fib);
    f.started = true;
}

void engine::retire_carriers(worker_state& w) {
    // Every carrier is parked (each work-item finished or was unwound). Leak the 8-byte handles (a
    // destructor would unwind them through an unannotated switch), give the stacks back, and free the
    // TSan fibers.
    for (auto& c : w.carriers) {
        new ctx::fiber(std::move(c->fib));
        stacks_->release(c->stack);
        __tsan_destroy_fiber(c->tsan_fiber);
    }
    w.carriers.clear();
    w.idle_carriers.clear();
}
#endif

// ---- the worker loop ----------------------------------------------------------------------------

void engine::worker_loop(worker_state& w) {
#if defined(CANOPY_TSAN)
    w.tsan_main = __tsan_get_current_fiber();
#endif
    const bool deterministic = opt_.scheduler == scheduler_kind::deterministic;
    std::uint64_t idle_steps = 0; // consecutive steps that ran only waiting work-items, no progress
    std::uint64_t last_progress = w.progress;
    try {
        for (;;) {
            if (aborting_.load(std::memory_order_relaxed)) {
                break;
            }
            if (w.refill) {
                w.refill = false;
                fill_slots(w);
            }
            if (w.runnable.empty()) {
                bool any_live = false;
                for (const auto& b : w.blocks) {
                    any_live = any_live || b != nullptr;
                }
                if (!any_live) {
                    break; // every slot finished
                }
                // Every resident work-item is blocked at a barrier or collective: nothing can run.
                fail("deadlock: every resident work-item is blocked at a barrier or collective\n" +
                     describe_all());
                break;
            }
            fiber_record* f;
            if (deterministic && opt_.timed) {
                f = earliest_runnable(w);
                digest_ = (digest_ ^ (static_cast<std::uint64_t>(f->wi.block) * block_ + f->wi.thread + 1)) *
                          0x100000001b3ULL;
            } else if (deterministic && opt_.pct_depth > 0 && w.steps < pct_steps_) {
                f = highest_priority(w);
                digest_ = (digest_ ^ (static_cast<std::uint64_t>(f->wi.block) * block_ + f->wi.thread + 1)) *
                          0x100000001b3ULL;
            } else if (deterministic) {
                choices_->scheduling_point();
                f = w.runnable[static_cast<std::size_t>(choices_->pick(w.runnable.size()))];
                digest_ = (digest_ ^ (static_cast<std::uint64_t>(f->wi.block) * block_ + f->wi.thread + 1)) *
                          0x100000001b3ULL;
            } else {
                if (w.cursor >= w.runnable.size()) {
                    w.cursor = 0;
                }
                f = w.runnable[w.cursor++];
            }
            ++w.steps;
            const bool waiting = f->wi.in_spin;
            const std::uint64_t clock_before = f->wi.clock;
            const std::uint64_t progress_before = w.progress;
            w.chain = 0;
            f = &switch_in(w, *f); // the same work-item unless lanes switched directly (parallel)
            if (deterministic && opt_.pct_depth > 0 && w.steps <= pct_steps_) {
                pct_after_step(*f, w.steps, waiting && w.progress == progress_before);
            }
            if (f->wi.clock == clock_before) {
                ++f->wi.clock; // a step that charged nothing still issued an instruction: time moves
            }
            if (opt_.timed && deterministic && f->wi.run_index >= 0 && f->wi.state != wi_state::done) {
                push_timed(w, *f); // still runnable: its next step is at its new clock
            }
            if (f->wi.state == wi_state::done) {
                finish_work_item(w, *f);
            }
            // Watchdog bookkeeping: a step counts as idle when the work-item it ran was waiting in
            // spin_until and nothing in memory changed.
            if (w.progress != last_progress) {
                last_progress = w.progress;
                idle_steps = 0;
            } else if (waiting) {
                ++idle_steps;
                // Timed order: a waiting work-item runs because it is earliest, while one that is not
                // waiting may merely be later in simulated time: that is not a deadlock. Checked
                // every 1,024 idle steps (a scan of the runnable list).
                if (opt_.timed && idle_steps % 1024 == 0 && any_working(w)) {
                    idle_steps = 0;
                }
            } else {
                idle_steps = 0;
            }
            if (deterministic) {
                const std::uint64_t live = w.live;
                const std::uint64_t bound = opt_.watchdog_steps ? opt_.watchdog_steps : 10'000 + 64 * live;
                if (idle_steps >= bound) {
                    fail(fmt::format(
                        "deadlock: for {} scheduling steps only waiting work-items ran and no memory "
                        "changed\n{}",
                        idle_steps, describe_all()));
                    break;
                }
            } else {
                w.published_progress.store(w.progress, std::memory_order_relaxed);
                w.stalled.store(idle_steps > 4 * w.runnable.size() + 64, std::memory_order_relaxed);
                if (deadlock_.load(std::memory_order_acquire)) {
                    park_for_report(w);
                    break;
                }
            }
        }
    } catch (const std::exception& e) {
        // A host-side failure inside the scheduler (e.g. no memory for a stack): fail the launch.
        fail(fmt::format("emulator: {}", e.what()));
    }
    abort_fibers(w);
#if defined(CANOPY_TSAN)
    retire_carriers(w);
#endif
    {
        std::lock_guard lock(monitor_mutex_);
        w.active.store(false, std::memory_order_release);
    }
    monitor_cv_.notify_all();
}

fiber_record* engine::earliest_runnable(worker_state& w) {
    // Discrete-event order: the next step belongs to a work-item whose clock is the smallest, so no
    // work-item acts "before" an event that happened earlier in simulated time. Ties (common: the
    // lanes of a sub-group leave a collective together) go by a seeded random key, keeping runs
    // replayable and still exploring an order among simultaneous events.
    // The entry stays at the root while its work-item runs; push_timed replaces it afterwards, and an
    // entry left behind by a work-item that blocked or finished is skipped here like any stale one.
    for (;;) {
        const auto& e = w.heap.top();
        if (e.version == e.f->heap_version && e.f->wi.run_index >= 0) {
            return e.f;
        }
        w.heap.pop();
    }
}

fiber_record* engine::highest_priority(worker_state& w) {
    // A scan, not a heap: priorities change at every idle poll, and the runnable lists of the devices
    // a sweep runs on hold tens to hundreds of work-items.
    fiber_record* best = w.runnable.front();
    for (fiber_record* g : w.runnable) {
        if (g->pct_priority > best->pct_priority) {
            best = g;
        }
    }
    return best;
}

void engine::pct_after_step(fiber_record& f, std::uint64_t step, bool idle_poll) {
    if (idle_poll) {
        // It polled and nothing changed: it cannot progress until another work-item runs. Below every
        // priority, change points included, so every work-item that can make progress runs first.
        f.pct_priority = --pct_next_yield_priority_;
    }
    while (pct_next_change_ < pct_change_steps_.size() && pct_change_steps_[pct_next_change_] <= step) {
        // The i-th change point (1-based) lowers the running work-item to d - i: below every initial
        // priority, above work-items lowered by idle polls.
        ++pct_next_change_;
        if (!idle_poll) {
            f.pct_priority = static_cast<std::int64_t>(opt_.pct_depth - pct_next_change_);
        }
    }
}

bool engine::any_working(const worker_state& w) const {
    for (const fiber_record* g : w.runnable) {
        if (!g->wi.in_spin) {
            return true;
        }
    }
    return false;
}

void engine::finish_work_item(worker_state& w, fiber_record& f) {
    w.makespan = std::max(w.makespan, f.wi.clock);
    f.wi.blk->end_clock = std::max(f.wi.blk->end_clock, f.wi.clock);
    make_blocked(f); // out of the runnable list for good
    destroy_fiber(f);
    f.fib = ctx::fiber{};
    ++w.progress;
    block_state& b = *f.wi.blk;
    ++b.done;
    --w.live;
    subgroup_state& sg = b.subgroups[f.wi.subgroup];
    --sg.live;
    // A lane that exits no longer takes part in collectives: its sub-group may now be complete.
    if (sg.arrived > 0 && sg.arrived == sg.live) {
        complete_collective(b, f.wi.subgroup, nullptr);
    }
    if (b.bar_arrived > 0 && b.bar_arrived + b.done == block_) {
        fail(
            fmt::format("block {}: barrier at {} reached by {} of {} work-items; the other {} exited without "
                        "reaching it (every work-item of a work-group must reach each block_barrier)",
                        b.id, format_site(b.bar_site), b.bar_arrived, block_, b.done));
        return;
    }
    check_block_stuck(b);
    if (b.done == block_) {
        w.refill = true;
        if (!w.heap.empty()) {
            // Superseded entries of this work-group's fibers must not outlive them.
            std::vector<worker_state::timed_entry> keep;
            const fiber_record* lo = b.fibers.data();
            const fiber_record* hi = lo + b.fibers.size();
            for (const auto& e : w.heap.v) {
                if (e.f < lo || e.f >= hi) {
                    keep.push_back(e);
                }
            }
            w.heap.v.clear();
            for (const auto& e : keep) {
                w.heap.push(e);
            }
        }
        // the slot is free: the next work-group becomes resident, starting when this one ended
        w.slot_clock[b.slot_index] = std::max(w.slot_clock[b.slot_index], b.end_clock);
        w.blocks[b.slot_index].reset();
    }
}

void engine::abort_fibers(worker_state& w) {
    // Unwind every started, unfinished work-item through our own (sanitizer-annotated) switch: it
    // resumes, sees aborting_ (set by fail(), the only way a worker leaves live work-groups behind),
    // throws kernel_abort from its yield point and returns.
    for (auto& b : w.blocks) {
        if (!b) {
            continue;
        }
        for (auto& f : b->fibers) {
            if (f.started && f.wi.state != wi_state::done) {
                switch_in(w, f);
                destroy_fiber(f);
            }
        }
        b.reset();
    }
    w.runnable.clear();
    w.heap.v.clear();
}

// ---- parallel watchdog --------------------------------------------------------------------------

void engine::monitor_parallel() {
    using clock = std::chrono::steady_clock;
    std::uint64_t last_sum = ~0ULL;
    auto last_change = clock::now();
    for (;;) {
        bool any_active = false;
        bool all_stalled = true;
        std::uint64_t sum = 0;
        for (const auto& w : workers_) {
            if (w->active.load(std::memory_order_acquire)) {
                any_active = true;
                all_stalled = all_stalled && w->stalled.load(std::memory_order_relaxed);
            }
            sum += w->published_progress.load(std::memory_order_relaxed);
        }
        if (!any_active) {
            return;
        }
        const auto now = clock::now();
        if (sum != last_sum || !all_stalled) {
            last_sum = sum;
            last_change = now;
        } else if (std::chrono::duration<double>(now - last_change).count() >= opt_.watchdog_seconds) {
            // Stop every worker, then describe the frozen state.
            deadlock_.store(true, std::memory_order_release);
            for (;;) {
                unsigned parked = parked_.load(std::memory_order_acquire);
                unsigned active = 0;
                for (const auto& w : workers_) {
                    active += w->active.load(std::memory_order_acquire) ? 1 : 0;
                }
                if (parked >= active) {
                    break;
                }
                std::this_thread::yield();
            }
            fail(fmt::format(
                "deadlock: for {:.1f} s every resident work-item waited and no memory changed\n{}",
                opt_.watchdog_seconds, describe_all()));
            report_done_.store(true, std::memory_order_release);
            return;
        }
        // Wake at once when a worker finishes; otherwise poll the progress counters every 10 ms.
        std::unique_lock lock(monitor_mutex_);
        monitor_cv_.wait_for(lock, std::chrono::milliseconds(10));
    }
}

void engine::park_for_report(worker_state& w) {
    parked_.fetch_add(1, std::memory_order_acq_rel);
    while (!report_done_.load(std::memory_order_acquire)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    (void)w;
}

// ---- failures and reports -----------------------------------------------------------------------

void engine::fail(const std::string& msg) {
    std::lock_guard lock(fail_mutex_);
    if (!failed_) {
        failed_ = true;
        failure_ = msg;
    }
    aborting_.store(true, std::memory_order_relaxed);
}

void engine::fail_in_fiber(const std::string& msg) {
    fail(msg);
    throw kernel_abort{};
}

namespace {
std::string describe_state(const work_item& wi, const block_state& b) {
    switch (wi.state) {
    case wi_state::done: return "exited";
    case wi_state::at_barrier:
        return fmt::format("block_barrier at {} (reached by {} of {})", format_site(wi.wait_site),
                           b.bar_arrived, b.fibers.size());
    case wi_state::at_collective: {
        const auto& sg = b.subgroups[wi.subgroup];
        return fmt::format("sub-group {} {} at {} (reached by {} of {} live lanes)", wi.subgroup,
                           to_string(sg.kind), format_site(wi.wait_site), sg.arrived, sg.live);
    }
    case wi_state::runnable:
        if (wi.in_spin) {
            return fmt::format("spin_until at {}", format_site(wi.wait_site));
        }
        return "running (no wait site)";
    }
    return "?";
}
} // namespace

std::string engine::describe_block(const block_state& b) const {
    // One line per run of consecutive work-items in the same state at the same site.
    std::string out;
    std::size_t i = 0;
    while (i < b.fibers.size()) {
        const std::string what = b.fibers[i].started || b.fibers[i].wi.state != wi_state::runnable
                                     ? describe_state(b.fibers[i].wi, b)
                                     : std::string("not started");
        std::size_t j = i + 1;
        while (j < b.fibers.size()) {
            const std::string next = b.fibers[j].started || b.fibers[j].wi.state != wi_state::runnable
                                         ? describe_state(b.fibers[j].wi, b)
                                         : std::string("not started");
            if (next != what) {
                break;
            }
            ++j;
        }
        out += j - i == 1
                   ? fmt::format("    block {} (CU {}) work-item {}: {}\n", b.id, b.cu, i, what)
                   : fmt::format("    block {} (CU {}) work-items {}-{}: {}\n", b.id, b.cu, i, j - 1, what);
        i = j;
    }
    return out;
}

std::string engine::describe_all() const {
    std::string out;
    unsigned resident = 0;
    for (const auto& w : workers_) {
        for (const auto& b : w->blocks) {
            if (b) {
                out += describe_block(*b);
                ++resident;
            }
        }
    }
    const unsigned next = std::min(next_block_.load(std::memory_order_relaxed), grid_);
    if (next < grid_) {
        out += fmt::format("    work-groups {}-{} not resident: they start only when a resident one finishes "
                           "({} resident at once on '{}' for blocks of {})\n",
                           next, grid_ - 1, slots_, opt_.device.name, block_);
    }
    (void)resident;
    return out;
}

// ---- barrier ------------------------------------------------------------------------------------

void engine::block_barrier(work_item& wi, site where) {
    block_state& b = *wi.blk;
    auto& f = *static_cast<fiber_record*>(wi.fiber);
    if (b.bar_arrived > 0 && !same_site(b.bar_site, where)) {
        fail_in_fiber(
            fmt::format("block {}: divergent barriers: {} work-items wait at {}, work-item {} reached "
                        "another block_barrier at {}",
                        b.id, b.bar_arrived, format_site(b.bar_site), wi.thread, format_site(where)));
    }
    if (b.bar_arrived == 0) {
        b.bar_site = where;
    }
    ++b.bar_arrived;
    if (b.bar_arrived + b.done == block_ && b.done > 0) {
        fail_in_fiber(
            fmt::format("block {}: barrier at {} reached by {} of {} work-items; the other {} exited "
                        "without reaching it (every work-item of a work-group must reach each "
                        "block_barrier)",
                        b.id, format_site(where), b.bar_arrived, block_, b.done));
    }
    if (b.bar_arrived == block_) {
        // Everyone is here: release the others (they are blocked) and carry on without switching. They
        // all leave at the latest arrival's clock.
        b.bar_arrived = 0;
        std::uint64_t at = wi.clock;
        for (const auto& g : b.fibers) {
            if (g.wi.state == wi_state::at_barrier) {
                at = std::max(at, g.wi.clock);
            }
        }
        wi.clock = at;
        for (auto& g : b.fibers) {
            if (g.wi.state == wi_state::at_barrier) {
                g.wi.clock = at;
            }
        }
        for (auto& g : b.fibers) {
            if (g.wi.state == wi_state::at_barrier) {
                g.wi.state = wi_state::runnable;
                --b.blocked;
                make_runnable(*g.worker, g);
            }
        }
        if (model_) {
            model_->barrier(b.cu);
        }
        if (race_) {
            race_->barrier(b.id);
        }
        note_progress(wi);
        yield(wi); // a barrier is a scheduling point even for the last arrival
        return;
    }
    wi.state = wi_state::at_barrier;
    wi.wait_site = where;
    ++b.blocked;
    make_blocked(f);
    check_block_stuck(b);
    while (wi.state == wi_state::at_barrier) {
        switch_out(f);
    }
}

// ---- collectives ----------------------------------------------------------------------------------

const std::uint64_t* engine::collective(work_item& wi, collective_kind kind, std::uint64_t value, site where,
                                        lane_mask* mask) {
    block_state& b = *wi.blk;
    subgroup_state& sg = b.subgroups[wi.subgroup];
    auto& f = *static_cast<fiber_record*>(wi.fiber);
    if (sg.arrived > 0 && (sg.kind != kind || !same_site(sg.where, where))) {
        fail_in_fiber(
            fmt::format("block {} sub-group {}: divergent collectives: {} lane(s) wait in {} at {}, "
                        "lane {} reached {} at {} (all live lanes must reach the same collective)",
                        b.id, wi.subgroup, sg.arrived, to_string(sg.kind), format_site(sg.where), wi.lane,
                        to_string(kind), format_site(where)));
    }
    if (sg.arrived == 0) {
        sg.kind = kind;
        sg.where = where;
        sg.arrived_mask = 0;
    }
    sg.input[wi.lane] = value;
    sg.arrived_mask |= lane_mask{1} << wi.lane;
    ++sg.arrived;
    if (sg.arrived == sg.live) {
        complete_collective(b, wi.subgroup, &wi);
        *mask = sg.snapshot_mask;
        if (!direct_switches_) {
            // A scheduling point for the deterministic scheduler, whose interleavings it explores. The
            // parallel scheduler runs on: the released lanes run when this one next waits.
            yield(wi);
        }
        return sg.snapshot;
    }
    wi.state = wi_state::at_collective;
    wi.wait_site = where;
    ++b.blocked;
    make_blocked(f);
    check_block_stuck(b);
    while (wi.state == wi_state::at_collective) {
        if (fiber_record* g = next_lane(f)) {
            switch_to_lane(f, *g);
        } else {
            switch_out(f);
        }
    }
    // The snapshot stays valid until this lane arrives at its next collective: the next completion
    // needs this lane's arrival first.
    *mask = sg.snapshot_mask;
    return sg.snapshot;
}

void engine::complete_collective(block_state& b, unsigned subgroup, work_item* last) {
    subgroup_state& sg = b.subgroups[subgroup];
    std::memcpy(sg.snapshot, sg.input, sizeof(sg.input));
    sg.snapshot_mask = sg.arrived_mask;
    sg.arrived = 0;
    if (race_) {
        race_->collective(b.id, subgroup, sg.arrived_mask, sg.kind);
    }
    fiber_record* const lanes = b.fibers.data() + std::size_t{subgroup} * opt_.device.subgroup_size;
    if (opt_.timed) {
        // A collective completes when its last lane arrives: every lane leaves at that lane's clock.
        std::uint64_t at = last ? last->clock : 0;
        for (unsigned t = 0; t < sg.lanes; ++t) {
            if (lanes[t].wi.state == wi_state::at_collective) {
                at = std::max(at, lanes[t].wi.clock);
            }
        }
        if (last) {
            last->clock = at;
        }
        for (unsigned t = 0; t < sg.lanes; ++t) {
            if (lanes[t].wi.state == wi_state::at_collective) {
                lanes[t].wi.clock = at;
            }
        }
    }
    // Only the lanes that arrived wait (the others exited); the completing lane is running.
    for (lane_mask m = sg.arrived_mask; m != 0; m &= m - 1) {
        fiber_record& g = lanes[std::countr_zero(m)];
        if (g.wi.state == wi_state::at_collective) {
            g.wi.state = wi_state::runnable;
            --b.blocked;
            make_runnable(*g.worker, g);
        }
    }
}

void engine::check_block_stuck(block_state& b) {
    // Every live work-item of the work-group is blocked, and a barrier or collective cannot complete
    // (the ones that could have completed already did): the work-group can never move again. Report it
    // now, naming where each work-item waits, instead of leaving it to the watchdog.
    if (b.blocked == 0 || b.blocked + b.done != block_) {
        return;
    }
    std::string head;
    if (b.bar_arrived > 0) {
        head =
            fmt::format("block {}: barrier at {} reached by {} of {} work-items; the others wait elsewhere",
                        b.id, format_site(b.bar_site), b.bar_arrived, block_);
    } else {
        head = fmt::format("block {}: every work-item waits in a collective that cannot complete", b.id);
    }
    fail(head + " (divergent control flow)\n" + describe_block(b));
}

// ---- the remaining kernel-side services -----------------------------------------------------------

void engine::yield_from(work_item& wi) {
    observe(wi, 0x59); // one more step taken: the position after a yield differs from the one before
    switch_out(*static_cast<fiber_record*>(wi.fiber));
}

void engine::spin_wait(work_item& wi, site where) {
    wi.in_spin = true;
    wi.wait_site = where;
    switch_out(*static_cast<fiber_record*>(wi.fiber));
}

void* engine::block_shared(work_item& wi, const void* key, std::size_t size, std::size_t align) {
    block_state& b = *wi.blk;
    for (const auto& a : b.shared) {
        if (a.key == key) {
            return a.mem.get();
        }
    }
    if (b.shared_used + size > opt_.device.shared_bytes_per_block) {
        fail_in_fiber(
            fmt::format("block {}: block-shared memory of {} bytes exceeds the {} bytes a work-group has "
                        "on virtual device '{}'",
                        b.id, b.shared_used + size, opt_.device.shared_bytes_per_block, opt_.device.name));
    }
    // new[] of std::byte is aligned for any fundamental type; over-aligned types are rejected.
    if (align > alignof(std::max_align_t)) {
        fail_in_fiber("CANOPY_SHARED: over-aligned types are not supported by the emulator");
    }
    std::unique_ptr<std::byte[]> mem(new std::byte[size]);
    std::memset(mem.get(), 0xCD, size); // uninitialized, like __shared__: make early reads visible
    void* p = mem.get();
    if (race_) {
        race_->forget(p, size); // the heap may hand a finished work-group's shared memory back
    }
    b.shared.push_back({key, std::move(mem)});
    b.shared_used += size;
    return p;
}

void* engine::dynamic_shared(work_item& wi) { return wi.blk->dynamic; }

// ---- free functions (launch.hpp, work_item.hpp) ------------------------------------------------

unsigned resident_slots(unsigned block, std::size_t shared_bytes) {
    const auto& d = current_options().device;
    if (block == 0 || block > d.max_block_size || shared_bytes > d.shared_bytes_per_block) {
        return 0;
    }
    unsigned per_cu = std::min(d.blocks_per_cu, d.threads_per_cu / block);
    if (shared_bytes > 0) {
        per_cu = std::min(per_cu, static_cast<unsigned>(d.shared_bytes_per_cu / shared_bytes));
    }
    return per_cu * d.compute_units;
}

void run(unsigned grid, unsigned block, std::size_t dynamic_shared_bytes, kernel_entry entry,
         const void* kernel, memory_model* model) {
    if (current != nullptr) {
        throw canopy::error("emulator: a kernel cannot launch another kernel");
    }
    engine e(current_options(), grid, block, dynamic_shared_bytes, entry, kernel, model);
    e.run();
}

const launch_report& last_report() { return last_report_; }

const race_log& accumulated_races() { return race_log_; }

const launch_totals_t& launch_totals() { return launch_totals_; }

void reset_launch_totals() { launch_totals_ = launch_totals_t{}; }

void reset_race_log() {
    race_log_ = race_log{};
    race_log_keys_.clear();
}

work_item& self_slow() {
    throw canopy::error("a kernel-side canopy function (ids, atomics, barriers, collectives) was called "
                        "outside a kernel; call it from code run by canopy::launch");
}

void yield(work_item& w) { w.eng->yield_from(w); }

void device_assert_failed(const char* expr, const char* msg, const char* file, unsigned line) {
    work_item& w = self();
    w.eng->fail_in_fiber(
        fmt::format("device assertion failed: block {} work-item {} (lane {} of sub-group {}): "
                    "{} ({}) at {}",
                    w.block, w.thread, w.lane, w.subgroup, msg, expr, format_site(site{file, line})));
}

void* block_shared(const void* key, std::size_t size, std::size_t align) {
    work_item& w = self();
    return w.eng->block_shared(w, key, size, align);
}

void* dynamic_shared() {
    work_item& w = self();
    return w.eng->dynamic_shared(w);
}

void block_barrier(site where) {
    work_item& w = self();
    // Timeline (--trace): a sub-group's barrier span is its lane 0's wait.
    const bool traced = w.timeline != nullptr && w.lane == 0;
    const std::uint64_t since = traced ? trace_now(w) : 0;
    w.eng->block_barrier(w, where);
    if (traced) {
        trace_record(w, trace_kind::barrier, since, 0);
    }
}

const std::uint64_t* collective(collective_kind kind, std::uint64_t value, site where, lane_mask* mask) {
    work_item& w = self();
    if (w.profile) [[unlikely]] {
        const std::uint64_t c0 = w.clock; // the wait for the sub-group's latest lane, and the rendezvous
        const std::uint64_t* r = w.eng->collective(w, kind, value, where, mask);
        profile_access(w, where, site_op::collective, c0);
        return r;
    }
    return w.eng->collective(w, kind, value, where, mask);
}

void spin_wait(site where) {
    work_item& w = self();
    w.eng->spin_wait(w, where);
}

void spin_done() { self().in_spin = false; }

std::uint64_t spin_limit() { return self().eng->spin_limit(); }

const char* to_string(collective_kind k) {
    switch (k) {
    case collective_kind::ballot: return "ballot";
    case collective_kind::any: return "any";
    case collective_kind::all: return "all";
    case collective_kind::broadcast: return "broadcast";
    case collective_kind::shuffle: return "shuffle";
    case collective_kind::scan: return "exclusive_scan";
    case collective_kind::barrier: return "subgroup_barrier";
    }
    return "?";
}

} // namespace canopy::emu
