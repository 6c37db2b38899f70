// canopy/workloads/graph/strategies.hpp — three ways to run a min-label graph problem (problems.hpp)
// on a device, over platform/ only:
//
//   multi-kernel  level-synchronous (BSP; Pannotia, Gunrock): the host launches one kernel per phase;
//                 each expands the current frontier into the next and the host reads back the next
//                 frontier's size, which is the stop flag (0: done). launches == iterations.
//   persistent    one launch (Sorensen et al., OOPSLA 2016): occupancy discovery picks co-resident
//                 work-groups, which grid-stride over the frontier (p_global_id / p_global_size) and
//                 meet at the XF barrier between phases. barriers == iterations.
//   tasks         asynchronous label-correcting on canopy's runtime (Atos style): a vertex task relaxes
//                 its out-arcs and spawns a vertex task for each neighbour it improved; a vertex of
//                 more than `fan_out` arcs spawns edge-range tasks instead (as UTS's range_task), so no
//                 lane walks a long adjacency list and no task stages more than fan_out tasks.
//                 Termination is the runtime's exact termination (counted outstanding tasks). In
//                 rounds of label width tasks_delta: improvements beyond the round's cap are deferred
//                 to the next round's launch (Delta-stepping), which bounds the re-lowering that the
//                 runtime's depth-first order causes; tasks_delta 0 is one fully asynchronous round.
//
// The frontier skeleton (multi-kernel, persistent): a frontier is a queue of vertex ids (capacity: the
// vertex count) and a count. Expanding vertex u relaxes each arc u->v with an atomic min on label[v];
// the lane that lowered label[v] appends v to the next frontier, once per phase (BFS: the lowering
// itself happens once per phase; SSSP: a per-vertex stamp, exchanged to the phase number, elects one
// appender). A frontier vertex is expanded with its label as it is when it is read, which may already
// be lower than when it was queued (SSSP): still an upper bound of its distance, so still sound.
//
// Memory orders and scopes, and why:
// - Labels: relaxed device-scope atomics (load, fetch_min). A label is monotone and carries no other
//   data, so no ordering is needed with anything else; device scope because any work-group may relax
//   any vertex. (tasks_scope narrows labels (and their pending bits) to work-group scope in a test-only
//   variant, to show that the scoped-cache model catches it: two compute units' L1s then each hold
//   their own "minimum".)
// - Stamps and the next frontier's count: relaxed device-scope RMWs; they elect an appender and a slot,
//   and carry nothing themselves.
// - Frontier entries: plain stores (st) and loads (ld). The writer and readers are in different phases,
//   and phases are ordered by the kernel boundary (multi-kernel) or by the XF barrier's device-scope
//   release/acquire (persistent), which is what makes plain accesses race-free here.
// - Tasks: at most one vertex task per vertex is pending (queued, not started). The tasks strategy keeps
//   a vertex's label and its "no task pending" bit in one word, label << 1 | ready (packed_label), so
//   that lowering a label and finding whether a task is queued is one RMW, and so is a task's start:
//   it sets the ready bit (fetch_or) and reads the label it returns. A relaxation fetch_mins the word
//   with nl << 1 (ready clear): the old word says whether it lowered the label and whether a task was
//   queued; it spawns one exactly when the old word had the bit set. Everything is relaxed at device
//   scope: the label travels in the very word that says a task is pending, so coherence of that one
//   location (every RMW reads the latest value in its modification order) hands every improvement to
//   the queued task or to a new one, with no message passing. (The first design kept a separate flag:
//   its release on every improvement flushed the L1, and its acquire at every task start invalidated
//   it, so a front's later graph loads missed: mdual BFS on timed hrf32 ran 824,732 cycles, 1.60x of
//   multi-kernel.) A deferred improvement (beyond the round's cap) keeps the bit as it is (a CAS).
//   This bounds the queued vertex tasks by the vertex count (without it, a depth-first runtime order
//   on a mesh queued 3.5 tasks per vertex of 4elt and overflowed a private queue). The payloads
//   themselves travel through the runtime's queues, whose hand-offs are release/acquire at the
//   policy's scopes (docs/scopes.md). An edge-range task carries the label its vertex had at the split
//   and skips itself when the label in memory is lower (the lowering made or found a vertex task).
// - Results: the host reads the labels after the launch(es) have finished.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"
#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/problems.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

enum class strategy { multi_kernel, persistent, tasks };
inline constexpr strategy all_strategies[] = {strategy::multi_kernel, strategy::persistent, strategy::tasks};

constexpr const char* to_string(strategy s) {
    return s == strategy::multi_kernel ? "multi-kernel" : s == strategy::persistent ? "persistent" : "tasks";
}
/// Parses "multi-kernel", "persistent" or "tasks"; throws canopy::error naming the choices otherwise.
inline strategy parse_strategy(const std::string& s) {
    for (strategy x : all_strategies) {
        if (s == to_string(x)) {
            return x;
        }
    }
    throw error("canopy graph: unknown strategy '" + s + "' (valid: multi-kernel, persistent, tasks)");
}

/// Most tasks one task stages, and most arcs one task relaxes: within the runtime's staging buffer
/// (run_options' default holds 16 tasks per lane). Meshes have degrees up to ~17: 16 keeps almost every
/// vertex of them in one task.
inline constexpr unsigned fan_out = 16;

