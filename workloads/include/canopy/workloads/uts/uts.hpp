// canopy/workloads/uts/uts.hpp — UTS in one include: rules, sample trees and flags, the sequential
// reference, the integer child-count decision, and the runtime version (counted by atomics or by joins).
#pragma once

#include "canopy/workloads/uts/balance.hpp"
#include "canopy/workloads/uts/decision.hpp"
#include "canopy/workloads/uts/joins.hpp"
#include "canopy/workloads/uts/params.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/rounds.hpp"
#include "canopy/workloads/uts/rules.hpp"
#include "canopy/workloads/uts/runtime.hpp"
#include "canopy/workloads/uts/sha1.hpp"
