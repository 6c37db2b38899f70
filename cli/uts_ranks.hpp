// canopy uts under mpirun: one rank per process, the tree traversed in scale-out rounds
// (canopy/workloads/uts/rounds.hpp, docs/scale-out.md). Host-only.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi_world.hpp"
#include "uts_backend.hpp"

namespace canopy::cli {

struct uts_ranks_outcome {
    uts_outcome total;            // the whole tree's counts (on every rank) and this rank's wall time
    unsigned rounds = 0;          // rounds every rank went through (the same on all)
    unsigned long long moved = 0; // nodes moved between ranks, all rounds
    std::vector<std::uint64_t> nodes_per_rank; // nodes each rank ran
    std::uint64_t critical_nodes = 0; // the sum over rounds of the most nodes one rank ran (rounds.hpp)
    std::uint64_t frontier_nodes = 0; // the sum over rounds of the job's frontier (nodes staged to a host)
};

/// Traverses the tree over the ranks of `world`: the root starts on rank 0; after every round the ranks
/// gather their frontier sizes, move nodes by balance_plan, and stop together when no rank holds one.
uts_ranks_outcome run_uts_ranks(const uts_tree_spec& spec, const uts_runtime_settings& s,
                                const mpi::session& world, std::uint64_t round_nodes);

} // namespace canopy::cli