/// Splits [lo, hi) into at most fan_out pieces of at least fan_out items each and calls piece(b, e) on
/// each, in order: a range just above fan_out splits in two, not into fan_out slivers (4elt's degrees of
/// 9..17 split into 1-arc ranges were 4 range tasks per vertex), and a huge range splits into a tree of
/// depth log_fan_out(size). Every task that walks a range too long for one task (an adjacency list, a
/// block of seed vertices) spawns its pieces through this one rule.
template <class Index, class Piece> CANOPY_DEVICE void split_range(Index lo, Index hi, Piece&& piece) {
    const Index n = hi - lo;
    const Index want = (n + fan_out - 1) / fan_out;
    const Index pieces = want < fan_out ? want : fan_out;
    const Index chunk = (n + pieces - 1) / pieces;
    for (Index b = lo; b < hi; b += chunk) {
        piece(b, b + chunk < hi ? b + chunk : hi);
    }
}

/// Seeds a pass over the vertices [0, n) as one range of Task (payload {lo, hi}) per work-item the device
/// holds resident, at most as many as the device ring holds (c.device_capacity fronts), instead of one
/// range that splits log_fan_out(n) times before most sub-groups have work; the runtime deals the seed
/// fronts round the device rings. On timed hrf32 (8,192 work-items), against one range: the DAG colouring
/// of 4elt 297 K -> 186 K cycles, mdual 513 K -> 370 K; speculative colouring of copter2 293 K -> 129 K.
template <class Task, class Set> void seed_vertex_ranges(Set& ts, vertex_id n, const runtime::config& c) {
    const device_info d = query_device();
    const std::uint64_t resident = std::uint64_t{d.compute_units} * d.max_threads_per_cu;
    const std::uint64_t room = std::uint64_t{c.device_capacity} * d.subgroup_size;
    const std::uint64_t pieces = std::max<std::uint64_t>(1, std::min({resident, room, std::uint64_t{n}}));
    const std::uint64_t chunk = (n + pieces - 1) / pieces;
    for (std::uint64_t b = 0; b < n; b += chunk) {
        const std::uint64_t e = std::min<std::uint64_t>(b + chunk, n);
        ts.template seed<Task>(typename Task::payload{static_cast<vertex_id>(b), static_cast<vertex_id>(e)});
    }
}

/// A range of at most fan_out items runs each(i) on every item in this task; a longer one is split
/// (split_range) and piece(b, e) spawns a task for each piece.
template <class Index, class Each, class Piece>
CANOPY_DEVICE void each_or_split(Index lo, Index hi, Each&& each, Piece&& piece) {
    if (hi - lo <= fan_out) {
        for (Index i = lo; i < hi; ++i) {
            each(i);
        }
        return;
    }
    split_range(lo, hi, piece);
}

/// The longest range a lane brings to a cooperative front; a longer one is split into range tasks (as
/// a lane's own task did), so that a hub's adjacency spreads over sub-groups. A front then holds at most
/// F x together_max arcs, at most together_max per lane, and a lane stages at most fan_out +
/// together_max tasks: the pieces of its own split and one per arc it relaxes (the tasks strategy's
/// staging_capacity). Twice fan_out keeps a mesh's whole adjacency (4elt: degrees up to 17) in one
/// front: at fan_out, 4elt's SSSP split its degree-17 vertices into range tasks and ran 17% more
/// tasks and 13% more cycles (three seeds, timed hrf8).
inline constexpr edge_id together_max = 2 * fan_out;
/// The staging a lane of cooperative graph tasks needs (each_together_or_split).
inline constexpr unsigned together_staging = fan_out + static_cast<unsigned>(together_max);

/// Chunks of F items a lane gathers before it works on them (each_together).
inline constexpr unsigned together_batch = 8;

/// Every lane of a cooperative front (task_context.hpp): runs fn(value, i) on every item i of every
/// lane's range [lo, hi) (lo == hi on a lane without one), where `value` is the range's owner's. The
/// ranges are laid end to end (an exclusive sum of their lengths) and lane l takes items l, l + F,
/// l + 2F, ... of that concatenation, finding the range its item lies in by a binary search over the
/// lanes' offsets (shuffles: the offsets are non-decreasing, so the last lane whose offset is at most
/// the item's index owns it, and a lane with an empty range is never that lane). A mesh's partial
/// front of ~30 vertices x ~11 arcs then costs each lane ~5 arcs instead of 11. A lane runs at most
/// ceil(sum of lengths / F) items: at most the longest range's length. (Contiguous blocks per lane,
/// for cache-line locality, measured no better: 4elt BFS 377 K against 374 K cycles, SSSP 965 K
/// against 853 K, three seeds each, timed hrf8.)
///
/// In two phases per batch of together_batch chunks: the lanes first gather their items (collectives
/// only, no memory access), then run them with no collective in between. A collective completes at its
/// latest lane, so working chunk by chunk between shuffles would make every chunk cost its slowest
/// item (for BFS an arc that lowers a label: a load, an RMW and a release flush, ~4x a look that finds
/// the label low already): measured on 4elt's BFS, that made a front's run 7,200 cycles against 4,600
/// for one vertex per lane. Gathered first, each lane pays its own mix of cheap and dear items (3,700).
/// Collectives: every lane reaches each one the same number of times (the loop bounds are uniform).
template <class V, class Fn> CANOPY_DEVICE void each_together(edge_id lo, edge_id hi, V value, Fn&& fn) {
    const unsigned F = subgroup_size();
    const unsigned n = static_cast<unsigned>(hi - lo);
    const unsigned base = exclusive_sum(n);
    const unsigned total = broadcast(base + n, F - 1);
    unsigned top = 1;
    while (top * 2 <= F) {
        top *= 2;
    }
    for (unsigned c0 = 0; c0 < total; c0 += together_batch * F) {
        edge_id item[together_batch];
        V val[together_batch];
        unsigned m = 0;
        for (unsigned b = 0; b < together_batch && c0 + b * F < total; ++b) {
            const unsigned g = c0 + b * F + lane_id();
            unsigned j = 0;
            for (unsigned step = top; step != 0; step >>= 1) {
                const unsigned c = j + step < F ? j + step : F - 1;
                if (shuffle(base, c) <= g && j + step < F) {
                    j = c;
                }
            }
            const edge_id first = shuffle(lo, j);
            const V owner_value = shuffle(value, j);
            const unsigned owner_base = shuffle(base, j);
            if (g < total) {
                item[m] = first + (g - owner_base);
                val[m] = owner_value;
                ++m;
            }
        }
        for (unsigned i = 0; i < m; ++i) {
            fn(val[i], item[i]);
        }
    }
}

