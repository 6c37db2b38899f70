// canopy/workloads/mergesort_join_tasks.hpp — mergesort by joins (runtime/join.hpp): a task splits its
// range in two and forks both halves; the join's continuation merges them. The join tests
// (tests/runtime/test_join.cpp) and canopy_bench_join share it; examples/mergesort is the smaller
// program a user would write (one sequential merge per join), against the installed package.
//
// Buffers: keys are 32-bit words in buffer 0 (the input) and buffer 1 (scratch). A task sorts [lo, hi)
// so that the sorted keys end in buffer `dst`: its halves sort into the other buffer and the merge
// writes `dst`, so no level copies back. A leaf (at most `leaf` keys) reads buffer 0 (nothing writes a
// leaf's input range before the leaf has run: only its ancestors' merges do, after it completed),
// sorts in registers and writes `dst`.
//
// A join's result says where the sorted keys are: (lo, hi, buffer). The continuation merges the two
// runs it received; a merge of more than `grain` keys is cut into pieces by merge path (each piece's
// split found by a binary search over both runs: Odeh et al., Green et al. "GPU merge path"), forked on
// a second record whose continuation delivers the merged range: a parallel merge is a nested join.
//
// Ordering: a leaf's and a piece's plain stores of keys are ordered before the continuation that reads
// them by the join's release fetch_sub / acquire load (device scope, runtime/join.hpp): the keys travel
// exactly as a result slot does.
#pragma once

#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"

