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

namespace detail::gpu {

/// Owns one vendor handle (a stream, an event): move-only, a moved-from owner holds nullptr, and the
/// destructor hands the handle to Destroy. A destructor cannot report, so Destroy's status is dropped:
/// the handle is gone either way.
template <class Handle, class Destroy> class unique_handle {
  public:
    unique_handle() = default;
    explicit unique_handle(Handle h) noexcept : h_(h) {}
    unique_handle(unique_handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    unique_handle& operator=(unique_handle&& o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    unique_handle(const unique_handle&) = delete;
    unique_handle& operator=(const unique_handle&) = delete;
    ~unique_handle() { reset(); }

    Handle get() const noexcept { return h_; }

  private:
    void reset() noexcept {
        if (h_ != nullptr) {
            Destroy{}(h_);
            h_ = nullptr;
        }
    }
    Handle h_ = nullptr;
};

struct stream_destroy {
    void operator()(stream_t s) const noexcept { static_cast<void>(CANOPY_GPU_API(StreamDestroy)(s)); }
};
struct event_destroy {
    void operator()(event_t e) const noexcept { static_cast<void>(CANOPY_GPU_API(EventDestroy)(e)); }
};

inline stream_t new_stream() {
    stream_t s = nullptr;
    CANOPY_CHECK(CANOPY_GPU_API(StreamCreate)(&s));
    return s;
}
inline event_t new_event() {
    event_t e = nullptr;
    CANOPY_CHECK(CANOPY_GPU_API(EventCreate)(&e));
    return e;
}

} // namespace detail::gpu

/// An in-order queue of launches. Move-only; a moved-from stream stands for the default stream.
class stream {
  public:
    stream() : s_(detail::gpu::new_stream()) {}

    /// Waits until everything queued on the stream has finished; throws on a failed kernel.
    void synchronize() { CANOPY_CHECK(CANOPY_GPU_API(StreamSynchronize)(s_.get())); }

    /// The vendor's stream handle, for platform/ code only.
    void* native_handle() const noexcept { return s_.get(); }

  private:
    detail::gpu::unique_handle<detail::gpu::stream_t, detail::gpu::stream_destroy> s_;
};

/// A timestamp in a stream. Move-only.
class event {
  public:
    event() : e_(detail::gpu::new_event()) {}

    /// Marks the point in `s` reached once everything queued on it so far has finished.
    void record(stream& s) {
        CANOPY_CHECK(
            CANOPY_GPU_API(EventRecord)(e_.get(), static_cast<detail::gpu::stream_t>(s.native_handle())));
    }
    /// The same on the default stream, where launches without a stream run (launch_config::on).
    void record() { CANOPY_CHECK(CANOPY_GPU_API(EventRecord)(e_.get(), nullptr)); }
    /// Waits until the recorded point has been reached.
    void synchronize() { CANOPY_CHECK(CANOPY_GPU_API(EventSynchronize)(e_.get())); }
    /// Milliseconds from `start` to this event; both must have been recorded and reached.
    float elapsed_ms(const event& start) const {
        float ms = 0.0F;
        CANOPY_CHECK(CANOPY_GPU_API(EventElapsedTime)(&ms, start.e_.get(), e_.get()));
        return ms;
    }

  private:
    detail::gpu::unique_handle<detail::gpu::event_t, detail::gpu::event_destroy> e_;
};

/// Waits until all work on the device has finished; throws on a failed kernel.
inline void device_synchronize() { CANOPY_CHECK(CANOPY_GPU_API(DeviceSynchronize)()); }

} // namespace canopy