/// Every lane of a cooperative front: a lane whose range is longer than together_max hands it to
/// piece(b, e) in at most fan_out pieces (split_range: range tasks, so a hub's adjacency spreads over
/// sub-groups), and the front's remaining ranges run each(value, i) together (each_together). The
/// cooperative counterpart of each_or_split.
template <class V, class Each, class Piece>
CANOPY_DEVICE void each_together_or_split(edge_id lo, edge_id hi, V value, Each&& each, Piece&& piece) {
    if (hi - lo > together_max) {
        split_range(lo, hi, piece);
        hi = lo;
    }
    each_together(lo, hi, value, each);
}

/// The tasks strategy's default round width, measured on the emulator (parallel scheduler, tiny;
/// seconds for mdual.graph / Kronecker SCALE 16 from its hub; docs/graph.md): BFS 1: 1.3 / 0.7, 2:
/// 1.4 / 1.2; SSSP 4: 5.3 / 1.1, 32: 5.1 / 16; one round: >300 s on mdual's BFS. Narrow rounds win there
/// because a re-lowered hub re-runs its whole adjacency; on a GPU a launch costs more (to re-measure).
template <class P> constexpr std::uint64_t default_delta() { return P::improves_once_per_phase ? 2 : 4; }

/// run_options::tasks_delta: the problem's default_delta().
inline constexpr std::uint64_t problem_default_delta = ~std::uint64_t{0};

struct run_options {
    strategy how = strategy::multi_kernel;
    unsigned block = 64; // work-items per work-group (all strategies)
    /// tasks only: the runtime's configuration (policy, queue capacities); block is taken from above.
    runtime::config tasks = default_tasks_config();
    /// tasks only: the scope of the label atomics. device is the only correct one; workgroup exists for
    /// the test that shows the scoped-cache model catching a narrowed scope.
    scope tasks_scope = scope::device;
    /// tasks only: rounds of label width delta (0: one round, fully asynchronous). Round r spawns tasks
    /// for improvements to labels up to (r + 1) * delta - 1 and defers the others to round r + 1 (a
    /// runtime launch each, seeded with the deferred vertices). Asynchronous label-correcting in the
    /// runtime's depth-first order re-lowers a mesh's labels about once per level: one round took
    /// over 5 minutes on mdual.graph's BFS on the emulator; a bounded width bounds that waste
    /// (Delta-stepping; Atos orders its queue for the same reason).
    std::uint64_t tasks_delta = problem_default_delta;
    /// colouring, tasks only: speculative greedy (coloring_speculative.hpp: assign and detect in one
    /// queue, no dependency counters) instead of the priority-order DAG; its colours are not the
    /// sequential greedy's exactly, only proper.
    bool color_speculative = false;
    /// PageRank with an error target, tasks only: block pull by generations (pagerank_blocks.hpp)
    /// instead of residual push (the default; pagerank.hpp).
    bool pagerank_pull = false;
    /// PageRank by block pull: a block's in-arcs at most (0: pr_block_arcs, from the graph and the device:
    /// about three blocks per resident sub-group, 4 to 32 arcs a lane).
    edge_id pagerank_block_arcs = 0;

    /// The tasks strategy's runtime configuration for a graph of `vertices` vertices. Label-correcting
    /// keeps at most one vertex task per vertex queued (packed_label's bit), but the runtime keeps most
    /// of them in the private queue of the sub-group that spawned them (it donates only while the
    /// shared queues run low), so a private queue is sized for a share of the vertex count: V / 32
    /// tasks, i.e. V / 1024 fronts of 32, at least 256 and at most 4096 fronts. (Queues are memory
    /// per sub-group: ~1 MiB per 1024 fronts of 32 lanes.)
    static runtime::config default_tasks_config(runtime::policy p = runtime::policy::hrf_indirect,
                                                vertex_id vertices = 0) {
        runtime::config c;
        c.policy = p;
        // Breadth-first: a vertex reached by a shorter path runs before the longer ones it would
        // otherwise re-lower (the locked core is lifo only: it is the HRF paper's design).
        c.order = runtime::task_order::fifo;
        const unsigned want = vertices / 1024;
        c.private_capacity = want < 256 ? 256 : want > 4096 ? 4096 : want;
        c.workgroup_capacity = 64;
        c.device_capacity = 512;
        c.staging_capacity = together_staging; // a split's pieces and the arcs a lane is dealt
        return c;
    }
};

