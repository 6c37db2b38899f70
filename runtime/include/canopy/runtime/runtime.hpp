// canopy/runtime/runtime.hpp — the task runtime in one include (device task API, host API, policies).
#pragma once

#include "canopy/runtime/config.hpp"
#include "canopy/runtime/join.hpp"
#include "canopy/runtime/join_sum.hpp"
#include "canopy/runtime/policy.hpp"
#include "canopy/runtime/run.hpp"
#include "canopy/runtime/stats.hpp"
#include "canopy/runtime/task_context.hpp"
