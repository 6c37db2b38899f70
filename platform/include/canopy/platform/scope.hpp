// canopy/platform/scope.hpp — synchronization scopes, as kernel code names them.
//
// The enum lives in the vocabulary layer (canopy/vocabulary/scope.hpp) because the emulator's memory
// model and race detector speak it too, and the emulator sits below platform/: kernel code includes
// platform/ only (DESIGN.md §1), so platform/ re-exports it here.
#pragma once

#include "canopy/vocabulary/scope.hpp"
