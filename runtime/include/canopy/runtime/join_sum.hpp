// canopy/runtime/join_sum.hpp — joins that reduce: a record whose children's results are summed into
// one word as they arrive, with no slot per child (notes/fork-join-on-gpus.md §6, option B's reduce
// mode). For counts (N-queens' solutions, a subtree's size) a record then costs 20 bytes at any fan-out,
// and a child delivers with exactly one device RMW, the same one that counts it down.
//
// The word: pending << 32 | sum. fork(n, to) writes n << 32; a child adds v - 2^32 (mod 2^64), which in
// one RMW adds v to the sum and takes one from the count. The child whose RMW returns a count of 1 is
// the last: it spawns the continuation, which reads the sum (the word's low half: the count is 0).
// The sum of one record's children must stay below 2^32 — a carry would count a child down — so
// complete() takes 32-bit values and a record's total is the user's bound to keep (the header's
// promise is checked: a carry leaves the count at a value no child brings to 0 exactly, so a record
// that overflowed never runs its continuation and the root is reported as never completed). For sums
// that may exceed 2^32, use join_view (runtime/join.hpp) with 64-bit slots.
//
// Memory orders and scopes are join.hpp's: the record's `to` is written plain and the word stored
// relaxed before any child exists (R1; the runtime's hand-off of the children carries them); each
// child's RMW is a release at device scope (it publishes whatever the child wrote before it: a sum
// needs nothing, but a child that also wrote results elsewhere, e.g. a board or a buffer, is covered),
// and take() acquire-loads the word, which the RMWs' release sequence makes synchronize with every
// child. The free list is join.hpp's (striped versioned Treiber stacks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/runtime/join.hpp"

namespace canopy::runtime {

/// What a summing continuation takes from its record: the children's sum and where it goes.
struct join_sum_result {
    unsigned sum;
    join_slot to;
};

/// The device side of a join_sum_pool: a plain struct that task functors hold by value.
struct join_sum_view {
    detail::join_view_common common; // the free list, the run's words, fork's failure path (join.hpp)
    unsigned long long* word;        // per record: pending << 32 | sum
    unsigned long long* meta;        // per record: `to` (join_slot's word)
    unsigned long long* root_value;  // the run's result

    /// Takes a record for n >= 1 children whose summed result goes to `to`. An empty pool (or n == 0)
    /// is recorded and returns an invalid record: return without spawning.
    CANOPY_DEVICE join_record fork(unsigned n, join_slot to) const {
        return open(common.take_record(n != 0), n, to);
    }

    /// fork(n, to) with the task's context, as join_view's: the same record (a sum's children complete
    /// by their own RMW, never through the sub-group's resolve step, so the context adds nothing here).
    template <class Ctx> CANOPY_DEVICE join_record fork(Ctx&, unsigned n, join_slot to) const {
        return fork(n, to);
    }

    /// fork(n, to), except that an empty pool runs the subproblem inline (join_view::fork_or_inline):
    /// `run_inline()` returns the sum the continuation would have completed `to` with.
    template <class Cont, class Ctx, class Inline>
    CANOPY_DEVICE join_record fork_or_inline(Ctx& ctx, unsigned n, join_slot to, Inline&& run_inline) const {
        if (n == 0) {
            return fork(n, to);
        }
        const join_record r = open(common.take_record_or_count(), n, to);
        if (!r.valid()) {
            complete<Cont>(ctx, to, run_inline());
        }
        return r;
    }

    /// Adds one child's v to `to`'s record (any slot of it: a sum has no order); the last child spawns
    /// the continuation Cont (payload: join_payload). Nothing of the record is read after the RMW.
    template <class Cont, class Ctx> CANOPY_DEVICE void complete(Ctx& ctx, join_slot to, unsigned v) const {
        if (to.root()) {
            atomic_ref<unsigned long long, scope::device>(*root_value).store(v, std::memory_order_relaxed);
            common.root_completed();
            return;
        }
        // v - 2^32 modulo 2^64: adds v to the sum and one child less to the count, in one RMW. Release at
        // device scope: whatever this child wrote happens-before the continuation (its acquire load).
        const unsigned long long delta = static_cast<unsigned long long>(v) - (1ull << 32);
        const unsigned rec = to.record();
        const unsigned long long old = atomic_ref<unsigned long long, scope::device>(word[rec]).fetch_add(
            delta, std::memory_order_release);
        if ((old >> 32) == 1u && (old & 0xffffffffull) + v < (1ull << 32)) {
            ctx.template spawn<Cont>(join_payload{rec, 0});
        }
    }

    /// The continuation's first step: the sum and `to`; frees the record.
    CANOPY_DEVICE join_sum_result take(const join_payload& p) const {
        // Acquire at device scope: synchronizes with every child's release (one release sequence).
        const unsigned long long w =
            atomic_ref<unsigned long long, scope::device>(word[p.record]).load(std::memory_order_acquire);
        const unsigned long long to = ld(&meta[p.record]);
        join_sum_result r{static_cast<unsigned>(w), join_slot{static_cast<unsigned>(to)}};
        common.free_record(p.record); // after every read of the record above
        return r;
    }

  private:
    /// Opens record idx (join_root: none, passed on as an invalid record) for n children of `to`.
    CANOPY_DEVICE join_record open(unsigned idx, unsigned n, join_slot to) const {
        if (idx == join_root) {
            return {join_root};
        }
        // Plain: read by the continuation, which every child's release orders after this (join.hpp).
        st(&meta[idx], static_cast<unsigned long long>(to.word));
        // Relaxed: carried to the children by the runtime's hand-off of the children (R1).
        atomic_ref<unsigned long long, scope::device>(word[idx]).store(
            static_cast<unsigned long long>(n) << 32, std::memory_order_relaxed);
        return {idx};
    }
};

/// The host side: `capacity` summing join records (20 bytes each: the word, `to` and a free-list link).
/// result() after a run: the root's value, or canopy::error naming what went wrong and the fix.
class join_sum_pool : public detail::join_pool_common {
  public:
    explicit join_sum_pool(unsigned capacity)
        : join_pool_common(capacity, "join_sum_pool"), word_(capacity), meta_(capacity), root_value_(1) {
        reset();
    }

    join_sum_view view() const { return {common_view(), word_.data(), meta_.data(), root_value_.data()}; }

    /// Every record free, no result, no failure: before each run after the first (the constructor
    /// does it once; result() after an un-reset second run names this).
    void reset() {
        reset_common();
        word_.fill_zero();
        root_value_.fill_zero();
    }

    /// The root's sum after a run; throws canopy::error when the pool ran out, a fork had no
    /// children, or the root never (or more than once) completed.
    unsigned long long result() const {
        check_result("a task forked a summing join of 0 children; complete the task's slot directly instead",
                     ", or one record's sum reached 2^32, which counts a child down (use join_view with "
                     "64-bit results)");
        unsigned long long v = 0;
        root_value_.download(&v, 1);
        return v;
    }

  private:
    device_buffer<unsigned long long> word_;
    device_buffer<unsigned long long> meta_;
    device_buffer<unsigned long long> root_value_;
};

} // namespace canopy::runtime
