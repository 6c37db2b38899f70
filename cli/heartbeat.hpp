// cli/heartbeat.hpp — a progress line on stderr while a long run is in flight (host-only).
//
// The runtime and the graph strategies give no counts mid-run, so the CLI prints the elapsed time every
// `period` from a helper thread until the heartbeat is destroyed: "<prefix>: <what> ... N s".
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace canopy::cli {

class heartbeat {
  public:
    heartbeat(std::string prefix, std::string what, std::chrono::seconds period)
        : prefix_(std::move(prefix)), what_(std::move(what)), t0_(std::chrono::steady_clock::now()) {
        th_ = std::thread([this, period] {
            std::unique_lock<std::mutex> lk(mu_);
            while (!cv_.wait_for(lk, period, [this] { return done_; })) {
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
                fmt::print(stderr, "{}: {} ... {:.0f} s\n", prefix_, what_, s);
            }
        });
    }
    ~heartbeat() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            done_ = true;
        }
        cv_.notify_one();
        th_.join();
    }
    heartbeat(const heartbeat&) = delete;
    heartbeat& operator=(const heartbeat&) = delete;

  private:
    std::string prefix_, what_;
    std::chrono::steady_clock::time_point t0_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread th_;
};

} // namespace canopy::cli
