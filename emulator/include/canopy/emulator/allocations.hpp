// canopy/emulator/allocations.hpp — the emulator's registry of device allocations: which buffer an
// address is in, so that a report (the race detector's) can name it instead of printing a bare address.
// device_buffer records its allocation site here (platform/detail/cpu/memory.hpp); host-side only.
#pragma once

#include <cstddef>
#include <string>

#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

void note_allocation(const void* p, std::size_t bytes, canopy::site where);
void forget_allocation(const void* p) noexcept;

/// "the 24-byte buffer allocated at backend.cpp:300, byte 8", or "" when `p` is in no live allocation.
std::string describe_allocation(const void* p);

} // namespace canopy::emu
