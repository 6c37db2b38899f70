// canopy/emulator/chooser.hpp — where every nondeterministic choice of a deterministic run comes from.
//
// The deterministic scheduler (which work-item runs next) and the scoped-cache model (which
// environment transition fires) draw from one chooser. A seeded random chooser makes a run a function
// of its seed; a depth-first chooser enumerates every sequence of choices, run after run, which is how
// the litmus runner explores small tests exhaustively (stateless model checking, as in CHESS).
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace canopy::emu {

class chooser {
  public:
    virtual ~chooser() = default;
    /// A choice among n >= 1 alternatives: a value in [0, n).
    virtual std::uint64_t pick(std::uint64_t n) = 0;
};

class random_chooser final : public chooser {
  public:
    explicit random_chooser(std::uint64_t seed) : rng_(seed) {}
    // `% n` rather than a distribution: std::mt19937_64's output is fixed by the standard, the
    // distributions' are not, and replay by seed must hold across standard libraries.
    std::uint64_t pick(std::uint64_t n) override { return n <= 1 ? 0 : rng_() % n; }

  private:
    std::mt19937_64 rng_;
};

/// Enumerates every choice sequence depth-first. After each run, next() moves to the next sequence;
/// it returns false when every sequence has been run.
class dfs_chooser final : public chooser {
  public:
    std::uint64_t pick(std::uint64_t n) override {
        if (depth_ < path_.size()) {
            return path_[depth_++].first; // replaying the prefix
        }
        path_.emplace_back(0, n);
        ++depth_;
        return 0;
    }
    bool next() {
        depth_ = 0;
        while (!path_.empty()) {
            auto& [choice, n] = path_.back();
            if (choice + 1 < n) {
                ++choice;
                return true;
            }
            path_.pop_back();
        }
        return false;
    }

  private:
    std::vector<std::pair<std::uint64_t, std::uint64_t>> path_; // (choice, alternatives)
    std::size_t depth_ = 0;
};

} // namespace canopy::emu
