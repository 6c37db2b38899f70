// Compile-only (hip and cuda presets): the task runtime instantiated for a real task type on every
// device target, so the runtime's device code never rots on the GPU backends even where no GPU runs it.
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/fib_tasks.hpp"

using canopy::workloads::checked::fib_task;

// Every work-sharing policy the GPU backends support (steal-rsp is emulator-only: run() refuses it).
void canopy_compile_runtime(unsigned* leaves) {
    for (auto p : {canopy::runtime::policy::hrf_direct, canopy::runtime::policy::hrf_indirect,
                   canopy::runtime::policy::steal_emulated}) {
        canopy::runtime::task_set<fib_task> ts{fib_task{leaves}};
        ts.seed<fib_task>({20});
        (void)ts.run({.policy = p});
    }
}
