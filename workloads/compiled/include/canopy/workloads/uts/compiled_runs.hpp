// UTS's traversals on the task runtime, compiled once for the whole build (canopy_uts_runs), for the
// canopy command, the benches and the tests.
//
// Why: traverse_runtime and traverse_runtime_joins are inline functions in the headers, so every source
// that called them instantiated the runtime's scheduler and the node tasks again (the command, three
// benches, four test sources). Here they are compiled in two sources, and each caller compiles a call.
// The same reasoning as canopy/workloads/graph/compiled_runs.hpp.
//
// Internal to the build: not installed. The installed package keeps the header-only traversals
// (canopy/workloads/uts/runtime.hpp, joins.hpp), which these only forward to.
#pragma once

#include <cstdint>
#include <vector>

#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/decision.hpp"
#include "canopy/workloads/uts/joins.hpp"
#include "canopy/workloads/uts/params.hpp"
#include "canopy/workloads/uts/rounds.hpp"
#include "canopy/workloads/uts/runtime.hpp"

namespace canopy::workloads::uts::compiled {

/// uts::traverse_runtime(p, cfg, hash_cycles, max_table_rows).
runtime_result traverse_runtime(const params& p, const runtime::config& cfg,
                                unsigned hash_cycles = sha1_model_cycles,
                                unsigned max_table_rows = default_max_rows);

/// uts::traverse_runtime_joins(p, cfg, records, hash_cycles, max_table_rows, track_peak).
runtime_result traverse_runtime_joins(const params& p, const runtime::config& cfg,
                                      unsigned records = default_join_records,
                                      unsigned hash_cycles = sha1_model_cycles,
                                      unsigned max_table_rows = default_max_rows, bool track_peak = false);

/// uts::traverse_round(p, cfg, seeds, budget, capacity): one scale-out round.
round_result traverse_round(const params& p, const runtime::config& cfg,
                            const std::vector<node_payload>& seeds,
                            std::uint64_t budget = default_round_budget,
                            unsigned capacity = default_frontier_capacity);

/// uts::traverse_ranks_in_process(p, cfg, ranks, budget, capacity).
ranks_result traverse_ranks_in_process(const params& p, const runtime::config& cfg, unsigned ranks,
                                       std::uint64_t budget = default_round_budget,
                                       unsigned capacity = default_frontier_capacity);

} // namespace canopy::workloads::uts::compiled
