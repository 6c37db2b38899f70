// canopy/runtime/join_stash.hpp — the join records a lane's inline continuations free during one resolve
// step, kept in its task context and returned to their pool after the step in one push; and the
// free-list push itself (join.hpp's free lists).
//
// Why: the resolve step (core_base::resolve_joins) runs a resolved record's continuation inline, round
// after round, and each round waits for its slowest head. A continuation that freed its record at once
// paid a push inside the round: a load, a `next` store and a release CAS at device scope, the largest
// single item of a round on the scoped-cache model (docs/runtime.md, "Where a join's cycles go"). A
// continuation that takes its record with take(ctx, p) chains it in its lane's stash instead; the lane
// pushes the chain once, after the step's last round. fib(16) by joins, whose continuations climb the
// tree several rounds per front: 7% fewer cycles on the timed model (docs/runtime.md).
// Why no order is needed before the push: until it, the records are this work-item's alone (its
// continuation read them; nothing else can take them), and the push is the same release CAS as a
// single record's, so the lane's reads of every record in the chain happen-before their next owners'
// writes (the pop's acquire). The links are relaxed atomics, as every `next` store: a slow pop may read
// the link of a record it saw on a stack in an earlier life, and that read must not be a data race.
// Why the records do not stay with the lane for its own next fork (no device access at either end):
// measured, not kept (docs/runtime.md, "Joins"). The forks and the frees fall on different lanes (fib:
// 1,163 of 14,314 forks found one), it made no difference beyond the schedule's noise (fib(16) 115,506
// against 117,920 cycles with it, UTS 7.26 M against 7.20 M), and records held by lanes between steps
// are records the pool cannot hand out, which a capacity measured by peak_open() would not cover.
#pragma once

#include "canopy/platform/atomic.hpp"

namespace canopy::runtime::detail {

/// Pushes the chain first -> ... -> last (linked by `next`, last's link written here) on a versioned
/// Treiber stack (join.hpp: why versioned, why striped): a single record is first == last.
/// `guess`: the head the caller last wrote to this stack (no load first when it is still the head: a
/// failed CAS returns the head, as the load would have), or nullptr. Returns the head it wrote.
CANOPY_DEVICE inline unsigned long long push_free_records(unsigned long long& stack, unsigned* next,
                                                          unsigned first, unsigned last,
                                                          const unsigned long long* guess = nullptr) {
    atomic_ref<unsigned long long, scope::device> h(stack);
    unsigned long long cur = guess != nullptr ? *guess : h.load(std::memory_order_relaxed);
    for (;;) {
        atomic_ref<unsigned, scope::device>(next[last])
            .store(static_cast<unsigned>(cur), std::memory_order_relaxed);
        const unsigned long long want = ((cur >> 32) + 1) << 32 | first;
        // Release: our reads of the records (take) happen-before their next owners' writes; and the
        // `next` stores before it are what a pop that sees these heads reads.
        if (h.compare_exchange_strong(cur, want, std::memory_order_release, std::memory_order_relaxed)) {
            return want;
        }
    }
}

/// The records a lane's inline continuations freed during one resolve step (core_base::resolve_joins),
/// all of one pool (`next`: its link array; `stack`: the lane's stripe), chained first -> ... -> last
/// as they are freed and pushed back in one CAS after the step's rounds, instead of one push inside
/// each round.
struct record_stash {
    static constexpr unsigned none = 0xffffffffu; // join.hpp's join_root
    unsigned* next = nullptr;
    unsigned long long* stack = nullptr;
    unsigned first = none;
    unsigned last = none;
    // The head this lane's last push wrote, and on which stack (kept across resolve steps): the lane's
    // stripe is mostly its own (join.hpp: a stripe per dozen resident lanes, pops rare while
    // never-used records last), so the next push's CAS usually expects it right and needs no load
    // first, an L2 read on the last lane's path after the rounds. A wrong guess costs one failed CAS,
    // which returns the head as the load would have.
    unsigned long long* pushed_to = nullptr;
    unsigned long long pushed = 0;

    /// Chains record idx of the pool (`pool`, this lane's stripe `to`) until push(); false when the
    /// chain holds another pool's records: the caller frees it at once.
    CANOPY_DEVICE bool put(unsigned* pool, unsigned long long* to, unsigned idx) {
        if (first != none && next != pool) {
            return false;
        }
        if (first == none) {
            next = pool;
            stack = to;
            last = idx;
        } else {
            // Relaxed, as every `next` store (join.hpp: a slow pop may read the link of a record it saw
            // on a stack in an earlier life); push()'s release CAS publishes it. Stored now, in the
            // round, where a lane that is not the round's slowest has time to spare, rather than in
            // push(), where every lane waits for the slowest.
            atomic_ref<unsigned, scope::device>(pool[idx]).store(first, std::memory_order_relaxed);
        }
        first = idx;
        return true;
    }

    /// The chain back to its pool, in one push (a release CAS: the lane's reads of every record in it
    /// happen-before their next owners' writes).
    CANOPY_DEVICE void push() {
        if (first != none) {
            pushed = push_free_records(*stack, next, first, last, pushed_to == stack ? &pushed : nullptr);
            pushed_to = stack;
            first = last = none;
        }
    }
};

} // namespace canopy::runtime::detail
