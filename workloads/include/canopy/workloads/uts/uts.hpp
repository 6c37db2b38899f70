// canopy/workloads/uts/uts.hpp — UTS in one include: rules, sample trees and flags, the sequential
// reference, and the runtime version.
#pragma once

#include "canopy/workloads/uts/params.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/rules.hpp"
#include "canopy/workloads/uts/runtime.hpp"
#include "canopy/workloads/uts/sha1.hpp"
