// canopy/sync/backoff.hpp — backoff policies for the spinning locks (Stuart & Owens 2011, §5).
//
// Stuart & Owens, "Efficient Synchronization Primitives for GPUs" (2011): after a failed attempt a
// spinning block "does meaningless work for a while" so that the contended word (and, on Fermi, the
// atomic unit's queue) can drain. Their schedule is LINEAR WITH WRAP-AROUND: the wait starts at I_min
// units, grows by one unit per failed attempt, and resets to I_min after I_max (it is not exponential;
// see the digest's D.3.7). We also offer the exponential schedule the issue asks for.
//
// A unit is one skipped poll of canopy::spin_until: the policy's should_skip() makes the predicate
// return false without touching memory, so the wait goes through the platform's spin_until (the only
// sanctioned wait loop) and each skipped poll costs the platform's sleep of `unit` (one s_sleep on AMD,
// a __nanosleep on NVIDIA, one fiber yield on the emulator). `unit()` is a constant sleep (initial ==
// max) so that the schedule is the policy's, not spin_until's own exponential one.
//
// A policy is per-call state (a local in lock()/wait()), never shared between work-items.
#pragma once
#include "canopy/platform/config.hpp"
#include "canopy/platform/spin.hpp"

namespace canopy::sync {

/// No backoff: every poll is an attempt and spin_until never sleeps (the aggressive spin of SO11).
struct no_backoff {
    static constexpr const char* name = "none";
    CANOPY_HOST_DEVICE static constexpr canopy::backoff unit() { return {0, 0}; }
    CANOPY_HOST_DEVICE constexpr bool should_skip() { return false; }
    CANOPY_HOST_DEVICE constexpr void failed() {}
};

/// What both waiting schedules share: a countdown of skipped polls and the next wait's length; the
/// schedule (Derived::grow) says how the wait grows after each failure.
template <class Derived, unsigned IMin, unsigned UnitNs> struct counted_backoff {
    CANOPY_HOST_DEVICE static constexpr canopy::backoff unit() { return {UnitNs, UnitNs}; }
    /// True while the current wait lasts: the caller's poll must not touch the contended word.
    CANOPY_HOST_DEVICE constexpr bool should_skip() {
        if (skip_ != 0) {
            --skip_;
            return true;
        }
        return false;
    }
    /// An attempt failed: wait `next_` units, then the schedule's next length.
    CANOPY_HOST_DEVICE constexpr void failed() {
        skip_ = next_;
        next_ = Derived::grow(next_);
    }

  private:
    unsigned next_ = IMin;
    unsigned skip_ = 0;
};

/// SO11's schedule: wait I units after a failure, then I+1, ..., wrapping from IMax back to IMin.
template <unsigned IMin = 1, unsigned IMax = 8, unsigned UnitNs = 32>
struct linear_backoff : counted_backoff<linear_backoff<IMin, IMax, UnitNs>, IMin, UnitNs> {
    static_assert(IMin >= 1 && IMin <= IMax, "linear_backoff needs 1 <= IMin <= IMax");
    static constexpr const char* name = "linear";
    CANOPY_HOST_DEVICE static constexpr unsigned grow(unsigned i) { return i >= IMax ? IMin : i + 1; }
};

/// Exponential: wait IMin units after the first failure, doubling up to IMax (no wrap-around).
template <unsigned IMin = 1, unsigned IMax = 64, unsigned UnitNs = 32>
struct exponential_backoff : counted_backoff<exponential_backoff<IMin, IMax, UnitNs>, IMin, UnitNs> {
    static_assert(IMin >= 1 && IMin <= IMax, "exponential_backoff needs 1 <= IMin <= IMax");
    static constexpr const char* name = "exponential";
    CANOPY_HOST_DEVICE static constexpr unsigned grow(unsigned i) { return i >= IMax / 2 ? IMax : i * 2; }
};

} // namespace canopy::sync
