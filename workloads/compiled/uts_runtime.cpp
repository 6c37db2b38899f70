// canopy_uts_runs: UTS on the runtime (canopy/workloads/uts/compiled_runs.hpp says why it is here).
#include "canopy/workloads/uts/compiled_runs.hpp"

namespace canopy::workloads::uts::compiled {

runtime_result traverse_runtime(const params& p, const runtime::config& cfg, unsigned hash_cycles,
                                unsigned max_table_rows) {
    return uts::traverse_runtime(p, cfg, hash_cycles, max_table_rows);
}

} // namespace canopy::workloads::uts::compiled
