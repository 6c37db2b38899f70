// canopy/platform/shared_memory.hpp — block-shared memory through one API.
//
//   CANOPY_SHARED(unsigned, counter);          // one `unsigned` per work-group, uninitialized
//   CANOPY_SHARED(slot[64], slots);            // arrays work too: CANOPY_SHARED(int[64], table)
//   int* extra = canopy::dynamic_shared<int>(); // the launch's shared_bytes
//
// Static __shared__ variables cannot be emulated once work-groups are fibers on a few OS threads
// (HIP-CPU's thread_local trick breaks when work-groups interleave), so kernel code declares shared
// memory only through this macro. Like __shared__, the storage is uninitialized: the emulator fills it
// with 0xCD bytes so that a read before the first write shows up. The type must be trivial.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/shared_memory.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/shared_memory.hpp"
#endif
