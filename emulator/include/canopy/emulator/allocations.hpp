// canopy/emulator/allocations.hpp — the emulator's registry of device allocations: which buffer an
// address is in, so that a report (the race detector's) can name it instead of printing a bare address.
// device_buffer records its allocation site here (platform/detail/cpu/memory.hpp); host-side only.
#pragma once

#include <cstddef>
#include <string>

#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

/// Device memory: 256-byte aligned host memory, recorded with its site. From 1 MiB up it is an
/// anonymous mapping (not under ASan, whose heap checks need the allocator): its pages cost nothing
/// until a kernel touches them, and zero_or_fill() drops them instead of writing zeros. The runtime
/// zeroes an arena of every queue and staging buffer per run (128 MiB for a graph on hrf8) and a run
/// touches a small part of it; writing it, faulting it in and unmapping it were half of a timed
/// 4elt BFS run's wall time.
void* allocate_device(std::size_t bytes, canopy::site where);
void free_device(void* p) noexcept;
/// memset, but a zero fill of whole pages of a mapped allocation gives the pages back (MADV_DONTNEED:
/// they read as zero again), so a launch pays only for the pages it touches.
void fill_device(void* dst, int byte, std::size_t bytes);

/// "the 24-byte buffer allocated at backend.cpp:300, byte 8", or "" when `p` is in no live allocation.
std::string describe_allocation(const void* p);

} // namespace canopy::emu
