// canopy/runtime/run.hpp — the host API: a task set, its seeds, and run(config) -> stats.
//
//   canopy::runtime::task_set<fib> ts{fib{counter_ptr}};
//   ts.seed<fib>({20});
//   canopy::runtime::stats s = ts.run({.policy = canopy::runtime::policy::hrf_indirect});
//
// Errors are exceptions: canopy::error for a bad configuration or a failed run (the message names the
// queue and its level for an overflow), canopy::device_error when the kernel itself fails.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "canopy/platform/device_info.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/kernel_timer.hpp"
#include "canopy/platform/launch.hpp"
#include "canopy/platform/launch_report.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/stream.hpp"
#include "canopy/runtime/config.hpp"
#include "canopy/runtime/layout.hpp"
#include "canopy/runtime/priority_words.hpp"
#include "canopy/runtime/ring_scheduler.hpp"
#include "canopy/runtime/scheduler.hpp"
#include "canopy/runtime/stats.hpp"
#include "canopy/runtime/status.hpp"
#include "canopy/runtime/system_level.hpp"
#include "canopy/runtime/task_context.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"

namespace canopy::runtime {

/// The runtime's shared state, read from the run's device buffer piece by piece (the two counters and
/// each queue's control words, never the whole buffer), in one line per non-empty or locked queue: for
/// failure reports. Device memory as the host sees it (a scoped-cache run's dirty L1 lines are not in
/// it). Throws canopy::error when the device cannot be read (a GPU context lost to a kernel fault).
inline std::string describe_state(const device_buffer<unsigned>& mem, const layout& L) {
    unsigned head2[2] = {};
    mem.download_at(L.status, head2, 2);
    std::string s = "runtime state: outstanding tasks " + std::to_string(head2[L.outstanding - L.status]) +
                    ", status word " + std::to_string(head2[0]);
    const auto queue = [&](const std::string& what, layout::offset at) {
        unsigned w[queues::front_queue::control_words] = {};
        mem.download_at(at, w, queues::front_queue::control_words);
        // Locked core: [lock, head, tail, advert]; ring core: [tail, head, advert, spare] (no lock).
        const unsigned lock = L.rings ? 0 : w[0], head = w[1], tail = L.rings ? w[0] : w[2];
        if (lock != 0 || head != tail) {
            s += "\n  " + what + ": " + std::to_string(tail - head) + " front(s) (head " +
                 std::to_string(head) + ", tail " + std::to_string(tail) + ")" + (lock ? ", locked" : "");
        }
    };
    for (unsigned k = 0; k < L.device_rings; ++k) {
        queue(L.device_rings == 1 ? std::string("device queue") : "device ring " + std::to_string(k),
              L.device_ring_at(k));
    }
    if (L.far_capacity != 0) {
        queue("far queue (order priority)", L.far_queue);
    }
    for (unsigned wg = 0; wg < L.workgroups; ++wg) {
        queue("work-group queue " + std::to_string(wg), L.workgroup_queue_at(wg));
    }
    return s;
}

/// describe_state, or why it could not be read.
inline std::string try_describe_state(const device_buffer<unsigned>& mem, const layout& L) {
    try {
        return describe_state(mem, L);
    } catch (const error& e) {
        return std::string("runtime state unreadable (") + e.what() + ")";
    }
}

namespace detail {
/// On the emulator, how to replay the run that failed (the deterministic scheduler's seed); nothing on
/// a GPU, where a run is not replayable.
inline std::string replay_hint() { return launch_replay_hint(); }

/// Persistent body: the participating work-group id and count from occupancy discovery.
template <class Sched> struct persistent_body {
    Sched s;
    CANOPY_DEVICE void operator()() const { s(sync::p_group_id(), sync::p_num_groups()); }
};
/// Plain grid: every launched work-group takes part.
template <class Sched> struct plain_kernel {
    Sched s;
    // The grid's size as an argument (the host's grid), as the persistent body passes its discovered
    // count, rather than read from the grid register in the kernel. Measured, not derived: with
    // service_request's level built once (scheduler.hpp) it brings steal-emulated's locked plain
    // kernels back to 853e99d's registers (ptxas -v, sm_90: UTS 80 -> 72, BFS and SSSP 56 -> 48), and
    // no kernel of the five workload TUs is then worse than 853e99d's (docs/runtime.md, "Registers").
    unsigned nwg;
    CANOPY_DEVICE void operator()() const { s(block_id(), nwg); }
};
/// Several devices in one emulated launch (config::devices; system_level.hpp): work-group b is work-group
/// b / D of device b % D (the emulator puts it on a CU of that device: emu::options::devices), and runs
/// that device's scheduler over that device's buffer.
template <class Sched> struct system_kernel {
    Sched s;
    unsigned* mems[system_layout::max_devices];
    unsigned devices;
    CANOPY_DEVICE void operator()() const {
        Sched x = s;
        const unsigned d = block_id() % devices;
        x.mem = mems[d];
        x.dev = d;
        x(block_id() / devices, grid_dim() / devices);
    }
};
} // namespace detail

template <class... Tasks> class task_set {
  public:
    static constexpr unsigned W = payload_words<Tasks...>;

    explicit task_set(Tasks... t) : tasks_(t...) {}

    /// Adds a seed task (run before anything is spawned; placed in the device queue).
    template <class Task> void seed(const typename Task::payload& p) {
        detail::check_payload<Task>();
        std::array<unsigned, W> w{};
        std::memcpy(w.data(), &p, sizeof(p));
        seeds_.push_back({::canopy::runtime::detail::index_of<Task, Tasks...>::value, w});
    }
    void clear_seeds() { seeds_.clear(); }

    /// Runs the tasks under c.policy. The test-only broken-* policies are refused here, so that no
    /// library run, graph, UTS or example instantiates them: tests and `canopy stress` run them through
    /// run_allowing_broken (broken_policies.hpp).
    ///
    /// The returned stats' device_ms is the kernel's own time (kernel_timer.hpp). A caller that runs
    /// several launches as one algorithm (rounds) passes its own `timer`: each launch adds its marks,
    /// and timer->total() spans them all, from the first kernel's start to the last one's end.
    stats run(const config& c, kernel_timer* timer = nullptr) const {
        switch (c.policy) {
        case policy::hrf_direct: return run_with<policy::hrf_direct>(c, timer);
        case policy::hrf_indirect: return run_with<policy::hrf_indirect>(c, timer);
        case policy::steal_emulated: return run_with<policy::steal_emulated>(c, timer);
#if CANOPY_RUNTIME_HAS_RSP
        case policy::steal_rsp: return run_with<policy::steal_rsp>(c, timer);
#else
        case policy::steal_rsp:
            throw error(std::string("canopy::runtime: policy ") + to_string(c.policy) +
                        " needs remote-scope promotion, which only the CPU emulator models");
#endif
        case policy::broken_donation:
        case policy::broken_steal:
            throw error(std::string("canopy::runtime: policy ") + to_string(c.policy) +
                        " is broken on purpose and runs only through run_allowing_broken() "
                        "(canopy/runtime/broken_policies.hpp: tests, canopy stress --with-broken-policies)");
        }
        throw error("canopy::runtime: unknown policy");
    }

    /// The run under policy P, chosen at compile time (run() and run_allowing_broken() dispatch here).
    template <policy P> stats run_with(const config& c, kernel_timer* timer = nullptr) const {
        if (c.queues == queue_design::ring) {
            return run_core<P, ring_scheduler<P, Tasks...>>(c, timer);
        }
        if (c.order != task_order::lifo) {
            throw error(std::string("canopy::runtime: task order ") + to_string(c.order) +
                        " needs the ring core (the locked core is the HRF paper's depth-first design); use "
                        "queues = ring");
        }
        return run_core<P, scheduler<P, Tasks...>>(c, timer);
    }

  private:
    struct seed_entry {
        unsigned type;
        std::array<unsigned, W> words;
    };

    /// What validate() settles before anything is allocated: the device, its sub-group size, the
    /// devices of the run and the grid.
    struct run_shape {
        device_info info;
        unsigned F, D, grid;
        std::size_t shared_bytes; // the launch's dynamic shared memory: staging's, or 0 (in the buffer)
    };

    /// The run's device memory: one buffer per device, and the system level's (several devices).
    struct run_buffers {
        std::vector<device_buffer<unsigned>> mems;
        device_buffer<unsigned> sys;
    };

    /// Ring capacities are powers of two: slot = index & (capacity - 1) survives the 32-bit wrap of
    /// the unbounded indices (front_queue.hpp). Anything else would put two fronts in one slot.
    static void check_ring_capacity(unsigned cap, const char* what) {
        if (!queues::front_queue::valid_capacity(cap)) {
            unsigned up = 1;
            while (up < cap && up < (1U << 31)) {
                up <<= 1;
            }
            throw error(std::string("canopy::runtime: ") + what + " capacity " + std::to_string(cap) +
                        " is not a power of two (ring slots are index & (capacity - 1)); use " +
                        std::to_string(up > 1 ? up >> 1 : 1) + " or " + std::to_string(up));
        }
    }

    /// One run: validate, lay out and seed, allocate, launch, collect the stats.
    template <policy P, class sched_t> stats run_core(const config& c, kernel_timer* timer) const {
        constexpr bool rings = !std::is_same_v<sched_t, scheduler<P, Tasks...>>;
        const run_shape r = validate<P, rings, sched_t>(c);
        const layout L = make_layout<rings>(c, r);
        run_buffers b = make_buffers(c, L, seed_image<rings>(c, L, r.F), r.D);
        const sched_t s = make_scheduler<P, sched_t>(c, L, b, r.D);
        kernel_timer own;
        kernel_timer& t = timer != nullptr ? *timer : own;
        double seconds = 0;
        const unsigned participants = launch_run<rings>(c, s, b, L, r, t, seconds);
        stats st = collect_stats(c, L, b, r, participants, seconds);
        st.device_ms = t.last_ms();
        return st;
    }

    /// The configuration against the device and the core, before anything is allocated: throws
    /// canopy::error naming the fix.
    template <policy P, bool rings, class sched_t> run_shape validate(const config& c) const {
        const device_info info = query_device();
        const unsigned F = info.subgroup_size;
        if (c.block == 0 || F == 0 || c.block % F != 0) {
            throw error("canopy::runtime: block " + std::to_string(c.block) +
                        " is not a multiple of the sub-group size " + std::to_string(F));
        }
        if (c.private_capacity == 0 || c.workgroup_capacity == 0 || c.device_capacity == 0 ||
            c.staging_capacity == 0) {
            throw error("canopy::runtime: every queue capacity must be at least 1 front (staging: 1 task)");
        }
        const unsigned D = c.devices == 0 ? 1u : c.devices;
        if (D > 1) {
            // The system level (system_level.hpp) is the ring core's, and several devices in one launch
            // are the emulator's: a GPU build would launch once per device with peer memory (not built).
            if constexpr (!rings) {
                throw error("canopy::runtime: several devices need the ring core (queues = ring)");
            }
#if !defined(CANOPY_BACKEND_CPU)
            throw error(
                "canopy::runtime: several devices in one run (config::devices = " + std::to_string(D) +
                ") run on the emulator only for now; on a GPU use one device, or one MPI rank per "
                "device (docs/scale-out.md)");
#endif
            if constexpr (P == policy::hrf_direct) {
                // HRF-direct composes only chains of one scope: a front that reaches a device through
                // the system ring (system scope) and then its lanes (the hand-off, device scope) would be
                // a race there (the race detector finds it), so every queue would have to be at system
                // scope. HRF-indirect's transitivity is what lets the levels keep their own scopes.
                throw error("canopy::runtime: several devices need a policy whose model composes scopes: "
                            "hrf-direct synchronizes every chain at one scope, so each of its hand-offs "
                            "would have to be at system scope; use hrf-indirect, steal-emulated or "
                            "steal-rsp");
            }
            if constexpr ((detail::is_join_continuation<Tasks> || ...)) {
                // A join record's count is a device-scope atomic in one device's memory: a child on
                // another device would count it down at a scope that does not reach it.
                throw error("canopy::runtime: a task set with join continuations (a task whose payload is "
                            "join_payload) runs on one device: set config::devices = 1");
            }
            if (D > system_layout::max_devices) {
                throw error("canopy::runtime: config::devices = " + std::to_string(D) + " exceeds the " +
                            std::to_string(system_layout::max_devices) + " the system level holds");
            }
        }
        const std::size_t shared = staging_shared_bytes<sched_t>(c, info);
        unsigned grid = c.grid;
        if (c.persistent || grid == 0) {
            grid = sync::persistent_grid<detail::persistent_body<sched_t>>(c.block, shared);
        }
        if (grid == 0) {
            throw error("canopy::runtime: block " + std::to_string(c.block) +
                        " cannot launch on this device");
        }

        check_ring_capacity(c.private_capacity, "private queue");
        check_ring_capacity(c.workgroup_capacity, "work-group queue");
        check_ring_capacity(c.device_capacity, "device queue");
        if (D > 1) {
            check_ring_capacity(c.system_capacity, "system ring");
            if (c.system_capacity < 2) {
                throw error("canopy::runtime: the system ring needs at least 2 fronts");
            }
        }
        if (rings && (c.workgroup_capacity < 2 || c.device_capacity < 2)) {
            // A lock-free ring of one slot cannot tell "published for ticket i" from "free for ticket
            // i + 1": both are sequence value i + 1 (front_ring.hpp).
            throw error(
                "canopy::runtime: the ring core's work-group and device queues need at least 2 fronts "
                "(work-group " +
                std::to_string(c.workgroup_capacity) + ", device " + std::to_string(c.device_capacity) +
                "); use 2 or more, or queues = locked");
        }
        return {info, F, D, grid, shared};
    }

    /// Staging's bytes of dynamic shared memory per work-group when config::staging_in_shared and they
    /// fit without lowering the device's residency (a persistent launch's grid, or a plain one's waves);
    /// else 0: staging stays in the run's buffer.
    template <class sched_t>
    static std::size_t staging_shared_bytes(const config& c, const device_info& info) {
        const std::size_t bytes =
            std::size_t{c.block} * c.staging_capacity * staged_words<Tasks...> * sizeof(unsigned);
        // Room left for the kernel's own block-shared words (occupancy discovery's participation).
        constexpr std::size_t static_room = 256;
        if (!may_stage_in_shared<Tasks...> || !c.staging_in_shared ||
            bytes + static_room > info.shared_bytes_per_block) {
            return 0;
        }
        using body = detail::persistent_body<sched_t>;
        const unsigned without = sync::persistent_grid<body>(c.block);
        return without != 0 && sync::persistent_grid<body>(c.block, bytes) == without ? bytes : 0;
    }

    /// Where every part of the run's buffer lives; refuses a buffer larger than the device's memory.
    template <bool rings> static layout make_layout(const config& c, const run_shape& r) {
        const device_info& info = r.info;
        const unsigned F = r.F, grid = r.grid;
        layout L;
        L.shape = {F, W};
        L.workgroups = grid;
        L.subgroups_per_block = c.block / F;
        L.private_capacity = c.private_capacity;
        L.workgroup_capacity = c.workgroup_capacity;
        L.device_capacity = c.device_capacity;
        L.staging_capacity = c.staging_capacity;
        L.staged_words = staged_words<Tasks...>;
        L.counters = num_counters;
        L.rings = rings;
        L.staging_shared = r.shared_bytes != 0;
        if constexpr (rings) {
            const unsigned per = c.workgroups_per_device_ring == 0 ? 1u : c.workgroups_per_device_ring;
            L.device_rings = c.device_rings != 0 ? c.device_rings : (grid + per - 1) / per;
            L.device_rings = L.device_rings == 0 ? 1u : L.device_rings > grid ? grid : L.device_rings;
        }
        const bool prio = rings && c.order == task_order::priority;
        if (prio) {
            L.far_capacity = c.far_capacity != 0 ? c.far_capacity : c.device_capacity;
            check_ring_capacity(L.far_capacity, "far queue");
            if (L.far_capacity < 2 || c.priority_delta == 0) {
                throw error("canopy::runtime: order priority needs a far queue of at least 2 fronts and a "
                            "priority_delta of at least 1");
            }
        }
        L.finish();
        const unsigned long long bytes = L.total * sizeof(unsigned);
        if (info.global_memory_bytes != 0 && bytes > info.global_memory_bytes) {
            throw error("canopy::runtime: the run's queues and staging buffers need " +
                        std::to_string(bytes >> 20) + " MiB for " + std::to_string(grid) +
                        " work-groups, more than the device's " +
                        std::to_string(info.global_memory_bytes >> 20) +
                        " MiB; lower the capacities (staging: " + std::to_string(c.staging_capacity) +
                        " tasks per lane, private: " + std::to_string(c.private_capacity) +
                        " fronts per sub-group) or the grid");
        }
        return L;
    }

    /// The host's images of what the buffer holds at the start: `head`, [0, workgroup_queues) (the
    /// status, the outstanding count, order priority's words and device ring 0), and, on the ring core,
    /// `more[k - 1]` for each further device ring k that holds seeds: its control words and its seed
    /// fronts only (the rest of the buffer is zeroed on the device).
    struct start_image {
        std::vector<unsigned> head;
        std::vector<std::vector<unsigned>> more;
    };

    /// The seeds, packed by type into fronts (partial fronts at the start, HRF §7.1) and dealt round
    /// the device rings (ring core): every work-group polls its home ring first, so a sub-group finds a
    /// seed front at its first pick instead of probing ring after ring for ring 0's (mdual's colouring,
    /// 8,192 seed ranges on hrf32: a median of 46 K cycles before a sub-group's first front).
    template <bool rings> start_image seed_image(const config& c, const layout& L, unsigned F) const {
        const bool prio = rings && c.order == task_order::priority;
        // Only these words have content at the start. The rest is zeroed on the device (no host image of
        // the buffer: at scale it is gigabytes), and only what the host needs is read back.
        start_image img;
        img.head.assign(L.workgroup_queues, 0u);
        // Fronts per type (a front holds F seeds of one type, at most its front width on the ring core,
        // as the ring core packs children: task_context.hpp's type_front_width), then front i goes to
        // ring i % R.
        const auto width = [&](unsigned t) { return rings ? type_front_width<Tasks...>(t, F) : F; };
        unsigned total = 0;
        for (unsigned t = 0; t < sizeof...(Tasks); ++t) {
            unsigned n = 0;
            for (const seed_entry& s : seeds_) {
                n += s.type == t ? 1u : 0u;
            }
            total += (n + width(t) - 1) / width(t);
        }
        const unsigned R = rings ? std::max(1u, std::min(L.device_rings, total)) : 1u;
        for (unsigned k = 1; k < R; ++k) {
            const unsigned fronts_k = std::min((total - k + R - 1) / R, c.device_capacity);
            img.more.emplace_back(queues::front_ring::front_at(c.device_capacity, L.shape, fronts_k), 0u);
        }
        const auto ring_image = [&](unsigned k) {
            return k == 0 ? img.head.data() + L.device_queue : img.more[k - 1].data();
        };
        std::vector<unsigned> in_ring(R, 0u);
        unsigned fronts = 0;
        for (unsigned t = 0; t < sizeof...(Tasks); ++t) {
            unsigned in_front = 0;
            unsigned* f = nullptr;
            for (const seed_entry& s : seeds_) {
                if (s.type != t) {
                    continue;
                }
                if (in_front == 0) {
                    const unsigned k = fronts % R;
                    if (in_ring[k] == c.device_capacity) {
                        throw error(describe(encode(failure::device_overflow, 0), c.private_capacity,
                                             c.workgroup_capacity, c.device_capacity, c.staging_capacity) +
                                    " while placing the seeds");
                    }
                    f = ring_image(k) +
                        (rings ? queues::front_ring::front_at(c.device_capacity, L.shape, in_ring[k])
                               : queues::front_queue::control_words + in_ring[k] * L.shape.words());
                    ++in_ring[k];
                    ++fronts;
                }
                f[0] = t;
                f[1] = in_front + 1;
                std::memcpy(f + 2 + in_front * W, s.words.data(), W * sizeof(unsigned));
                in_front = (in_front + 1) % width(t);
            }
        }
        if constexpr (rings) {
            for (unsigned k = 0; k < R; ++k) {
                queues::front_ring::seed_image(ring_image(k), in_ring[k]);
            }
        } else {
            img.head[L.device_queue + 2] = fronts; // tail
        }
        img.head[L.outstanding] = static_cast<unsigned>(seeds_.size());
        if (prio) {
            priority_words::seed(img.head.data() + L.priority, c.priority_delta);
        }
        return img;
    }

    /// Device memory for every device (device 0 gets the head image) and the system level.
    run_buffers make_buffers(const config& c, const layout& L, const start_image& img, unsigned D) const {
        const std::vector<unsigned>& head = img.head;
        // Several devices: one buffer each (device 0 holds the seeds, the others start empty), and the
        // system buffer, whose credits start at 1 for device 0 when it holds seeds (system_level.hpp).
        const bool prio = L.far_capacity != 0;
        std::vector<device_buffer<unsigned>> mems;
        for (unsigned d = 0; d < D; ++d) {
            mems.emplace_back(L.total);
            mems.back().fill_zero();
            if (d == 0) {
                mems.back().upload_at(0, head.data(), head.size());
                for (std::size_t k = 1; k <= img.more.size(); ++k) {
                    mems.back().upload_at(L.device_ring_at(static_cast<unsigned>(k)), img.more[k - 1].data(),
                                          img.more[k - 1].size());
                }
            } else if (prio) { // no seeds, and the priority words as device 0's
                mems.back().upload_at(L.priority, head.data() + L.priority, priority_words::count);
            }
        }
        // Allocated after the devices' buffers, as it always was: the emulator's memory models key their
        // caches by address, so the order keeps a seed's timed schedule comparable across versions.
        run_buffers b{std::move(mems),
                      device_buffer<unsigned>(D > 1 ? system_layout::words(c.system_capacity, L.shape) : 1)};
        b.sys.fill_zero();
        if (D > 1 && !seeds_.empty()) {
            const unsigned one = 1;
            b.sys.upload_at(system_layout::credits, &one, 1);
        }
        return b;
    }

    /// The core the kernel runs, over device 0's buffer (the system kernel re-points it per device).
    template <policy P, class sched_t>
    sched_t make_scheduler(const config& c, const layout& L, const run_buffers& b, unsigned D) const {
        constexpr bool rings = !std::is_same_v<sched_t, scheduler<P, Tasks...>>;
        const core_base<P, Tasks...> core{
            tasks_,         b.mems[0].data(),         L, c.workgroup_threshold, c.device_threshold,
            c.keep_private, c.max_donations_per_point};
        return [&] {
            if constexpr (rings) {
                sched_t r{core, c.order, c.max_share_per_point == 0 ? 1u : c.max_share_per_point,
                          c.priority_delta};
                r.sys = b.sys.data();
                r.devices = D;
                r.system_capacity = c.system_capacity;
                r.system_poll = c.system_poll == 0 ? 1u : c.system_poll;
                r.system_stock = c.system_stock == 0 ? 1u : c.system_stock;
                return r;
            } else {
                return sched_t{core};
            }
        }();
    }

    /// The launch (persistent, plain, or one over several emulated devices), waited for; a failed
    /// kernel's error carries the queues' state. Returns the participating work-groups; `seconds` the
    /// launch's host wall time; the kernel alone is timed into `t`.
    template <bool rings, class sched_t>
    static unsigned launch_run(const config& c, const sched_t& s, run_buffers& b, const layout& L,
                               const run_shape& r, kernel_timer& t, double& seconds) {
        const unsigned D = r.D, grid = r.grid;
        std::vector<device_buffer<unsigned>>& mems = b.mems;
        const auto t0 = std::chrono::steady_clock::now();
        unsigned participants = grid;
        try {
            if (D > 1) {
                if constexpr (rings && launch_spans_devices) {
                    detail::system_kernel<sched_t> k{s, {}, D};
                    for (unsigned d = 0; d < D; ++d) {
                        k.mems[d] = mems[d].data();
                    }
                    // One launch stands for one per device, all at once.
                    timed_launch(&t, [&] {
                        launch_on_devices(
                            {.grid = grid * D, .block = c.block, .shared_bytes = r.shared_bytes}, D, k);
                    });
                    participants = grid * D;
                }
            } else if (c.persistent) {
                sync::discovery_context ctx(grid);
                // Returns after reading the participant count back: the kernel has finished.
                participants =
                    sync::launch_persistent({.grid = grid, .block = c.block, .shared_bytes = r.shared_bytes},
                                            ctx, detail::persistent_body<sched_t>{s}, &t);
            } else {
                timed_launch(&t, [&] {
                    launch({.grid = grid, .block = c.block, .shared_bytes = r.shared_bytes},
                           detail::plain_kernel<sched_t>{s, grid});
                });
            }
            // A GPU launch is asynchronous: wait for the kernel, so that `seconds` covers it and a
            // kernel fault surfaces here, inside the report below.
            device_synchronize();
        } catch (const error& e) {
            // A kernel that failed (the emulator's deadlock report, a GPU fault) leaves its queues
            // behind: say what the runtime was holding, so that a lost task and a stuck lock look
            // different. After a GPU fault the context may be lost and the state unreadable: say so.
            const std::string msg = std::string(e.what()) + "\n" + state_of(mems, L);
            if (dynamic_cast<const device_error*>(&e) != nullptr) {
                throw device_error(msg);
            }
            throw error(msg);
        }
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return participants;
    }

    /// After the kernel: the status words (a failure throws with the queues' state and the replay
    /// hint), then the sub-groups' counter rows summed, the emulator's memory counters beside them.
    static stats collect_stats(const config& c, const layout& L, const run_buffers& b, const run_shape& r,
                               unsigned participants, double seconds) {
        const unsigned D = r.D, F = r.F, grid = r.grid;
        const std::vector<device_buffer<unsigned>>& mems = b.mems;
        stats st;
        st.seconds = seconds;
        static_cast<launch_memory_counters&>(st) = last_launch_memory(); // zero on GPUs
        st.races = last_launch_races();                                  // checked only on the emulator
        for (unsigned d = 0; d < D; ++d) {
            unsigned status_word = 0;
            mems[d].download_at(L.status, &status_word, 1);
            if (status_word != 0) {
                // The same report as a failed emulator launch: what failed, and the queues' state.
                // Appends, not operator+ chains on literals: g++ 12 -O3 warns -Wrestrict on those (a
                // false positive, but the installed examples build with -Werror).
                std::string msg;
                if (D > 1) {
                    msg.append("device ").append(std::to_string(d)).append(": ");
                }
                msg.append(describe(status_word, c.private_capacity, c.workgroup_capacity, c.device_capacity,
                                    c.staging_capacity));
                msg.append(::canopy::runtime::detail::replay_hint()).append("\n").append(state_of(mems, L));
                throw error(msg);
            }
        }
        std::vector<unsigned> rows(static_cast<std::size_t>(L.total - L.stats));
        st.tasks_per_device.assign(D, 0);
        for (unsigned d = 0; d < D; ++d) {
            mems[d].download_at(L.stats, rows.data(), rows.size());
            const std::uint64_t before = st.total_tasks();
            for (unsigned i = 0; i < L.subgroups(); ++i) {
                st.add_row(rows.data() + static_cast<std::size_t>(i) * L.counters);
            }
            st.tasks_per_device[d] = st.total_tasks() - before;
        }
        st.workgroups = grid * D;
        st.participants = participants;
        st.subgroups = L.subgroups() * D;
        st.subgroup_size = F;
        st.devices = D;
        return st;
    }

    /// try_describe_state of every device's buffer (one device: as before).
    static std::string state_of(const std::vector<device_buffer<unsigned>>& mems, const layout& L) {
        if (mems.size() == 1) {
            return try_describe_state(mems[0], L);
        }
        std::string s;
        for (std::size_t d = 0; d < mems.size(); ++d) {
            s.append(d != 0 ? "\ndevice " : "device ").append(std::to_string(d)).append(": ");
            s.append(try_describe_state(mems[d], L));
        }
        return s;
    }

    std::tuple<Tasks...> tasks_;
    std::vector<seed_entry> seeds_;
};

} // namespace canopy::runtime
