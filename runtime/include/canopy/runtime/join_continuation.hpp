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
} // namespace detail

} // namespace canopy::runtime
