// canopy/emulator/chooser.hpp — where every nondeterministic choice of a deterministic run comes from.
//
// The deterministic scheduler (which work-item runs next) and the scoped-cache model (which
// environment transition fires) draw from one chooser. A seeded random chooser makes a run a function
// of its seed; a depth-first chooser enumerates every sequence of choices, run after run, which is how
// the litmus runner explores small tests exhaustively (stateless model checking, as in CHESS).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

namespace canopy::emu {

class chooser {
  public:
    virtual ~chooser() = default;
    /// A choice among n >= 1 alternatives: a value in [0, n).
    virtual std::uint64_t pick(std::uint64_t n) = 0;
    /// The deterministic scheduler calls this right before it picks the next work-item: every fiber is
    /// suspended, so the whole state of the run is in memory (state_caching_dfs keys it there).
    virtual void scheduling_point() {}
    /// True when the rest of this run does not matter (state_caching_dfs cut it at a visited state): the
    /// memory model skips its environment transitions and the litmus interpreter the rest of its
    /// threads, so a cut run ends in a few steps.
    virtual bool settled() const { return false; }
};

/// The version of the seed -> schedule mapping. A seed replays a run only within one version (the
/// launch report and every failure message carry the seed; docs/emulator.md lists the versions).
/// 2: xoshiro256** seeded by splitmix64, Lemire's multiply-shift for [0, n). 1 (before 2026-11-26):
/// std::mt19937_64 and `% n`.
inline constexpr unsigned schedule_format = 2;

class random_chooser final : public chooser {
  public:
    explicit random_chooser(std::uint64_t seed) {
        // splitmix64 spreads the seed over the 256-bit state (never all zero: splitmix64 is a bijection
        // of a counter, and four consecutive outputs are not all zero).
        for (auto& word : s_) {
            seed += 0x9e3779b97f4a7c15ULL;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            word = z ^ (z >> 31);
        }
    }
    // Written out rather than a standard engine and distribution: their outputs are not fixed across
    // standard libraries (the distributions') or cost a 2.5 KB state and a 64-bit division per draw
    // (mt19937_64 and `% n`: 12% of a timed run). The deterministic scheduler draws at every step.
    std::uint64_t pick(std::uint64_t n) override {
        if (n <= 1) {
            return 0;
        }
        // Lemire's multiply-shift: the high word of a 64x64 product; its bias, at most n / 2^64, is far
        // below anything a schedule could show.
        return static_cast<std::uint64_t>((static_cast<uint128>(next()) * n) >> 64);
    }

  private:
    __extension__ typedef unsigned __int128 uint128; // GCC and clang: -Wpedantic accepts it so marked
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t next() { // xoshiro256** (Blackman and Vigna, 2018)
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    std::uint64_t s_[4] = {};
};

/// Depth-first backtracking over a recorded path of (choice, alternatives): the deepest choice with an
/// untried alternative moves to it, the exhausted ones below it are dropped. False when every path has
/// been explored.
inline bool next_path(std::vector<std::pair<std::uint64_t, std::uint64_t>>& path) {
    while (!path.empty()) {
        auto& [choice, n] = path.back();
        if (choice + 1 < n) {
            ++choice;
            return true;
        }
        path.pop_back();
    }
    return false;
}

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
        return next_path(path_);
    }

  private:
    std::vector<std::pair<std::uint64_t, std::uint64_t>> path_; // (choice, alternatives)
    std::size_t depth_ = 0;
};

/// A 128-bit digest of a run's whole state at a scheduling point (two independent 64-bit hashes).
struct state_key {
    std::uint64_t a = 0, b = 0;
    bool operator==(const state_key&) const = default;
};
struct state_key_hash {
    std::size_t operator()(const state_key& k) const {
        return static_cast<std::size_t>(k.a ^ (k.b * 0x9e3779b97f4a7c15ULL));
    }
};

/// Depth-first enumeration of every choice sequence, pruned by state caching (stateful model checking
/// done statelessly: runs are replayed from the start, as with dfs_chooser). At each scheduling point
/// `key()` digests the run's state (memory, caches, every work-item's position); a state already
/// visited has had (or, on the current path, is having) every continuation explored, so the run is cut
/// there: its remaining choices are all 0 and not recorded, the caller discards its outcome (pruned()),
/// and next() backtracks from the cut. Any two interleavings that reach one state - commuting steps,
/// environment transitions that change nothing - are explored once. Sound when `key()` is a function
/// of everything that decides the run's future and no two states share a key (128 bits; the litmus
/// runner's keys contain 64-bit per-work-item traces, which bound the chance of a collision at about
/// n^2 / 2^65 for n states: below 10^-9 for the corpus's largest, 120,000).
class state_caching_dfs final : public chooser {
  public:
    explicit state_caching_dfs(std::function<state_key()> key) : key_(std::move(key)) {}

    std::uint64_t pick(std::uint64_t n) override {
        if (pruned_) {
            // The rest of a cut run: any path will do (its outcome is discarded), but a fair one, so
            // that a work-item waiting for a lock is not picked forever.
            return n <= 1 ? 0 : rotate_++ % n;
        }
        if (depth_ < path_.size()) {
            return path_[depth_++].first;
        }
        path_.emplace_back(0, n);
        ++depth_;
        return 0;
    }
    void scheduling_point() override {
        // While replaying the prefix the states are the ones recorded when it was first run.
        if (pruned_ || depth_ < path_.size()) {
            return;
        }
        if (!visited_.insert(key_()).second) {
            pruned_ = true;
            ++cuts_;
        }
    }
    /// The run that just ended was cut at a visited state: its outcome was already recorded.
    bool pruned() const { return pruned_; }
    bool settled() const override { return pruned_; }
    bool next() {
        pruned_ = false;
        depth_ = 0;
        return next_path(path_);
    }
    std::uint64_t states() const { return visited_.size(); }
    std::uint64_t cuts() const { return cuts_; }

  private:
    std::function<state_key()> key_;
    std::unordered_set<state_key, state_key_hash> visited_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> path_;
    std::size_t depth_ = 0;
    bool pruned_ = false;
    std::uint64_t cuts_ = 0;
    std::uint64_t rotate_ = 0;
};

} // namespace canopy::emu
