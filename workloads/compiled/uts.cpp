// canopy_uts_runs: UTS's traversals on the runtime (canopy/workloads/uts/compiled_runs.hpp says why they
// are here). One source, not one per traversal: each instantiates its own task set, but the headers
// are parsed once instead of three times (hipcc and nvcc spend 20-30 s a source on that alone).
#include "canopy/workloads/uts/compiled_runs.hpp"

namespace canopy::workloads::uts::compiled {

runtime_result traverse_runtime(const params& p, const runtime::config& cfg, unsigned hash_cycles,
                                unsigned max_table_rows) {
    return uts::traverse_runtime(p, cfg, hash_cycles, max_table_rows);
}

runtime_result traverse_runtime_joins(const params& p, const runtime::config& cfg, unsigned records,
                                      unsigned hash_cycles, unsigned max_table_rows, bool track_peak) {
    return uts::traverse_runtime_joins(p, cfg, records, hash_cycles, max_table_rows, track_peak);
}

round_result traverse_round(const params& p, const runtime::config& cfg,
                            const std::vector<node_payload>& seeds, std::uint64_t budget, unsigned capacity) {
    return uts::traverse_round(p, cfg, seeds, budget, capacity);
}

ranks_result traverse_ranks_in_process(const params& p, const runtime::config& cfg, unsigned ranks,
                                       std::uint64_t budget, unsigned capacity) {
    return uts::traverse_ranks_in_process(p, cfg, ranks, budget, capacity);
}

} // namespace canopy::workloads::uts::compiled