template <class Label> struct run_result {
    std::vector<Label> labels;    // Problem::unreached where not reached
    std::uint64_t iterations = 0; // phases (multi-kernel, persistent); rounds (tasks)
    std::uint64_t launches = 0;   // kernel launches (tasks: one runtime launch per round)
    std::uint64_t barriers = 0;   // XF barrier episodes (persistent)
    std::uint64_t tasks = 0;      // tasks run (tasks)
    unsigned workgroups = 0;      // participating work-groups (persistent, tasks)
    double seconds = 0;           // host wall time from the first launch to the labels read back
    // The kernels alone (platform/kernel_timer.hpp): span_ms from the first kernel's start to the last
    // one's end, kernels_ms their own times summed. On the emulator, host time (device_clock).
    device_time time;
    runtime::stats stats; // tasks only: the last round's
    // tasks only: every round's donations (to work-group and device queues), steal requests and
    // stolen fronts received, added up (stats holds the last round's alone).
    std::uint64_t donations = 0, steal_requests = 0, steals = 0;
    // PageRank tasks with an error target (pagerank_options::error): the L1 error against x* the run
    // guarantees from what it measured; -1 where the run measured none.
    double guarantee = -1;
    // PageRank tasks by block pull: the generations its rounds ran (each round's last generation any
    // block reached), summed over the rounds; 0 for every other run.
    std::uint64_t generations = 0;
    /// One more runtime launch of a tasks run (a round): its stats, counts and tasks added.
    void add_round(const runtime::stats& s) {
        stats = s;
        donations += s.donations();
        steal_requests += s.steal_requests;
        steals += s.steals_received;
        tasks += s.total_tasks();
        workgroups = s.workgroups;
        ++iterations;
    }
    /// A tasks run that is one runtime launch (and `kernels` - 1 kernels of its own before it), on a
    /// fresh result: its counts are that launch's.
    void one_round(const runtime::stats& s, std::uint64_t kernels = 1) {
        add_round(s);
        launches = kernels;
    }
    /// The run's two clocks at its end: host wall time since `t0`, and the kernels' device time.
    void stop_clocks(std::chrono::steady_clock::time_point t0, kernel_timer& t) {
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        time = t.total();
    }
};

/// The graph's arrays in device memory, and their view.
class device_graph {
  public:
    explicit device_graph(const csr_graph& g)
        : offsets_(to_vec(g.offsets())), targets_(to_vec(g.targets())), weights_(to_vec(g.weights())),
          n_(g.num_vertices()), m_(g.num_edges()) {}
    csr_view view() const {
        return csr_view{offsets_.data(), targets_.data(), weights_.size() != 0 ? weights_.data() : nullptr,
                        n_, m_};
    }

  private:
    template <class T> static std::vector<T> to_vec(std::span<const T> s) { return {s.begin(), s.end()}; }
    device_buffer<edge_id> offsets_;
    device_buffer<vertex_id> targets_;
    device_buffer<weight_t> weights_;
    vertex_id n_;
    edge_id m_;
};

namespace detail {

/// Expands frontier vertex u in phase k: relaxes its out-arcs, appends every vertex it improves to
/// `next` (once per phase). Shared by the multi-kernel and persistent strategies.
template <class P>
CANOPY_DEVICE void expand(const csr_view& g, typename P::label* labels, unsigned* stamps, vertex_id u,
                          unsigned k, vertex_id* next, unsigned* next_count) {
    using L = typename P::label;
    // Relaxed, device scope: see the header comment (labels carry no other data).
    const L lu = atomic_ref<L, scope::device>(labels[u]).load(std::memory_order_relaxed);
    const edge_id end = g.end(u);
    for (edge_id e = g.begin(u); e < end; ++e) {
        const vertex_id v = g.target(e);
        const L nl = P::relax(lu, g, e);
        atomic_ref<L, scope::device> lv(labels[v]);
        if (lv.load(std::memory_order_relaxed) <= nl) {
            continue; // cheap filter: labels only fall, so the RMW could not win
        }
        if (nl >= lv.fetch_min(nl, std::memory_order_relaxed)) {
            continue; // another lane got there first with a label at least as good
        }
        if constexpr (!P::improves_once_per_phase) {
            // One appender per vertex and phase; stamps hold the last phase (+1) that queued them.
            if (atomic_ref<unsigned, scope::device>(stamps[v]).exchange(k + 1, std::memory_order_relaxed) ==
                k + 1) {
                continue;
            }
        }
        const unsigned slot =
            atomic_ref<unsigned, scope::device>(*next_count).fetch_add(1, std::memory_order_relaxed);
        st(&next[slot], v); // read in the next phase, after the kernel boundary or the XF barrier
    }
}

template <class P> struct phase_kernel {
    csr_view g;
    typename P::label* labels;
    unsigned* stamps;
    const vertex_id* cur;
    unsigned cur_count;
    vertex_id* next;
    unsigned* next_count;
    unsigned k;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        for (unsigned i = global_id(); i < cur_count; i += stride) {
            expand<P>(g, labels, stamps, ld(&cur[i]), k, next, next_count);
        }
    }
};

