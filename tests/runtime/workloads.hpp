// The runtime tests' workloads: canopy/workloads/checked_tasks.hpp (shared with `canopy stress`), under
// the name the tests use.
#pragma once

#include "canopy/workloads/checked_tasks.hpp"

namespace canopy::test::rt {
using namespace canopy::workloads::checked; // NOLINT(google-build-using-namespace): a test-side alias
} // namespace canopy::test::rt
