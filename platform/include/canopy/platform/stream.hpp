// canopy/platform/stream.hpp — streams (in-order work queues) and events (timestamps in a stream).
//
// The emulator runs every launch and copy synchronously on the calling thread, which is one valid
// schedule of an in-order stream; events there record host time.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/stream.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/stream.hpp"
#endif
// Provided by the backend header, all move-only RAII:
//   class stream { stream(); void synchronize(); };
//   class event  { event(); void record(stream&); void record(); /* the default stream */
//                  void synchronize();
//                  float elapsed_ms(const event& start) const; };   // this - start
//   void device_synchronize();