template <class P> struct persistent_phases {
    csr_view g;
    typename P::label* labels;
    unsigned* stamps;
    vertex_id* queue[2];
    unsigned* counts;     // 3 rotating counts: phase k reads counts[k % 3], appends to counts[(k+1) % 3]
    unsigned* iterations; // written once at the end by participant 0
    sync::xf_barrier barrier;
    CANOPY_DEVICE void operator()() const {
        for (unsigned k = 0;; ++k) {
            // Stable during phase k: written in phase k - 1, before the barrier that ended it.
            const unsigned n =
                atomic_ref<unsigned, scope::device>(counts[k % 3]).load(std::memory_order_relaxed);
            if (sync::p_global_id() == 0) {
                // counts[(k+2) % 3] was last read in phase k - 1 (as its frontier's size) and is next
                // appended to in phase k + 1: the barriers on either side order this reset.
                atomic_ref<unsigned, scope::device>(counts[(k + 2) % 3]).store(0, std::memory_order_relaxed);
            }
            const vertex_id* cur = queue[k & 1];
            vertex_id* next = queue[(k + 1) & 1];
            for (unsigned i = sync::p_global_id(); i < n; i += sync::p_global_size()) {
                expand<P>(g, labels, stamps, ld(&cur[i]), k, next, &counts[(k + 1) % 3]);
            }
            // Every work-item of every participant: the phase's label writes, appends and count are
            // released at device scope and acquired by everyone before the next phase.
            barrier.wait();
            if (atomic_ref<unsigned, scope::device>(counts[(k + 1) % 3]).load(std::memory_order_relaxed) ==
                0) {
                if (sync::p_global_id() == 0) {
                    st(iterations, k + 1); // read by the host after the kernel
                }
                return; // every participant read the same count: a uniform exit
            }
        }
    }
};

// ---- tasks ----

/// A vertex task carries only its vertex: it relaxes with the label in memory when it runs (the
/// freshest one), and at most one vertex task per vertex is pending at a time (packed_label's bit).
struct vertex_payload {
    vertex_id v;
};
template <class L> struct range_payload {
    edge_id lo, hi; // arcs [lo, hi) of v
    L label;        // v's label when the range was split off
    vertex_id v;
};

/// The tasks strategy's per-vertex word: label << 1 | ready, ready = 1 while no vertex task for the
/// vertex is queued and not started (the header comment says why one word). Unreached is all ones. A
/// label needs one bit fewer than L: the host refuses graphs of 2^31 vertices or more
/// (check_packable), below which a BFS level and an SSSP distance of 32-bit weights both fit.
template <class L> struct packed_label {
    static constexpr L ready = 1;
    static constexpr L unreached = ~L{0};
    CANOPY_HOST_DEVICE static constexpr L pending(L label) { return static_cast<L>(label << 1); }
    CANOPY_HOST_DEVICE static constexpr L label_of(L word) { return word >> 1; }
    /// The label a host reads back: all ones (the problem's unreached) for an unreached vertex.
    static constexpr L decode(L word) { return word == unreached ? unreached : label_of(word); }
};

/// Refuses a tasks run whose staging buffer holds fewer than `need` tasks per lane, the most one lane
/// of its tasks may spawn in one task (staging has no overflow path: a lane past it would be lost).
/// `who` names the tasks and their verb ("PageRank tasks need"), `why` (may be empty) says what a lane
/// stages, so that each strategy's message names its own reason.
inline void check_tasks_staging(const run_options& o, unsigned need, const char* who, const char* why = "") {
    if (o.tasks.staging_capacity < need) {
        throw error(std::string("canopy graph: ") + who + " a staging buffer of at least " +
                    std::to_string(need) + " tasks per lane" + why);
    }
}

inline void check_packable(vertex_id n) {
    if (n >= (vertex_id{1} << 31)) {
        throw error(
            "canopy graph: the tasks strategy packs a label and a flag in one word and takes graphs of "
            "fewer than 2^31 vertices (this one has " +
            std::to_string(n) + "); use --strategy multi-kernel");
    }
}

template <class P, scope S> struct task_args {
    csr_view g;
    typename P::label* labels; // packed_label words
    // Rounds (run_options::tasks_delta): an improvement to a label above `cap` is deferred to the next
    // round's launch (appended once per round to `deferred`, by the stamps) instead of spawned.
    typename P::label cap;
    unsigned round;
    unsigned* stamps;
    vertex_id* deferred;
    unsigned* deferred_count;
    typename P::label* deferred_min; // the least deferred label: the next round's cap is it + delta - 1
    const vertex_id* seeds;          // this round's seeds: the previous round's deferred vertices
};

struct seeds_payload {
    unsigned lo, hi; // entries [lo, hi) of task_args::seeds
};

template <class P, scope S> struct vertex_task;
template <class P, scope S> struct range_task;

