// Emulator: launches and copies complete before they return, which is one valid schedule of an
// in-order stream; an event records the host clock when it is recorded.
#pragma once

#include <chrono>

namespace canopy {

class stream {
  public:
    stream() = default;
    stream(stream&&) noexcept = default;
    stream& operator=(stream&&) noexcept = default;
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    void synchronize() {}
};

class event {
  public:
    event() = default;
    void record(stream&) { t_ = std::chrono::steady_clock::now(); }
    void record() { t_ = std::chrono::steady_clock::now(); }
    void synchronize() {}
    /// Milliseconds from `start` to this event.
    float elapsed_ms(const event& start) const {
        return std::chrono::duration<float, std::milli>(t_ - start.t_).count();
    }

  private:
    std::chrono::steady_clock::time_point t_{};
};

inline void device_synchronize() {}

} // namespace canopy
