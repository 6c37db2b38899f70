// Compile-only (hip and cuda presets): the task runtime instantiated for a real task type on every
// device target, so the runtime's device code never rots on the GPU backends even where no GPU runs it.
#include "canopy/runtime/runtime.hpp"

namespace {

struct fib_args {
    unsigned n;
};

struct fib {
    using payload = fib_args;
    unsigned* leaves;
    template <class Ctx> CANOPY_DEVICE void operator()(const fib_args& p, Ctx& ctx) const {
        if (p.n < 2) {
            canopy::atomic_ref<unsigned, canopy::scope::device>(*leaves).fetch_add(1,
                                                                                   std::memory_order_relaxed);
            return;
        }
        ctx.template spawn<fib>({p.n - 1});
        ctx.template spawn<fib>({p.n - 2});
    }
};

} // namespace

// Every work-sharing policy the GPU backends support (steal-rsp is emulator-only: run() refuses it).
void canopy_compile_runtime(unsigned* leaves) {
    for (auto p : {canopy::runtime::policy::hrf_direct, canopy::runtime::policy::hrf_indirect,
                   canopy::runtime::policy::steal_emulated}) {
        canopy::runtime::task_set<fib> ts{fib{leaves}};
        ts.seed<fib>({20});
        (void)ts.run({.policy = p});
    }
}
