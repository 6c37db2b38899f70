// canopy/platform/detail/gpu/stream.hpp — streams and events on GPUs (CUDA and HIP, through the vendor
// map). Included by stream.hpp.
//
// Streams are created blocking (StreamCreate, not the non-blocking flag): work on them is ordered with
// the default stream, which is where the synchronous copies of memory.hpp and the device-wide
// primitives of prim.hpp run. A copy of a kernel's output therefore waits for the kernel whatever
// stream it was launched on, which is what the synchronous host API promises. This relies on the
// legacy default stream (the default): do not build with a per-thread default stream (nvcc
// --default-stream per-thread, hipcc -fgpu-default-stream=per-thread).
#pragma once

#include <utility>

#include "canopy/platform/detail/gpu/vendor.hpp"
#include "canopy/platform/error.hpp"

namespace canopy {

/// An in-order queue of launches. Move-only; a moved-from stream stands for the default stream.
class stream {
  public:
    stream() { CANOPY_CHECK(CANOPY_GPU_API(StreamCreate)(&s_)); }
    stream(stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
    stream& operator=(stream&& o) noexcept {
        if (this != &o) {
            reset();
            s_ = std::exchange(o.s_, nullptr);
        }
        return *this;
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    ~stream() { reset(); }

    /// Waits until everything queued on the stream has finished; throws on a failed kernel.
    void synchronize() { CANOPY_CHECK(CANOPY_GPU_API(StreamSynchronize)(s_)); }

    /// The vendor's stream handle, for platform/ code only.
    void* native_handle() const noexcept { return s_; }

  private:
    void reset() noexcept {
        if (s_ != nullptr) {
            // A destructor cannot report; the stream is gone either way.
            static_cast<void>(CANOPY_GPU_API(StreamDestroy)(s_));
            s_ = nullptr;
        }
    }
    detail::gpu::stream_t s_ = nullptr;
};

/// A timestamp in a stream. Move-only.
class event {
  public:
    event() { CANOPY_CHECK(CANOPY_GPU_API(EventCreate)(&e_)); }
    event(event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
    event& operator=(event&& o) noexcept {
        if (this != &o) {
            reset();
            e_ = std::exchange(o.e_, nullptr);
        }
        return *this;
    }
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    ~event() { reset(); }

    /// Marks the point in `s` reached once everything queued on it so far has finished.
    void record(stream& s) {
        CANOPY_CHECK(CANOPY_GPU_API(EventRecord)(e_, static_cast<detail::gpu::stream_t>(s.native_handle())));
    }
    /// Waits until the recorded point has been reached.
    void synchronize() { CANOPY_CHECK(CANOPY_GPU_API(EventSynchronize)(e_)); }
    /// Milliseconds from `start` to this event; both must have been recorded and reached.
    float elapsed_ms(const event& start) const {
        float ms = 0.0F;
        CANOPY_CHECK(CANOPY_GPU_API(EventElapsedTime)(&ms, start.e_, e_));
        return ms;
    }

  private:
    void reset() noexcept {
        if (e_ != nullptr) {
            static_cast<void>(CANOPY_GPU_API(EventDestroy)(e_));
            e_ = nullptr;
        }
    }
    detail::gpu::event_t e_ = nullptr;
};

/// Waits until all work on the device has finished; throws on a failed kernel.
inline void device_synchronize() { CANOPY_CHECK(CANOPY_GPU_API(DeviceSynchronize)()); }

} // namespace canopy
