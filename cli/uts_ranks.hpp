// canopy uts under mpirun: one rank per process, the tree traversed in scale-out rounds
// (canopy/workloads/uts/rounds.hpp, docs/scale-out.md). Host-only.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi_world.hpp"
#include "uts_backend.hpp"

namespace canopy::cli {

/// Traverses the tree over the ranks of `world`: the root starts on rank 0; after every round the ranks
/// gather their frontier sizes, move nodes by balance_plan, and stop together when no rank holds one.
uts_ranks_outcome run_uts_ranks(const uts_tree_spec& spec, const uts_runtime_settings& s,
                                const mpi::session& world, std::uint64_t round_nodes);

} // namespace canopy::cli
