// canopy/runtime/join_continuation.hpp — a join's continuation as the runtime sees it: its payload, and
// the completion a child leaves to its sub-group instead of making it alone (join.hpp's complete).
//
// Why a child defers its completion (the cost it removes: docs/runtime.md, "Joins"): a record's
// children are spawned together, packed side by side into their sub-group's private ring and, more
// often than not, run in one front. Completed one by one, each pays a device-scope RMW on the record's
// count, and the last spawns the continuation as one more task through the rings. Deferred, the
// sub-group's resolve step (core_base::resolve_joins) sees every completion of the front at once:
//   - the lanes completing the same record are combined into one RMW of their number (`k`);
//   - when `k` is the record's whole child count (`n`), no other child exists: the record is resolved
//     with no device-scope atomic at all;
//   - a resolved record's continuation runs inline, in the lane that resolved it, in the same front:
//     it never enters a ring. What it completes in turn is resolved the same way, until the front has
//     nothing left to resolve.
// Records that stay in their sub-group (the ring core): most of a fine-grained tree's records are opened
// and resolved by one sub-group within a few fronts, and none of their children ever leaves it. Such a
// record needs no device-scope atomic at all: its count is decremented by a relaxed work-group-scope RMW
// (an L1 operation on the scoped-cache model: no write-back of the front's dirty lines, no invalidation
// after it), and its continuation runs with no acquire fence. Which records: a fork with a context
// (join_view::fork(ctx, ...)) writes the sub-group's local tag into its record's child-count word
// (join_tag_shift); the ring core gives each sub-group a tag of its own (its index on its device and
// the device, + 1) and moves it on (by the number of sub-groups of the run, so that no two sub-groups
// ever hold the same tag) every time fronts leave its private ring (ring_scheduler.hpp's move_out: a
// share, a spill, far fronts). A child runs in the sub-group whose private ring holds it, and leaves it
// only by such a move, so a record whose tag is the resolving sub-group's current one has had every
// child run here, every completion of it resolved here, and each through this work-group-scope path.
// Why that is race-free and ordered:
//   - among themselves: the resolve step's rounds begin with a hand-off at the private scope, so every
//     slot store of the record (and every earlier decrement) happens-before the RMW that finds itself
//     last, and two heads of one round (equal records in non-adjacent lanes) are both atomic RMWs;
//   - against the device-scope RMWs a record's later completions make once its tag is stale (a child
//     moved out): every local decrement happened-before the move's release at device scope, which
//     every moved child's completion follows through the queues' acquire (HRF-indirect transitivity;
//     under HRF-direct every hand-off on the chain is at device scope: policy.hpp's Sp);
//   - against the next owner of the record: the free list's release push follows them in program order.
// A fork without a context writes tag 0, which no sub-group holds: its record is always resolved at
// device scope. The tag field is 48 bits; it wraps after 2^48 / (sub-groups) moves of one sub-group
// (2^48 / 8,448, a full H200's: over 3 * 10^10), far beyond a run.
// A continuation the runtime ran inline has `ordered` set: the children's slot stores were ordered
// before it by the resolve step (a sub-group hand-off, and the last head's acquire fence), so take() skips
// its own acquire of the count. One spawned by the immediate path (a task that completes two slots,
// or a cooperative continuation, which needs a whole front) has `ordered` 0 and acquires.
#pragma once

namespace canopy::runtime {

/// A join continuation's payload: the record whose children have all finished. `ordered` is set by the
/// runtime only (a payload written as join_payload{record} leaves it 0, the safe value): when it ran
/// the continuation inline, to the record's child count (never 0: a fork has at least one child), so
/// that take() neither acquires nor reads the count from the record (one miss fewer on the resolving
/// lane, which reads its record right after the acquire that invalidated its L1 on the scoped model).
struct join_payload {
    unsigned record;
    unsigned ordered;
};

namespace detail {
/// One lane's deferred completion: `pending` is the record's count word (nullptr: none deferred), whose
/// low half counts the children not yet finished and whose high half is the record's child count (an
/// RMW on it returns both: join.hpp's open); `children` the record's child count word, which the resolve
/// step reads only when a segment of two or more lanes may have completed the whole record; `type` the
/// continuation's task-type index.
struct deferred_join {
    unsigned* pending;
    const unsigned long long* children;
    unsigned record;
    unsigned type;
    // Whether the record may be the sub-group's own (the header's "Records that stay in their
    // sub-group"): the completing task came from the private ring, or is the continuation of a record
    // that was. Only a hint, for whether to read the record's tag: a record opened by another
    // sub-group (its child came through a shared ring) is never local, and its word would be one more
    // miss before the RMW. The tag decides.
    bool maybe_local;
};

/// The result a lane delivered with its deferred completion, kept in its context for the continuation
/// the same lane runs once the resolve step resolves that record (join.hpp's take(ctx, p)): one read
/// fewer, and a miss fewer on the scoped-cache model, where the acquire before the continuation
/// invalidated the L1. Results of up to 16 bytes; a wider one is read from its slot.
struct carried_result {
    unsigned record = 0xffffffffu; // none
    unsigned slot = 0;
    unsigned long long words[2] = {};
};

/// The count word's halves (join.hpp's open): children not finished below, the child count above.
inline constexpr unsigned join_count_mask = 0xffffu;
inline constexpr unsigned join_children_shift = 16;
/// The child-count word (join_view's meta[2 * r + 1]): the child count below join_tag_shift, the
/// opening sub-group's local tag above (0: none; the header's "Records that stay in their sub-group").
inline constexpr unsigned join_tag_shift = 16;
} // namespace detail

} // namespace canopy::runtime
