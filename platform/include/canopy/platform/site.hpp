// canopy/platform/site.hpp — call sites for the emulator's reports, as kernel code names them.
//
// Defined in the vocabulary layer (canopy/vocabulary/site.hpp), which the emulator shares; kernel code
// includes platform/ only (DESIGN.md §1), so platform/ re-exports it here.
#pragma once

#include "canopy/vocabulary/site.hpp"