namespace canopy::workloads::checked {

/// What a join delivers: keys [lo, hi) are sorted in buffer `buf`.
struct sorted_run {
    unsigned lo, hi, buf, pad;
};

inline constexpr unsigned sort_join_width = 8; // K: a sort joins 2 halves, a merge up to 8 pieces

using sort_join_view = runtime::join_view<sorted_run, sort_join_width>;

/// The leaf sort's register array: a leaf holds at most this many keys.
inline constexpr unsigned sort_max_leaf = 64;

struct sort_view {
    unsigned* buf[2]; // buffer 0: the keys (input and, for the root, output); buffer 1: scratch
    unsigned leaf;    // the largest range a task sorts alone (at most sort_max_leaf)
    unsigned grain;   // the largest merge one task does alone
    sort_join_view j;
};

struct sort_args {
    unsigned lo, hi, dst;
    runtime::join_slot to;
};

/// A piece of a merge: outputs [k0, k1) (relative to lo) of merging runs [lo, mid) and [mid, hi) of
/// buffer `src` into buffer 1 - src.
struct merge_piece_args {
    unsigned lo, mid, hi, src, k0, k1;
    runtime::join_slot to;
};

struct sort_task;
struct sort_merge;
struct merge_piece_task;
struct merge_done;

namespace detail {

/// Merge path: how many of the first k outputs come from run a (na keys) rather than b (nb keys), ties
/// going to a (a stable merge).
CANOPY_DEVICE inline unsigned co_rank(const unsigned* a, unsigned na, const unsigned* b, unsigned nb,
                                      unsigned k) {
    unsigned lo = k > nb ? k - nb : 0u, hi = k < na ? k : na;
    while (lo < hi) {
        const unsigned i = lo + (hi - lo) / 2; // i < na and 1 <= k - i <= nb
        if (ld(&a[i]) <= ld(&b[k - i - 1])) {
            lo = i + 1;
        } else {
            hi = i;
        }
    }
    return lo;
}

/// Merges outputs [k0, k1) of runs a and b into out (out[k] for k in [k0, k1)).
CANOPY_DEVICE inline void merge_range(const unsigned* a, unsigned na, const unsigned* b, unsigned nb,
                                      unsigned* out, unsigned k0, unsigned k1) {
    unsigned i = co_rank(a, na, b, nb, k0);
    unsigned j = k0 - i;
    unsigned x = i < na ? ld(&a[i]) : 0u, y = j < nb ? ld(&b[j]) : 0u; // the runs' heads, in registers
    for (unsigned k = k0; k < k1; ++k) {
        if (j >= nb || (i < na && x <= y)) {
            st(&out[k], x);
            x = ++i < na ? ld(&a[i]) : 0u;
        } else {
            st(&out[k], y);
            y = ++j < nb ? ld(&b[j]) : 0u;
        }
    }
}

} // namespace detail

struct sort_task {
    using payload = sort_args;
    sort_view v;
    template <class Ctx> CANOPY_DEVICE void operator()(const sort_args& p, Ctx& ctx) const {
        const unsigned n = p.hi - p.lo;
        if (n <= v.leaf) {
            unsigned r[sort_max_leaf];
            for (unsigned i = 0; i < n; ++i) { // insertion sort in registers
                const unsigned x = ld(&v.buf[0][p.lo + i]);
                unsigned k = i;
                for (; k > 0 && r[k - 1] > x; --k) {
                    r[k] = r[k - 1];
                }
                r[k] = x;
            }
            for (unsigned i = 0; i < n; ++i) {
                st(&v.buf[p.dst][p.lo + i], r[i]);
            }
            v.j.complete<sort_merge>(ctx, p.to, sorted_run{p.lo, p.hi, p.dst, 0u});
            return;
        }
        const runtime::join_record rec = v.j.fork(ctx, 2, p.to);
        if (!rec.valid()) {
            return; // the pool ran out: join_pool::result() reports it after the run
        }
        const unsigned mid = p.lo + n / 2;
        spawn<sort_task>(ctx, {p.lo, mid, 1u - p.dst, rec.slot(0)});
        spawn<sort_task>(ctx, {mid, p.hi, 1u - p.dst, rec.slot(1)});
    }
};

/// The continuation of a sort: merges its two sorted halves into the other buffer, alone or in pieces.
struct sort_merge {
    using payload = runtime::join_payload;
    sort_view v;
    template <class Ctx> CANOPY_DEVICE void operator()(const runtime::join_payload& p, Ctx& ctx) const {
        const auto r = v.j.take(ctx, p);
        const unsigned lo = r.value[0].lo, mid = r.value[0].hi, hi = r.value[1].hi, src = r.value[0].buf;
        const unsigned n = hi - lo;
        if (n <= v.grain) {
            detail::merge_range(&v.buf[src][lo], mid - lo, &v.buf[src][mid], hi - mid, &v.buf[1u - src][lo],
                                0u, n);
            v.j.complete<sort_merge>(ctx, r.to, sorted_run{lo, hi, 1u - src, 0u});
            return;
        }
        unsigned pieces = (n + v.grain - 1) / v.grain;
        pieces = pieces < sort_join_width ? pieces : sort_join_width;
        const runtime::join_record rec = v.j.fork(ctx, pieces, r.to);
        if (!rec.valid()) {
            return;
        }
        for (unsigned i = 0; i < pieces; ++i) {
            // Pieces of equal size (+-1): piece i writes outputs [n i / pieces, n (i + 1) / pieces).
            const auto k0 = static_cast<unsigned>(static_cast<unsigned long long>(n) * i / pieces);
            const auto k1 = static_cast<unsigned>(static_cast<unsigned long long>(n) * (i + 1) / pieces);
            spawn<merge_piece_task>(ctx, {lo, mid, hi, src, k0, k1, rec.slot(i)});
        }
    }
};

struct merge_piece_task {
    using payload = merge_piece_args;
    sort_view v;
    template <class Ctx> CANOPY_DEVICE void operator()(const merge_piece_args& p, Ctx& ctx) const {
        detail::merge_range(&v.buf[p.src][p.lo], p.mid - p.lo, &v.buf[p.src][p.mid], p.hi - p.mid,
                            &v.buf[1u - p.src][p.lo], p.k0, p.k1);
        v.j.complete<merge_done>(ctx, p.to, sorted_run{p.lo + p.k0, p.lo + p.k1, 1u - p.src, 0u});
    }
};

/// The continuation of a merge's pieces: the merged range, delivered to the sort that asked for it.
struct merge_done {
    using payload = runtime::join_payload;
    sort_view v;
    template <class Ctx> CANOPY_DEVICE void operator()(const runtime::join_payload& p, Ctx& ctx) const {
        const auto r = v.j.take(ctx, p);
        sorted_run m = r.value[0]; // pieces are in order: the first's lo, the last's hi
        m.hi = r.value[r.n - 1].hi;
        v.j.complete<sort_merge>(ctx, r.to, m);
    }
};

/// Join records a sort of n keys may hold open at once: one per inner node of the split tree plus one
/// per piecewise merge; a leaf (a half of a range above `leaf`) holds at least leaf / 2 keys.
inline unsigned sort_join_records(unsigned n, unsigned leaf) {
    const unsigned least = leaf / 2 > 0 ? leaf / 2 : 1u;
    return 2 * (n / least + 1) + 8;
}

struct sort_outcome {
    std::vector<unsigned> keys; // sorted
    runtime::stats stats;
    unsigned free_records = 0, capacity = 0; // the pool after the run (equal: every record freed)
};

/// Sorts `keys` by joins under `cfg`. Throws canopy::error on bad leaf/grain, an exhausted pool, or a
/// root result that is not the whole range in buffer 0.
inline sort_outcome mergesort_by_joins(const std::vector<unsigned>& keys, const runtime::config& cfg,
                                       unsigned leaf = 32, unsigned grain = 4096) {
    if (leaf == 0 || leaf > sort_max_leaf || grain == 0) {
        throw error("mergesort: leaf in 1.." + std::to_string(sort_max_leaf) + " and grain >= 1 (got " +
                    std::to_string(leaf) + ", " + std::to_string(grain) + ")");
    }
    const auto n = static_cast<unsigned>(keys.size());
    device_buffer<unsigned> a(keys), b(keys.size());
    runtime::join_pool<sorted_run, sort_join_width> pool(sort_join_records(n, leaf));
    const sort_view v{{a.data(), b.data()}, leaf, grain, pool.view()};
    runtime::task_set<sort_task, sort_merge, merge_piece_task, merge_done> ts{
        sort_task{v}, sort_merge{v}, merge_piece_task{v}, merge_done{v}};
    ts.seed<sort_task>({0u, n, 0u, runtime::join_root_slot});
    sort_outcome o;
    o.stats = ts.run(cfg);
    const sorted_run r = pool.result();
    if (r.lo != 0 || r.hi != n || r.buf != 0) {
        throw error("mergesort: the root delivered [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
                    ") in buffer " + std::to_string(r.buf) + ", not [0, " + std::to_string(n) + ") in 0");
    }
    o.keys = a.to_vector();
    o.free_records = pool.free_records();
    o.capacity = pool.capacity();
    return o;
}

} // namespace canopy::workloads::checked
