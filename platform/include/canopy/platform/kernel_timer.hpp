// canopy/platform/kernel_timer.hpp — device time of a run's kernels, and nothing else: no allocation,
// copy or start-up between the marks.
//
//   canopy::kernel_timer t;
//   for (...) { t.start(); canopy::launch(cfg, k); t.stop(); /* read a count back */ }
//   const canopy::device_time d = t.total();   // d.span_ms, d.kernels_ms, d.kernels
//
// Each start()/stop() pair brackets one launch with two events recorded on the default stream, where
// canopy's launches and copies run (stream.hpp: blocking streams, the legacy default stream). So a
// pair times exactly the kernel between the marks, and a loop of kernels gets two figures: the span
// from the first kernel's start to the last one's end (the gaps between launches are in it: they are
// what a persistent kernel or tasks remove) and the kernels' own times summed (the gaps left out).
// Reading waits for the last mark, so it belongs after the run, never inside the loop's timing.
//
// On the emulator a launch is synchronous and an event holds the host clock: the figures are the
// launches' host time, not a device's, and `device_clock` says so wherever they are printed (the timed
// scoped-cache model's cycles are the emulator's figure of device time).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "canopy/platform/config.hpp"
#include "canopy/platform/stream.hpp"

namespace canopy {

/// What device_time's milliseconds are on this build: GPU events around the kernels, or (emulator)
/// the host clock around its synchronous launches. Printed beside every device_ms.
#if defined(CANOPY_BACKEND_CPU)
inline constexpr const char* device_clock = "host (emulator: the launches' host time)";
#else
inline constexpr const char* device_clock = "gpu events";
#endif

/// A loop of kernels' device time.
struct device_time {
    double span_ms = 0;    // the first kernel's start to the last kernel's end
    double kernels_ms = 0; // every kernel's own time, summed (span_ms less the gaps between launches)
    std::size_t kernels = 0;
};

/// Events around launches. Move-only (events are).
class kernel_timer {
  public:
    /// Marks the start of the next kernel: call just before its launch.
    void start() {
        marks_.emplace_back();
        marks_.back().first.record();
    }
    /// Marks the end of the kernel started last: call just after its launch, before anything else is
    /// queued (a copy queued first would be timed as the kernel's).
    void stop() {
        if (!marks_.empty()) {
            marks_.back().second.record();
        }
    }

    /// The kernels so far (waits for the last one to end). Zero when nothing was timed.
    device_time total() {
        device_time t;
        if (marks_.empty()) {
            return t;
        }
        marks_.back().second.synchronize();
        for (const auto& [begin, end] : marks_) {
            t.kernels_ms += end.elapsed_ms(begin);
        }
        t.span_ms = marks_.back().second.elapsed_ms(marks_.front().first);
        t.kernels = marks_.size();
        return t;
    }
    /// The last kernel's time alone (waits for it to end).
    double last_ms() {
        if (marks_.empty()) {
            return 0;
        }
        marks_.back().second.synchronize();
        return marks_.back().second.elapsed_ms(marks_.back().first);
    }

  private:
    std::vector<std::pair<event, event>> marks_;
};

/// Times `launch_it()` into `t` when there is a timer (t may be nullptr: no timing).
template <class Launch> void timed_launch(kernel_timer* t, Launch&& launch_it) {
    if (t != nullptr) {
        t->start();
    }
    std::forward<Launch>(launch_it)();
    if (t != nullptr) {
        t->stop();
    }
}

} // namespace canopy
