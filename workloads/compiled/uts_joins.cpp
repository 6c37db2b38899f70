// canopy_uts_runs: UTS by joins (canopy/workloads/uts/compiled_runs.hpp says why it is here).
#include "canopy/workloads/uts/compiled_runs.hpp"

namespace canopy::workloads::uts::compiled {

runtime_result traverse_runtime_joins(const params& p, const runtime::config& cfg, unsigned records,
                                      unsigned hash_cycles, unsigned max_table_rows) {
    return uts::traverse_runtime_joins(p, cfg, records, hash_cycles, max_table_rows);
}

} // namespace canopy::workloads::uts::compiled
