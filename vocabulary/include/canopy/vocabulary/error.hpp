// canopy/vocabulary/error.hpp — the exceptions a host sees: canopy::error and canopy::device_error.
//
// Both the emulator (which throws them from its launches and its watchdog) and platform/ (whose
// CANOPY_CHECK turns a failed backend call into one, platform/error.hpp) raise them, so they live
// below both.
#pragma once

#include <stdexcept>

namespace canopy {

/// A host-side failure: a backend API call, a bad configuration, an impossible request.
class error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// A kernel failed: a device assertion, a divergent barrier, a deadlock, a fault.
class device_error : public error {
  public:
    using error::error;
};

} // namespace canopy