/// A label as a task priority (32 bits: larger labels share the last bucket).
template <class L> CANOPY_DEVICE unsigned priority_of(L label) {
    return label > L{0xfffffffeu} ? 0xfffffffeu : static_cast<unsigned>(label);
}

/// Relaxes arc e of v from label lv: lowers the target's label, and spawns a vertex task for it when it
/// has none pending (or defers it to the next round, above the round's cap).
template <class P, scope S, class Ctx>
CANOPY_DEVICE void relax_arc(Ctx& ctx, const task_args<P, S>& a, typename P::label lv, edge_id e) {
    using L = typename P::label;
    using W = packed_label<L>;
    const vertex_id w = a.g.target(e);
    const L nl = P::relax(lv, a.g, e);
    atomic_ref<L, S> lw(a.labels[w]);
    // Relaxed at scope S (device in every correct run): the word carries the label and the pending
    // bit, nothing else, and every reader of the label reads that same word (the header comment).
    // The load first: an arc that cannot lower the label (most of them) costs no RMW, and it never
    // sets the bit of a vertex whose task has already taken this very label.
    L old = lw.load(std::memory_order_relaxed);
    if (W::label_of(old) <= nl) {
        return;
    }
    if (nl > a.cap) {
        // Next round: lower the label and keep the bit as it is (a seed task of this round may be
        // queued for w; clearing its bit would let a second one be queued).
        while (!lw.compare_exchange_strong(old, static_cast<L>(W::pending(nl) | (old & W::ready)),
                                           std::memory_order_relaxed, std::memory_order_relaxed)) {
            if (W::label_of(old) <= nl) {
                return;
            }
        }
        // Relaxed device-scope RMWs elect one appender and a slot; the entry is a plain
        // store read by the next round's launch (the kernel boundary orders them).
        if (atomic_ref<unsigned, scope::device>(a.stamps[w])
                .exchange(a.round + 1, std::memory_order_relaxed) != a.round + 1) {
            atomic_ref<L, scope::device>(*a.deferred_min).fetch_min(nl, std::memory_order_relaxed);
            const unsigned slot = atomic_ref<unsigned, scope::device>(*a.deferred_count)
                                      .fetch_add(1u, std::memory_order_relaxed);
            st(&a.deferred[slot], w);
        }
        return;
    }
    // Lower the label and clear the ready bit in one RMW. The old word decides: no task queued (bit
    // set) and the word lowered by this RMW means this lane queues one; a queued task (bit clear) reads
    // this label when it starts (its fetch_or comes later in the word's modification order).
    old = lw.fetch_min(W::pending(nl), std::memory_order_relaxed);
    if ((old & W::ready) != 0 && old > W::pending(nl)) {
        // Priority = the new label (order priority: Delta-stepping inside the runtime).
        ctx.template spawn<vertex_task<P, S>>(vertex_payload{w}, priority_of(nl));
    }
}

/// Every lane of the front: relaxes the front's arc ranges together; a range longer than together_max
/// becomes range tasks (each_together_or_split).
template <class P, scope S, class Ctx>
CANOPY_DEVICE void relax_together(Ctx& ctx, const task_args<P, S>& a, vertex_id v, typename P::label lv,
                                  edge_id lo, edge_id hi) {
    using L = typename P::label;
    each_together_or_split(
        lo, hi, lv, [&](L label, edge_id e) { relax_arc<P, S>(ctx, a, label, e); },
        [&](edge_id b, edge_id e) {
            ctx.template spawn<range_task<P, S>>(range_payload<L>{b, e, lv, v}, priority_of(lv));
        });
}

/// Sub-group-cooperative (task_context.hpp): called on every lane of its front; the front's vertices'
/// arcs are relaxed by all the lanes together (relax_together).
template <class P, scope S> struct vertex_task {
    using payload = vertex_payload;
    static constexpr bool cooperative = true;
    task_args<P, S> a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        typename P::label lv{};
        edge_id lo = 0, hi = 0;
        if (valid) {
            // Set the ready bit and take the label in one relaxed RMW: an improvement before it in the
            // word's modification order is the label read here, one after it finds the bit set and
            // queues a task of its own. The lanes that relax this vertex's arcs get the label as a
            // value (a shuffle) and read only the graph, which no one writes during the run.
            lv = packed_label<typename P::label>::label_of(
                atomic_ref<typename P::label, S>(a.labels[x.v])
                    .fetch_or(packed_label<typename P::label>::ready, std::memory_order_relaxed));
            lo = a.g.begin(x.v);
            hi = a.g.end(x.v);
        }
        relax_together<P, S>(ctx, a, x.v, lv, lo, hi);
    }
};

/// A round's seeds: splits like range_task, then spawns a vertex task per seed without one pending.
template <class P, scope S> struct seeds_task {
    using payload = seeds_payload;
    task_args<P, S> a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, Ctx& ctx) const {
        each_or_split(
            x.lo, x.hi,
            [&](unsigned i) {
                const vertex_id w = ld(&a.seeds[i]); // written by the previous launch
                using W = packed_label<typename P::label>;
                // Relaxed: clears the ready bit; the queued task reads the label from this word.
                if ((atomic_ref<typename P::label, S>(a.labels[w])
                         .fetch_and(static_cast<typename P::label>(~W::ready), std::memory_order_relaxed) &
                     W::ready) != 0) {
                    ctx.template spawn<vertex_task<P, S>>(vertex_payload{w});
                }
            },
            [&](unsigned b, unsigned e) {
                ctx.template spawn<seeds_task<P, S>>(seeds_payload{b, e});
            });
    }
};

