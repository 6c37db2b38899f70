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
#include "canopy/platform/ids.hpp"

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

/// Whether lanes may hold records of a pool of `capacity` for their next forks (core_base's
/// reserve_records): records no other sub-group can take, at most one a lane, so only while they are a
/// quarter of the pool at most (and the pool's stranded list, capacity / 4, holds every one at the end).
CANOPY_DEVICE inline bool join_may_reserve(unsigned capacity) {
    return static_cast<unsigned long long>(capacity) >= 4ull * grid_dim() * block_dim();
}

/// The records a lane's inline continuations freed during one resolve step (core_base::resolve_joins),
/// all of one pool (`next`: its link array; `stack`: the lane's stripe): the latest in `spare`, the
/// earlier ones chained first -> ... -> last as they are freed. After the step's rounds the ring core
/// hands spares to lanes of its sub-group that hold no reserved record (`reserved`: the record the
/// lane's next fork takes, with no device access at either end; core_base::reserve_records), and the
/// rest goes back to the pool in one CAS, instead of one push inside each round.
struct record_stash {
    static constexpr unsigned none = 0xffffffffu; // join.hpp's join_root
    unsigned* next = nullptr;
    unsigned long long* stack = nullptr;
    unsigned first = none;
    unsigned last = none;
    unsigned spare = none;        // the latest record freed, kept out of the chain so it may be handed on
    unsigned capacity = 0;        // the pool's (put): how many records may be held by lanes at once
    unsigned* stranded = nullptr; // the pool's (put): join_free_list::stranded
    // A record handed to this lane by a resolve step (its pool's link array and a stripe to return it
    // to): its next fork of that pool takes it (join_view_common::take_record(ctx, ...)); what is
    // left at the sub-group's exit goes back to the pool (give_back_reserved).
    unsigned reserved = none;
    unsigned* reserved_pool = nullptr;
    unsigned long long* reserved_stack = nullptr;
    unsigned* reserved_stranded = nullptr;
    unsigned reserved_capacity = 0;
    // The head this lane's last push wrote, and on which stack (kept across resolve steps): the lane's
    // stripe is mostly its own (join.hpp: a stripe per dozen resident lanes, pops rare while
    // never-used records last), so the next push's CAS usually expects it right and needs no load
    // first, an L2 read on the last lane's path after the rounds. A wrong guess costs one failed CAS,
    // which returns the head as the load would have.
    unsigned long long* pushed_to = nullptr;
    unsigned long long pushed = 0;

    /// Keeps record idx of the pool (`pool`, of `cap` records; this lane's stripe `to`) until the step
    /// ends; false when the stash holds another pool's records: the caller frees it at once.
    CANOPY_DEVICE bool put(unsigned* pool, unsigned long long* to, unsigned idx, unsigned cap,
                           unsigned* strand) {
        if ((spare != none || first != none) && next != pool) {
            return false;
        }
        if (spare == none && first == none) {
            next = pool;
            stack = to;
            capacity = cap;
            stranded = strand;
        } else {
            chain(spare);
        }
        spare = idx;
        return true;
    }

    /// Every record kept back to its pool, in one push (a release CAS: the lane's reads of every record
    /// in it happen-before their next owners' writes).
    CANOPY_DEVICE void push() {
        if (spare != none) {
            chain(spare);
            spare = none;
        }
        if (first != none) {
            pushed = push_free_records(*stack, next, first, last, pushed_to == stack ? &pushed : nullptr);
            pushed_to = stack;
            first = last = none;
        }
    }

    /// Reserves record idx of a pool (its link array, a stripe, its stranded list and capacity) for
    /// this lane's next fork.
    CANOPY_DEVICE void reserve(unsigned idx, unsigned* pool, unsigned long long* to, unsigned* strand,
                               unsigned cap) {
        reserved = idx;
        reserved_pool = pool;
        reserved_stack = to;
        reserved_stranded = strand;
        reserved_capacity = cap;
    }

    /// The reserved record back to its pool (the sub-group's exit: no fork of this lane will take it).
    CANOPY_DEVICE void give_back_reserved() {
        if (reserved != none) {
            (void)push_free_records(*reserved_stack, reserved_pool, reserved, reserved);
            reserved = none;
        }
    }

  private:
    /// Adds idx to the chain. The link is relaxed, as every `next` store (join.hpp: a slow pop may read
    /// the link of a record it saw on a stack in an earlier life); push()'s release CAS publishes it.
    /// Stored in the round, where a lane that is not the round's slowest has time to spare, rather than
    /// in push(), where every lane waits for the slowest.
    CANOPY_DEVICE void chain(unsigned idx) {
        if (first == none) {
            last = idx;
        } else {
            atomic_ref<unsigned, scope::device>(next[idx]).store(first, std::memory_order_relaxed);
        }
        first = idx;
    }
};

} // namespace canopy::runtime::detail
