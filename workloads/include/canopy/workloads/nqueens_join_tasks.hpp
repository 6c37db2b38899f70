// canopy/workloads/nqueens_join_tasks.hpp — N-queens counted by summing joins (runtime/join_sum.hpp): the
// fork-join benchmark GTaP publishes beside fib (notes/peers.md: n-queens 16 in 115.7 ms on a GH200). A
// task holds a board's first rows as three bitmasks (the columns and both diagonals taken), forks one
// summing record for its legal squares in the next row, spawns a task per square and returns; the
// continuation passes the sum to its parent. The last `cutoff` rows are counted in one task, by the
// sequential loop that is also the oracle (nqueens_count). canopy_bench_join runs it; examples/nqueens
// is the same program written as a user would.
#pragma once

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"

namespace canopy::workloads::checked {

/// The published counts (OEIS A000170) for N = 0..16.
inline constexpr unsigned long long nqueens_published[17] = {
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};

/// Solutions that complete a board of `row` rows placed (masks of the squares the placed queens attack
/// in the next row), counted sequentially with an explicit stack (no recursion in device code). With
/// row = 0 and empty masks: the whole count, the oracle.
CANOPY_HOST_DEVICE inline unsigned nqueens_count(unsigned n, unsigned row, unsigned cols, unsigned left,
                                                 unsigned right) {
    if (row == n) {
        return 1;
    }
    const unsigned all = (1u << n) - 1;
    unsigned todo[16], c[16], l[16], r[16]; // per depth: the squares still to try, and the three masks
    int d = 0;
    unsigned found = 0;
    todo[0] = all & ~(cols | left | right);
    c[0] = cols;
    l[0] = left;
    r[0] = right;
    while (d >= 0) {
        if (todo[d] == 0) {
            --d;
            continue;
        }
        const unsigned q = todo[d] & (0u - todo[d]); // the lowest square left in this row
        todo[d] &= todo[d] - 1;
        if (row + static_cast<unsigned>(d) + 1 == n) {
            ++found;
            continue;
        }
        c[d + 1] = c[d] | q;
        l[d + 1] = (l[d] | q) << 1;
        r[d + 1] = (r[d] | q) >> 1;
        todo[d + 1] = all & ~(c[d + 1] | l[d + 1] | r[d + 1]);
        ++d;
    }
    return found;
}

/// A board: n, the rows placed, the squares they attack in the next row, and where its count goes.
struct nqueens_board {
    unsigned n, row;
    unsigned cols, left, right;
    runtime::join_slot to;
};

struct nqueens_total;

/// One board: counts it alone within `cutoff` rows of the end; otherwise forks a summing record of one
/// child per legal square of the next row (a dead end completes 0).
struct nqueens_place {
    using payload = nqueens_board;
    runtime::join_sum_view j;
    unsigned cutoff;
    template <class Ctx> CANOPY_DEVICE void operator()(const nqueens_board& b, Ctx& ctx) const {
        unsigned squares = b.row < b.n ? ((1u << b.n) - 1) & ~(b.cols | b.left | b.right) : 0u;
        if (b.n - b.row <= cutoff || squares == 0) {
            j.complete<nqueens_total>(ctx, b.to, nqueens_count(b.n, b.row, b.cols, b.left, b.right));
            return;
        }
        unsigned children = 0;
        for (unsigned m = squares; m != 0; m &= m - 1) {
            ++children;
        }
        const runtime::join_record rec = j.fork(ctx, children, b.to);
        if (!rec.valid()) {
            return; // the pool ran out: its result() names the fix after the run
        }
        for (unsigned i = 0; squares != 0; ++i) {
            const unsigned q = squares & (0u - squares);
            squares &= squares - 1;
            spawn<nqueens_place>(
                ctx, {b.n, b.row + 1, b.cols | q, (b.left | q) << 1, (b.right | q) >> 1, rec.slot(i)});
        }
    }
};

/// The continuation: passes its children's sum to its own parent.
struct nqueens_total {
    using payload = runtime::join_payload;
    runtime::join_sum_view j;
    template <class Ctx> CANOPY_DEVICE void operator()(const runtime::join_payload& p, Ctx& ctx) const {
        const runtime::join_sum_result r = j.take(p);
        j.complete<nqueens_total>(ctx, r.to, r.sum);
    }
};

} // namespace canopy::workloads::checked