/// Sub-group-cooperative, like vertex_task: the front's ranges are relaxed by all its lanes together.
template <class P, scope S> struct range_task {
    using payload = range_payload<typename P::label>;
    static constexpr bool cooperative = true;
    task_args<P, S> a;
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& x, bool valid, Ctx& ctx) const {
        // Stale: v was lowered since the split, and the lowering made (or found) a vertex task for v
        // that relaxes all of v's arcs with the lower label.
        const bool live =
            valid &&
            packed_label<typename P::label>::label_of(
                atomic_ref<typename P::label, S>(a.labels[x.v]).load(std::memory_order_relaxed)) >= x.label;
        relax_together<P, S>(ctx, a, x.v, x.label, live ? x.lo : 0, live ? x.hi : 0);
    }
};

/// The level-synchronous strategies' device state: the labels (the source at 0, every other vertex
/// unreached), the per-round stamps that elect one appender per vertex (zero: no round yet), and two
/// frontier queues of |V| entries, the first holding the source.
template <class L> struct frontier_buffers {
    device_buffer<L> labels;
    device_buffer<unsigned> stamps;
    device_buffer<vertex_id> q0, q1;
    frontier_buffers(vertex_id n, vertex_id source, L unreached)
        : labels(initial_labels(n, source, unreached)), stamps(n), q0(n), q1(n) {
        stamps.fill_zero();
        q0.upload(&source, 1);
    }

  private:
    static std::vector<L> initial_labels(vertex_id n, vertex_id source, L unreached) {
        std::vector<L> init(n, unreached);
        init[source] = 0;
        return init;
    }
};

/// Launches Body as a persistent kernel on every work-group that can be resident at once (occupancy
/// discovery inside the kernel, one XF barrier between phases); make(barrier) builds the body around
/// the barrier's handle. Returns the work-groups that took part. A block size that cannot launch even
/// one resident work-group is a usage error, said before anything runs.
template <class Body, class Make>
unsigned launch_persistent_phases(unsigned block, Make&& make, kernel_timer* timer = nullptr) {
    const unsigned grid = sync::persistent_grid<Body>(block);
    if (grid == 0) {
        throw error("canopy graph: a persistent kernel of " + std::to_string(block) +
                    " work-items per work-group cannot launch on this device");
    }
    sync::discovery_context dctx(grid);
    sync::xf_barrier_state bar(grid);
    launch_config cfg;
    cfg.block = block;
    cfg.grid = grid;
    return sync::launch_persistent(cfg, dctx, make(bar.barrier()), timer);
}

template <class P>
run_result<typename P::label> run_multi_kernel(const csr_view& g, vertex_id source, const run_options& o) {
    using L = typename P::label;
    run_result<L> r;
    const auto t0 = std::chrono::steady_clock::now();
    frontier_buffers<L> f(g.num_vertices, source, P::unreached);
    device_buffer<unsigned> next_count(1);
    const unsigned resident = max_resident_blocks<phase_kernel<P>>(o.block);
    vertex_id* cur = f.q0.data();
    vertex_id* next = f.q1.data();
    unsigned n = 1;
    kernel_timer t;
    for (unsigned k = 0; n != 0; ++k) {
        next_count.fill_zero();
        const unsigned want = (n + o.block - 1) / o.block;
        launch_config cfg;
        cfg.block = o.block;
        cfg.grid = resident != 0 && want > resident ? resident : want;
        timed_launch(&t, [&] {
            launch(cfg,
                   phase_kernel<P>{g, f.labels.data(), f.stamps.data(), cur, n, next, next_count.data(), k});
        });
        ++r.launches;
        ++r.iterations;
        next_count.download(&n, 1); // the stop flag: an empty next frontier
        std::swap(cur, next);
    }
    r.labels = f.labels.to_vector();
    r.stop_clocks(t0, t);
    return r;
}

template <class P>
run_result<typename P::label> run_persistent(const csr_view& g, vertex_id source, const run_options& o) {
    using L = typename P::label;
    run_result<L> r;
    const auto t0 = std::chrono::steady_clock::now();
    frontier_buffers<L> f(g.num_vertices, source, P::unreached);
    // Plain references, not a structured binding: clang 14 (hipcc) cannot capture one in a lambda.
    auto& labels = f.labels;
    auto& stamps = f.stamps;
    auto& q0 = f.q0;
    auto& q1 = f.q1;
    device_buffer<unsigned> counts(std::vector<unsigned>{1u, 0u, 0u});
    device_buffer<unsigned> iterations(1);
    iterations.fill_zero();
    using body = persistent_phases<P>;
    kernel_timer t;
    r.workgroups = launch_persistent_phases<body>(
        o.block,
        [&](sync::xf_barrier barrier) {
            return body{g,
                        labels.data(),
                        stamps.data(),
                        {q0.data(), q1.data()},
                        counts.data(),
                        iterations.data(),
                        barrier};
        },
        &t);
    r.launches = 1;
    unsigned phases = 0;
    iterations.download(&phases, 1);
    r.iterations = phases;
    r.barriers = phases; // one XF barrier episode ends every phase
    r.labels = labels.to_vector();
    r.stop_clocks(t0, t);
    return r;
}

