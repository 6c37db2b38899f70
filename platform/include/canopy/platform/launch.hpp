// canopy/platform/launch.hpp — launching kernels: a functor (or CANOPY_LAMBDA) over a 1-D grid.
//
//   canopy::launch({.grid = 8, .block = 256}, CANOPY_LAMBDA() { out[canopy::global_id()] = 1; });
//
// A kernel is a copyable callable taking no arguments: its parameters are its captures or members.
// That keeps one launch path for every backend (no <<<>>>, which a plain C++ compiler cannot parse):
// GPU backends instantiate one __global__ trampoline per kernel type; the emulator runs the callable
// on every work-item's fiber. On the emulator a launch is synchronous and throws canopy::device_error
// when the kernel fails; on GPUs it is asynchronous on its stream and errors surface at synchronize().
#pragma once

#include <cstddef>

#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy {

struct launch_config {
    unsigned grid = 1;            // work-groups
    unsigned block = 64;          // work-items per work-group
    std::size_t shared_bytes = 0; // dynamic shared memory per work-group (dynamic_shared<T>())
    canopy::stream* on = nullptr; // nullptr: the default stream
};

} // namespace canopy

/// A lambda usable as a kernel on every backend: CANOPY_LAMBDA() { ... } (captures by value).
#if defined(CANOPY_BACKEND_CPU)
#    define CANOPY_LAMBDA [=]
#else
#    define CANOPY_LAMBDA [=] __device__
#endif

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/launch.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/launch.hpp"
#endif
// Provided by the backend header:
//   template <class Kernel> void launch(const launch_config& cfg, const Kernel& k);
//       one rule on every backend: a block size of 0 (or above the device's maximum) throws
//       canopy::error; an empty grid (grid 0) with a valid block launches nothing and returns.
//   template <class Kernel> unsigned max_resident_blocks(unsigned block, std::size_t shared_bytes = 0);
//       work-groups of this kernel the whole device holds resident at once (occupancy × CUs);
//       0 when the block size or shared memory cannot launch at all.
