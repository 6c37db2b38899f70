// emulator/src/site_format.hpp — how the emulator's reports print a source site (deadlocks,
// divergence, races): "file:line", the path cut to what follows "/tests/" or to the file name, since
// long absolute paths drown a report. Defined in engine.cpp.
#pragma once

#include <string>

#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

std::string format_site(const canopy::site& s);

} // namespace canopy::emu
