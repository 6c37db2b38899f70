// canopy/runtime/broken_policies.hpp — runs the test-only broken-* policies (policy.hpp), which
// task_set::run() refuses.
//
// broken-donation and broken-steal drop one synchronization on purpose, so that the tests and `canopy
// stress --with-broken-policies` can show the scoped-cache model and the race detector catching the
// bug. Only a translation unit that includes this header instantiates their schedulers: a graph run, a
// UTS run or an example compiles the four production policies alone.
#pragma once

#include <string>

#include "canopy/platform/error.hpp"
#include "canopy/runtime/run.hpp"

namespace canopy::runtime {

/// ts.run(c), with the broken-* policies accepted as well.
template <class... Tasks> stats run_allowing_broken(const task_set<Tasks...>& ts, const config& c) {
    switch (c.policy) {
    case policy::broken_donation: return ts.template run_with<policy::broken_donation>(c);
    case policy::broken_steal:
#if CANOPY_RUNTIME_HAS_RSP
        return ts.template run_with<policy::broken_steal>(c);
#else
        throw error("canopy::runtime: policy broken-steal needs remote-scope promotion, which only the "
                    "CPU emulator models");
#endif
    default: return ts.run(c);
    }
}

} // namespace canopy::runtime
