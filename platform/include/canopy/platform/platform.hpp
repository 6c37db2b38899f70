// canopy/platform/platform.hpp — everything kernel and host code may use, in one include.
#pragma once

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/cost.hpp"
#include "canopy/platform/device_info.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/launch.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/platform/prim.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/shared_memory.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/platform/stream.hpp"
#include "canopy/platform/subgroup.hpp"
