// canopy/workloads/uts/balance.hpp — how scale-out rounds (rounds.hpp) even out the frontier between
// ranks: host-only arithmetic, no platform/ include, shared by the MPI driver and the in-process
// simulation of it, so both move exactly the same nodes.
//
// After every round each rank knows every rank's frontier size (an allgather). Every rank computes the
// same plan from those sizes: rank i should hold total / N nodes, one more for the first total % N
// ranks; each rank above its share sends its surplus to the ranks below theirs, matched in rank order
// (two pointers). The plan is a pure function of the sizes, so no rank has to tell another what it will
// send: the counts every rank expects to receive are known before any node moves.
#pragma once

#include <cstdint>
#include <vector>

namespace canopy::workloads::uts {

struct frontier_move {
    unsigned from = 0, to = 0;
    std::uint64_t nodes = 0;
    friend bool operator==(const frontier_move&, const frontier_move&) = default;
};

/// The moves that leave every rank within one node of total / N (none when already so), in rank order
/// of the senders.
inline std::vector<frontier_move> balance_plan(const std::vector<std::uint64_t>& sizes) {
    const auto n = static_cast<std::uint64_t>(sizes.size());
    std::vector<frontier_move> moves;
    if (n < 2) {
        return moves;
    }
    std::uint64_t total = 0;
    for (const std::uint64_t s : sizes) {
        total += s;
    }
    auto share = [&](std::uint64_t i) { return total / n + (i < total % n ? 1 : 0); };
    std::uint64_t give = 0, take = 0; // the current sender's surplus, the current receiver's deficit
    std::uint64_t s = 0, r = 0;
    auto next_sender = [&] {
        while (s < n && sizes[s] <= share(s)) {
            ++s;
        }
        give = s < n ? sizes[s] - share(s) : 0;
    };
    auto next_receiver = [&] {
        while (r < n && sizes[r] >= share(r)) {
            ++r;
        }
        take = r < n ? share(r) - sizes[r] : 0;
    };
    next_sender();
    next_receiver();
    // Surpluses and deficits have the same sum (the shares add up to the total), so both lists end
    // together.
    while (s < n && r < n) {
        const std::uint64_t k = give < take ? give : take;
        moves.push_back({static_cast<unsigned>(s), static_cast<unsigned>(r), k});
        give -= k;
        take -= k;
        if (give == 0) {
            ++s;
            next_sender();
        }
        if (take == 0) {
            ++r;
            next_receiver();
        }
    }
    return moves;
}

} // namespace canopy::workloads::uts
