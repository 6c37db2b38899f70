// cli/heartbeat.hpp — progress on stderr while a long run is in flight (host-only).
//
// progress_line shows one status line. On a terminal it is rewritten in place ("\r" + erase to the end
// of the line) and erased when the run ends, so a finished command leaves only its result. Anywhere
// else (a CI log, a file) a rewritten line would be a new line every second: there it prints only when
// the run has taken 30 s, then each time the elapsed time doubles (60 s, 120 s, ...) — a handful of
// lines for an hour-long run, none for a short one.
//
// heartbeat runs a progress_line from a helper thread until it is destroyed: the runtime and the graph
// strategies give no counts mid-run, so it shows "<prefix>: <what> ... N s".
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace canopy::cli {

class progress_line {
  public:
    explicit progress_line(std::FILE* out = stderr) : out_(out), tty_(::isatty(::fileno(out)) == 1) {}
    ~progress_line() { finish(); }
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;

    /// Shows `text` as the status after `elapsed` seconds (the caller may call this as often as it likes).
    void update(double elapsed, const std::string& text) {
        if (tty_) {
            fmt::print(out_, "\r{}\x1b[K", text);
            std::fflush(out_);
            shown_ = true;
        } else if (elapsed >= next_log_) {
            fmt::print(out_, "{}\n", text);
            std::fflush(out_);
            while (next_log_ <= elapsed) {
                next_log_ *= 2;
            }
        }
    }
    /// Erases the in-place line (terminal only; a log keeps what it printed).
    void finish() {
        if (tty_ && shown_) {
            fmt::print(out_, "\r\x1b[K");
            std::fflush(out_);
            shown_ = false;
        }
    }

  private:
    std::FILE* out_;
    bool tty_;
    bool shown_ = false;
    double next_log_ = 30.0; // seconds: the first line a log gets
};

class heartbeat {
  public:
    heartbeat(std::string prefix, std::string what, std::chrono::seconds period)
        : prefix_(std::move(prefix)), what_(std::move(what)), t0_(std::chrono::steady_clock::now()) {
        th_ = std::thread([this, period] {
            std::unique_lock<std::mutex> lk(mu_);
            while (!cv_.wait_for(lk, period, [this] { return done_; })) {
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
                line_.update(s, fmt::format("{}: {} ... {:.0f} s", prefix_, what_, s));
            }
            line_.finish();
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
    progress_line line_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread th_;
};

} // namespace canopy::cli