template <class P, scope S>
run_result<typename P::label> run_tasks_as(const csr_view& g, vertex_id source, const run_options& o) {
    using L = typename P::label;
    run_result<L> r;
    check_tasks_staging(o, together_staging, "BFS and SSSP tasks need",
                        " (a lane stages its split's pieces and one task per arc it relaxes)");
    check_packable(g.num_vertices);
    static_assert(P::unreached == packed_label<L>::unreached, "unreached packs as all ones");
    std::vector<L> init(g.num_vertices, packed_label<L>::unreached);
    init[source] = packed_label<L>::pending(0); // label 0, the seed task queued
    const auto t0 = std::chrono::steady_clock::now();
    device_buffer<L> labels(init);
    device_buffer<unsigned> stamps(g.num_vertices);
    stamps.fill_zero();
    device_buffer<vertex_id> d0(g.num_vertices), d1(g.num_vertices);
    device_buffer<unsigned> counts(2);
    counts.fill_zero();
    device_buffer<L> mins(std::vector<L>{P::unreached, P::unreached});
    runtime::config c = o.tasks;
    c.block = o.block;
    const bool ring = o.tasks.queues == runtime::queue_design::ring;
    // The ring core orders inside one launch: by priority (Delta-stepping's buckets: delta is their
    // width), or fifo (no rounds: fifo keeps the re-lowering small); the locked core's depth-first
    // order needs rounds of launches to bound it.
    const bool prio = ring && c.order == runtime::task_order::priority;
    const std::uint64_t width = o.tasks_delta != problem_default_delta ? o.tasks_delta : default_delta<P>();
    if (prio) {
        c.priority_delta = width == 0 ? 1u : width > 0x7fffffffu ? 0x7fffffffu : static_cast<unsigned>(width);
    }
    const std::uint64_t dl = prio || (ring && o.tasks_delta == problem_default_delta) ? 0 : width;
    const L delta = dl < static_cast<std::uint64_t>(P::unreached) ? static_cast<L>(dl) : L{0};
    L cap = delta != 0 ? delta - 1 : static_cast<L>(P::unreached - 1);
    unsigned seeds = 0;
    kernel_timer t; // every round's launch: the span covers the host's work between rounds
    for (unsigned round = 0;; ++round) {
        vertex_id* in = (round & 1) != 0 ? d0.data() : d1.data(); // the previous round's deferred list
        vertex_id* out = (round & 1) != 0 ? d1.data() : d0.data();
        unsigned* out_count = counts.data() + (round & 1);
        const task_args<P, S> a{
            g, labels.data(), cap, round, stamps.data(), out, out_count, mins.data() + (round & 1), in};
        runtime::task_set<vertex_task<P, S>, range_task<P, S>, seeds_task<P, S>> ts{
            vertex_task<P, S>{a}, range_task<P, S>{a}, seeds_task<P, S>{a}};
        if (round == 0) {
            ts.template seed<vertex_task<P, S>>(vertex_payload{source});
        } else {
            seed_vertex_ranges<seeds_task<P, S>>(ts, seeds, c);
        }
        r.add_round(ts.run(c, &t));
        ++r.launches;
        counts.download_at(round & 1, &seeds, 1); // the stop flag: nothing deferred
        if (seeds == 0) {
            break;
        }
        const unsigned zero = 0;
        counts.upload_at((round + 1) & 1, &zero, 1);
        // Delta-stepping's next bucket: from the least deferred label (a label deferred at that value,
        // perhaps lowered since: only a heuristic, every deferred vertex runs next round whatever its
        // label), delta wide.
        L least = P::unreached;
        mins.download_at(round & 1, &least, 1);
        const L reset = P::unreached;
        mins.upload_at((round + 1) & 1, &reset, 1);
        cap = least > static_cast<L>(P::unreached - 1) - delta ? static_cast<L>(P::unreached - 1)
                                                               : least + delta - 1;
    }
    r.labels = labels.to_vector();
    for (L& w : r.labels) {
        w = packed_label<L>::decode(w);
    }
    r.stop_clocks(t0, t);
    return r;
}

} // namespace detail

/// Runs problem P from `source` on `g` (a view of device memory: device_graph) with strategy o.how.
template <class P>
run_result<typename P::label> run(const csr_view& g, vertex_id source, const run_options& o = {}) {
    if (source >= g.num_vertices) {
        throw error("canopy graph: source " + std::to_string(source) + " is not a vertex (the graph has " +
                    std::to_string(g.num_vertices) + ")");
    }
    switch (o.how) {
    case strategy::multi_kernel: return detail::run_multi_kernel<P>(g, source, o);
    case strategy::persistent: return detail::run_persistent<P>(g, source, o);
    case strategy::tasks:
        if (o.tasks_scope == scope::workgroup) {
            return detail::run_tasks_as<P, scope::workgroup>(g, source, o);
        }
        if (o.tasks_scope != scope::device) {
            throw error(
                "canopy graph: the tasks strategy's labels are device- or (test-only) work-group-scope");
        }
        return detail::run_tasks_as<P, scope::device>(g, source, o);
    }
    throw error("canopy graph: unknown strategy");
}

} // namespace canopy::workloads::graph
