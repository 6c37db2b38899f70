// canopy/workloads/uts/rounds.hpp — UTS in rounds, the unit of scale-out (docs/scale-out.md): a round
// runs the runtime over a list of nodes (the rank's frontier) until `budget` nodes have started, and
// every node that asks to run after that is handed back to the host instead (runtime.hpp's
// round_limits). The host then moves frontier nodes between ranks (balance.hpp) and starts the next
// round; the traversal ends when no rank holds a node.
//
// Why rounds: a launch of the runtime runs until its device has no task left, and its queues live in
// device memory no other process can reach. Ending a round by budget is what turns the in-flight
// tasks into data a host can send: a node's payload (its state, height and type) is the whole of its
// work, so handing it to another rank loses nothing and duplicates nothing.
//
// Exactness: a node is counted by the one task that runs it, and a node that is handed back is not
// run in that round but appears, once, in exactly one rank's next frontier. Termination: after every
// round each rank's launch has ended (nothing in flight on any device) and the moves of the previous
// exchange have all been received (a collective), so the frontier sizes gathered there are all the work
// left; their sum is 0 on every rank at once, and every rank stops after the same round.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/balance.hpp"
#include "canopy/workloads/uts/decision.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/runtime.hpp"

namespace canopy::workloads::uts {

/// The frontier a round starts from: nodes [lo, hi) of the seed array, split until a task spawns at
/// most fan_out nodes (the runtime's staging limit), as range_task splits a wide node's children.
struct frontier_payload {
    unsigned lo, hi;
};

struct frontier_task {
    using payload = frontier_payload;
    const node_payload* seeds;
    template <class Ctx> CANOPY_DEVICE void operator()(const frontier_payload& x, Ctx& ctx) const {
        const unsigned n = x.hi - x.lo;
        if (n <= fan_out) {
            for (unsigned i = x.lo; i < x.hi; ++i) {
                ctx.template spawn<node_task>(seeds[i]);
            }
            return;
        }
        const unsigned chunk = (n + fan_out - 1) / fan_out;
        for (unsigned b = x.lo; b < x.hi; b += chunk) {
            ctx.template spawn<frontier_task>(frontier_payload{b, b + chunk < x.hi ? b + chunk : x.hi});
        }
    }
};

/// Default round sizes: nodes a rank runs per round, and the most nodes a round hands back (28 bytes
/// each: 28 MiB). A node that finds the hand-back buffer full runs in its round instead (and so does
/// its subtree: exact, but that round is no longer bounded), so a round takes at most half the buffer's
/// worth of seeds and leaves the rest in the frontier: the other half holds what `budget` nodes spawn
/// (up to 8 children each for T1 and T3 at the default budget).
inline constexpr std::uint64_t default_round_budget = 1u << 16;
inline constexpr unsigned default_frontier_capacity = 1u << 20;

struct round_result {
    counts c;                           // the nodes this round ran
    std::vector<node_payload> frontier; // the nodes it handed back, then the seeds it did not take
    runtime::stats stats;
};

/// One round over `seeds` (empty: nothing runs): at most max(1, capacity / 2) of them go to the device.
/// Throws canopy::error as traverse_runtime does.
inline round_result
traverse_round(const params& p, const runtime::config& cfg, const std::vector<node_payload>& seeds,
               std::uint64_t budget = default_round_budget, unsigned capacity = default_frontier_capacity,
               unsigned hash_cycles = sha1_model_cycles, unsigned max_table_rows = default_max_rows) {
    round_result r;
    if (seeds.empty()) {
        return r;
    }
    if (cfg.devices > 1) {
        throw error("canopy uts: a round runs on one device (the rounds are the devices' exchange): run it "
                    "with config::devices = 1");
    }
    if (cfg.staging_capacity < fan_out) {
        throw error("canopy uts: the staging buffer must hold at least " + std::to_string(fan_out) +
                    " tasks per lane");
    }
    if (budget == 0 || capacity == 0) {
        throw error("canopy uts: a round's node budget and hand-back capacity must be at least 1");
    }
    const std::size_t given = std::min<std::size_t>(seeds.size(), capacity / 2 > 0 ? capacity / 2 : 1);
    device_buffer<unsigned long long> counters(count_slots * slot_words);
    counters.fill_zero();
    const decision_table table = build_decision_table(p, max_table_rows);
    const device_buffer<std::uint32_t> table_words(table.words);
    device_buffer<node_payload> in(given);
    in.upload(seeds.data(), given);
    device_buffer<unsigned long long> started(1);
    started.fill_zero();
    device_buffer<unsigned long long> out_count(1);
    out_count.fill_zero();
    device_buffer<node_payload> out(capacity);
    shared_args a{p, counters.data(), table.view(table_words.data()), hash_cycles, {}};
    a.round = round_limits{started.data(), budget, out.data(), out_count.data(), capacity};
    runtime::task_set<node_task, range_task, frontier_task> ts{node_task{a}, range_task{a},
                                                               frontier_task{in.data()}};
    ts.seed<frontier_task>(frontier_payload{0, static_cast<unsigned>(given)});
    r.stats = ts.run(cfg);
    r.c = sum_counters(counters, table, max_table_rows);
    const unsigned long long handed = out_count.to_vector()[0];
    const std::size_t kept = handed < capacity ? static_cast<std::size_t>(handed) : capacity;
    r.frontier.resize(kept);
    out.download(r.frontier.data(), kept);
    r.frontier.insert(r.frontier.end(), seeds.begin() + static_cast<std::ptrdiff_t>(given), seeds.end());
    return r;
}

/// Adds a round's counts to a traversal's.
inline void add_counts(counts& to, const counts& c) {
    to.nodes += c.nodes;
    to.leaves += c.leaves;
    to.depth = c.depth > to.depth ? c.depth : to.depth;
}

/// Moves nodes between frontiers by a plan (balance_plan): a sender gives the newest of its nodes.
inline void apply_moves(std::vector<std::vector<node_payload>>& frontiers,
                        const std::vector<frontier_move>& moves) {
    for (const frontier_move& m : moves) {
        auto& from = frontiers[m.from];
        auto& to = frontiers[m.to];
        to.insert(to.end(), from.end() - static_cast<std::ptrdiff_t>(m.nodes), from.end());
        from.resize(from.size() - m.nodes);
    }
}

struct ranks_result {
    counts c;
    unsigned rounds = 0;
    std::uint64_t moved = 0;                   // nodes moved between ranks, all rounds
    std::vector<std::uint64_t> nodes_per_rank; // nodes each rank ran
    // The sum over rounds of the most nodes one rank ran in the round: the traversal's length in node
    // times when the ranks run their rounds at once and an exchange costs nothing (docs/scale-out.md).
    std::uint64_t critical_nodes = 0;
    std::uint64_t frontier_nodes = 0; // the sum over rounds of every rank's frontier
    // The timed emulator's makespans (stats.cycles_makespan; 0 otherwise): the sum over rounds of the
    // longest rank's, the simulated length of the traversal when the ranks' rounds run at once, and
    // the sum of all.
    std::uint64_t critical_cycles = 0, total_cycles = 0;
};

/// The MPI driver's schedule (cli/uts_ranks.cpp) in one process: `ranks` frontiers, each round run
/// one rank after the other on this device, the same balance_plan between rounds. A check of the
/// protocol without MPI (tests), not a speed-up.
inline ranks_result traverse_ranks_in_process(const params& p, const runtime::config& cfg, unsigned ranks,
                                              std::uint64_t budget = default_round_budget,
                                              unsigned capacity = default_frontier_capacity) {
    if (ranks == 0) {
        throw error("canopy uts: at least one rank");
    }
    ranks_result r;
    r.nodes_per_rank.assign(ranks, 0);
    std::vector<std::vector<node_payload>> frontiers(ranks);
    frontiers[0].push_back(root_payload(p));
    for (;;) {
        std::vector<std::uint64_t> sizes(ranks);
        std::uint64_t total = 0;
        for (unsigned i = 0; i < ranks; ++i) {
            sizes[i] = frontiers[i].size();
            total += sizes[i];
        }
        if (total == 0) {
            return r;
        }
        r.frontier_nodes += total;
        const auto moves = balance_plan(sizes);
        for (const frontier_move& m : moves) {
            r.moved += m.nodes;
        }
        apply_moves(frontiers, moves);
        ++r.rounds;
        std::uint64_t longest = 0, slowest = 0;
        for (unsigned i = 0; i < ranks; ++i) {
            round_result rr = traverse_round(p, cfg, frontiers[i], budget, capacity);
            add_counts(r.c, rr.c);
            r.nodes_per_rank[i] += rr.c.nodes;
            longest = rr.c.nodes > longest ? rr.c.nodes : longest;
            const std::uint64_t cyc = rr.stats.cycles_makespan;
            slowest = cyc > slowest ? cyc : slowest;
            r.total_cycles += cyc;
            frontiers[i] = std::move(rr.frontier);
        }
        r.critical_nodes += longest;
        r.critical_cycles += slowest;
    }
}

} // namespace canopy::workloads::uts
