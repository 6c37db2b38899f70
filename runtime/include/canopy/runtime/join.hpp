// canopy/runtime/join.hpp — tasks that wait for their children: join records with one result slot per
// child, and a continuation task that runs once every child (and everything it joined) has finished.
//
// The shape is Cilk-1's successor closure, TBB's continuation task and GTaP's join record
// (notes/fork-join-on-gpus.md §6, option A): a task never blocks a lane. A task that forks
//   1. takes a record from the pool (fork(n, to)): n slots, a count of n, and `to`, where the record's
//      own result goes (its parent's slot, or the root);
//   2. spawns its n children, each carrying one slot (record.slot(i)), and returns;
//   3. each child, when it is done, delivers its result (complete<Cont>(ctx, slot, value)): the child
//      that brings the count to zero runs the continuation task Cont, with the record as its payload:
//      inline, by its sub-group's resolve step, which combines a front's completions of one record
//      (join_continuation.hpp), or spawned, on the paths that header lists;
//   4. the continuation takes the results (take(ctx, p)): the slots, and `to`. It frees the record
//      (an inline one's after its resolve step, with the lane's other frees: join_stash.hpp) and
//      completes `to` with a value of its own, or forks again passing `to` on (nesting: a continuation
//      is the rest of its task, so whatever it joins is part of that task's completion).
// A child that forks does not complete its slot itself: it passes the slot on as its record's `to`.
// The root's `to` is join_root: completing it stores the run's result, which the host reads with
// join_pool::result() after the run.
//
// Why the memory orders and scopes are these (device scope throughout: a child may run on any
// work-group, wherever the policy's queues carry it, and so may the continuation):
//   - The record's count, `to` and slot count are written by the forking lane before any child exists
//     (rule R1: children leave a lane's staging buffer only after its task returns), so the runtime's
//     hand-off of the children (release/acquire at the policy's scopes, docs/scopes.md) orders them
//     before every child's RMW. The count too is a plain store: it is only ever read by RMWs and the
//     continuation's acquire load, each ordered after it by that hand-off (a recycled record's earlier
//     RMWs happen-before it through the free list's release and acquire, or its resolver's fence).
//   - A child writes its slot with plain stores, then fetch_subs the count with release at device
//     scope (R2), and reads nothing of the record after that RMW (a record may be recycled as soon as
//     its continuation has run). The count word's low half counts the children not yet finished, its
//     high half is the child count (open() stores n | n << 16), so the RMW that finds itself last
//     learns the child count from its own result, with no read of the record.
//   - The continuation acquire-loads the count (it reads 0, the last child's RMW). The children's
//     fetch_subs form one release sequence, so that load synchronizes with every child's release, and
//     every slot store happens-before the continuation's reads whatever queues and scopes carried the
//     continuation itself (R3: the last child spawns it, never calls it, so chains of completions
//     never recurse). That is the spawned path; the inline one (join_continuation.hpp) is ordered by
//     the resolve step instead, and resolves chains round by round, never by recursion either.
//   - Never-used records first: each stripe hands out its records s, s + stripes, ... by a relaxed
//     device-scope fetch_add (take_fresh) until it has none left, with no acquire, since such a record
//     has had no owner since the host's reset, which the launch orders before every access. A pool
//     larger than the run's joins therefore never pops: a pop's acquire invalidates the work-group's
//     cache on the scoped-cache model (UTS T1's shape by joins: 317,514 invalidations before, 29,516
//     with this and the resolve step's acquire fence).
//   - Free lists: versioned Treiber stacks of record indices, each head carrying a version (ABA: a
//     record is freed and taken again while a slow pop still holds its old head). A work-item pops
//     from and pushes to the stack of its global id modulo the stripe count, and pops from the next
//     ones when that is empty. Why striped, and why the stripe count grows with the pool (capacity / 16
//     rounded down to a power of two, from 32 to 8192: join_stripes_for): a stack that many lanes push
//     and pop at once is a CAS queue, whose retries cost more than the joins themselves (the measured
//     history: docs/runtime.md, "Joins"; docs/gpu-check.md). The default 2^18 records leave about a
//     dozen of a full GPU's resident lanes per stack. Push is a release CAS (the continuation's reads of
//     the slots happen-before the next owner's writes); pop an acquire CAS. `next` words are relaxed
//     atomics: a pop may read the `next` of a record another pop has just taken; its CAS then fails
//     on the version, but the read itself must not be a data race.
// Failures are reported, never a hang: an empty pool (every stack found empty by one scan: with
// concurrent frees a scan may miss a record freed behind it, so "empty" means all but a few records in
// use) or a fork of more than K children sets a flag and fork returns an invalid record; the forking task
// returns, the run drains (nothing waits on the join), and result() throws naming the fix.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/runtime/task_context.hpp"

namespace canopy::runtime {

/// The record whose slot receives the run's result.
inline constexpr unsigned join_root = 0xffffffffu;
static_assert(detail::record_stash::none == join_root, "join_stash.hpp's empty mark is join_root");

/// Free-list stacks of a join pool of `capacity` records: capacity / 16 rounded down to a power of two,
/// from 32 to 8192 (the header says why it grows). A record starts on stack index % stripes.
inline constexpr unsigned join_stripes_for(unsigned capacity) {
    unsigned s = 32;
    while (s < 8192 && 2 * s <= capacity / 16) {
        s *= 2;
    }
    return s;
}

/// A join_slot's low bits name the slot of its record: a record joins at most 2^6 = 64 children.
inline constexpr unsigned join_slot_bits = 6;
/// The most records a pool holds: a join_slot names its record in the other 26 bits, and the all-ones
/// word is the root's.
inline constexpr unsigned join_max_records = (1u << (32 - join_slot_bits)) - 1u;

/// Where a result goes: slot slot() of record record() (join_root: the run's result), in one 32-bit
/// word, record << join_slot_bits | slot. One word and not two: it rides in every child's payload, and
/// each payload word is a load per lane when a front is read and a load and a store per task when a
/// front is shared (timed hrf8, fib(16) by joins over seeds 1-5, whose payload it takes from 3 words
/// to 2: hrf-indirect 98,983 -> 90,749 cycles, steal-emulated 376,423 -> 281,950). A payload member
/// (no default member initializers: payloads are trivial, copied as words).
struct join_slot {
    unsigned word;
    CANOPY_HOST_DEVICE constexpr bool root() const { return word == join_root; }
    CANOPY_HOST_DEVICE constexpr unsigned record() const {
        return word == join_root ? join_root : word >> join_slot_bits;
    }
    CANOPY_HOST_DEVICE constexpr unsigned slot() const { return word & ((1u << join_slot_bits) - 1u); }
};

/// The root task's slot: completing it stores the run's result (join_pool::result()).
inline constexpr join_slot join_root_slot{join_root};

/// A record fork() returned; invalid when the pool was empty or n was more than K (reported).
struct join_record {
    unsigned index;
    CANOPY_HOST_DEVICE bool valid() const { return index != join_root; }
    CANOPY_HOST_DEVICE join_slot slot(unsigned i) const { return {index << join_slot_bits | i}; }
};

/// What a continuation takes from its record: the children's results, how many, where its own result
/// goes, and the mark its fork gave the record (fork's last argument; 0 by default).
template <class R, unsigned K> struct join_results {
    R value[K];
    unsigned n;
    join_slot to;
    unsigned mark;
};

/// What take(p, visit) returns beside the results it visits: how many, where the continuation's own
/// result goes, and the record's mark.
struct join_taken {
    unsigned n;
    join_slot to;
    unsigned mark;
};

namespace detail {
/// join_pool's failure flags (bits of one word).
inline constexpr unsigned join_exhausted = 1u, join_too_wide = 2u;

/// The pool's free records: striped, versioned Treiber stacks of record indices (the header says
/// why striped, why versioned, and each memory order). join_view and join_sum_view share it.
struct join_free_list {
    unsigned long long* head; // the stripes' free lists: version << 32 | index (join_root: empty)
    unsigned* next;           // per record: the next free record
    // Per stripe: takes of its never-used records since the reset (past its share: none left). 64-bit,
    // so that takes on a stripe long since exhausted cannot wrap it round to a record in use.
    unsigned long long* fresh;
    unsigned mask; // stripes - 1 (join_stripes_for: a power of two)
    unsigned capacity;
    // Records still reserved for a lane's next fork when its sub-group's run ended (core_base's
    // reserve_records): [count, indices...], capacity / 4 of them at most; the host counts them free.
    unsigned* stranded;

    /// A free record, from the caller's stripe first (join_root: every stripe was empty). A stripe's
    /// never-used records first (take_fresh: no acquire), then its stack.
    CANOPY_DEVICE unsigned take() const {
        const unsigned home = global_id() & mask;
        unsigned idx = join_root;
        for (unsigned k = 0; k <= mask && idx == join_root; ++k) {
            const unsigned s = (home + k) & mask;
            idx = take_fresh(s);
            if (idx == join_root) {
                idx = pop(head[s]);
            }
        }
        return idx;
    }

    /// The caller's stripe: where give() and a lane's chain of freed records (join_stash.hpp) go back.
    CANOPY_DEVICE unsigned long long* home() const { return &head[global_id() & mask]; }

    /// Returns a record to the caller's stripe (a release CAS: join_stash.hpp's push_free_records).
    CANOPY_DEVICE void give(unsigned idx) const { push_free_records(*home(), next, idx, idx); }

    /// Stripe s's next never-used record (s, s + stripes, ...), or join_root when it has handed them
    /// all out. Relaxed at device scope, and no acquire: such a record has had no owner since the
    /// host's reset, which the launch orders before every access; the RMW hands each index out once.
    /// Why it matters: a pop's acquire invalidates the work-group's cache on the scoped-cache model
    /// (and on GPUs whose L1 is not coherent), and a run whose pool is large enough never pops at all.
    /// One RMW and no load first (a load that skipped the RMW on an exhausted stripe cost a second
    /// device access on every fork of the common case); the count is 64-bit, so an exhausted stripe's
    /// takes go on counting past its share without ever wrapping.
    CANOPY_DEVICE unsigned take_fresh(unsigned s) const {
        const unsigned long long k =
            atomic_ref<unsigned long long, scope::device>(fresh[s]).fetch_add(1u, std::memory_order_relaxed);
        const unsigned long long idx = s + (mask + 1ull) * k;
        return k < capacity && idx < capacity ? static_cast<unsigned>(idx) : join_root;
    }

    CANOPY_DEVICE unsigned pop(unsigned long long& stack) const {
        atomic_ref<unsigned long long, scope::device> h(stack);
        unsigned long long cur = h.load(std::memory_order_acquire);
        for (;;) {
            const unsigned idx = static_cast<unsigned>(cur);
            if (idx == join_root) {
                return join_root;
            }
            const unsigned nx =
                atomic_ref<unsigned, scope::device>(next[idx]).load(std::memory_order_relaxed);
            const unsigned long long want = ((cur >> 32) + 1) << 32 | nx;
            // Acquire: the previous owner's reads of this record happen-before our writes to it.
            if (h.compare_exchange_strong(cur, want, std::memory_order_acquire, std::memory_order_acquire)) {
                return idx;
            }
        }
    }
};

/// The host side of a free list, owned by both pool kinds: the stacks' heads and the records' links,
/// sized once from the capacity (join_stripes_for).
class join_free_store {
  public:
    explicit join_free_store(unsigned capacity)
        : capacity_(capacity), stripes_(join_stripes_for(capacity)), head_(stripes_), next_(capacity),
          fresh_(stripes_), stranded_(1 + capacity / 4) {}

    join_free_list view() const {
        return {head_.data(), next_.data(), fresh_.data(), stripes_ - 1, capacity_, stranded_.data()};
    }

    /// Every record free and never used: the stacks empty, every stripe's fresh count 0 (stripe s
    /// hands out s, s + stripes, ...; take_fresh).
    void reset() {
        fresh_.fill_zero();
        stranded_.fill_zero();
        head_.upload(std::vector<unsigned long long>(stripes_, join_root));
    }

    /// Records on the stranded list after a run (join_free_list::stranded).
    unsigned stranded() const {
        unsigned n = 0;
        stranded_.download(&n, 1);
        return n < capacity_ / 4 ? n : capacity_ / 4;
    }

    /// Free records after a run, on the host, each counted once however often it appears: each
    /// stripe's records not yet handed out, the records on its stack, and the stranded ones. Distinct,
    /// so that a record freed twice cannot stand in for one that was never freed.
    unsigned count() const {
        std::vector<unsigned> nx(capacity_);
        next_.download(nx.data(), capacity_);
        std::vector<unsigned long long> h(stripes_);
        head_.download(h.data(), stripes_);
        std::vector<unsigned long long> f(stripes_);
        fresh_.download(f.data(), stripes_);
        std::vector<unsigned> st(1 + capacity_ / 4);
        stranded_.download(st.data(), st.size());
        std::vector<bool> seen(capacity_, false);
        unsigned n = 0;
        const auto mark = [&](unsigned i) {
            if (i < capacity_ && !seen[i]) {
                seen[i] = true;
                ++n;
            }
        };
        const unsigned held = st[0] < capacity_ / 4 ? st[0] : capacity_ / 4; // as stranded()
        for (unsigned k = 0; k < held; ++k) {
            mark(st[1 + k]);
        }
        for (unsigned s = 0; s < stripes_; ++s) {
            // Stripe s hands out s, s + stripes, ...: the first f[s] are taken.
            for (unsigned long long i = s + stripes_ * f[s]; f[s] < capacity_ && i < capacity_;
                 i += stripes_) {
                mark(static_cast<unsigned>(i));
            }
            unsigned steps = 0; // a cycle on a corrupt stack ends the walk
            for (unsigned i = static_cast<unsigned>(h[s]);
                 i != join_root && i < capacity_ && steps <= capacity_; i = nx[i], ++steps) {
                mark(i);
            }
        }
        return n;
    }

  private:
    unsigned capacity_, stripes_;
    device_buffer<unsigned long long> head_;
    device_buffer<unsigned> next_;
    device_buffer<unsigned long long> fresh_;
    device_buffer<unsigned> stranded_;
};
/// What both pool kinds' device views share: the free list, the run's two words and fork's failure
/// path (join_view, join_sum_view).
struct join_view_common {
    join_free_list free;
    unsigned* root_done; // 1 once the root's slot was completed
    unsigned* failed;    // join_exhausted | join_too_wide
    unsigned* inlined;   // forks that found the pool empty and ran their subproblem inline (fork_or_inline)
    unsigned* open;      // [records open now, their peak] when the pool tracks its peak, else nullptr

    /// A record was taken / freed: the open count and its peak, when tracked (join_pool::track_peak).
    /// Relaxed device-scope RMWs: counts only, read by the host after the run. The peak is exact: every
    /// increment's result reaches the max, and the counter's modification order is one order.
    CANOPY_DEVICE void opened() const {
        if (open != nullptr) {
            const unsigned now =
                atomic_ref<unsigned, scope::device>(open[0]).fetch_add(1u, std::memory_order_relaxed);
            (void)atomic_ref<unsigned, scope::device>(open[1]).fetch_max(now + 1u, std::memory_order_relaxed);
        }
    }
    CANOPY_DEVICE void closed() const {
        if (open != nullptr) {
            (void)atomic_ref<unsigned, scope::device>(open[0]).fetch_sub(1u, std::memory_order_relaxed);
        }
    }

    /// A free record for a fork of a width the pool takes (`width_ok`), or join_root with the failure
    /// recorded (relaxed device-scope RMW: a flag the host reads after the run): the forking task then
    /// returns without spawning, the run drains (nothing waits on a join) and result() names the fix.
    CANOPY_DEVICE unsigned take_record(bool width_ok) const {
        if (!width_ok) {
            atomic_ref<unsigned, scope::device>(*failed).fetch_or(join_too_wide, std::memory_order_relaxed);
            return join_root;
        }
        const unsigned idx = free.take();
        if (idx == join_root) {
            atomic_ref<unsigned, scope::device>(*failed).fetch_or(join_exhausted, std::memory_order_relaxed);
        } else {
            opened();
        }
        return idx;
    }

    /// take_record for a fork that passed its context: the record a resolve step reserved for this
    /// lane, when it is of this pool (core_base::reserve_records: no device access, and no order needed
    /// here, since the sub-group's hand-off before this task ran ordered the freeing lane's reads
    /// before it), else a free one.
    template <class Ctx> CANOPY_DEVICE unsigned take_record(Ctx& ctx, bool width_ok) const {
        if (width_ok) {
            if (const unsigned idx = take_reserved(ctx); idx != join_root) {
                opened();
                return idx;
            }
        }
        return take_record(width_ok);
    }
    template <class Ctx> CANOPY_DEVICE unsigned take_reserved(Ctx& ctx) const {
        record_stash* st = context_access::stash(ctx);
        if (st == nullptr || st->reserved == join_root || st->reserved_pool != free.next) {
            return join_root;
        }
        const unsigned idx = st->reserved;
        st->reserved = join_root;
        return idx;
    }

    /// take_record_or_count for a fork that passed its context: the lane's reserved record first.
    template <class Ctx> CANOPY_DEVICE unsigned take_record_or_count(Ctx& ctx) const {
        if (const unsigned idx = take_reserved(ctx); idx != join_root) {
            opened();
            return idx;
        }
        return take_record_or_count();
    }

    /// fork_or_inline's record: a free one, or join_root when the pool is empty, counted and not a
    /// failure (relaxed device-scope RMW: a count the host reads after the run); the caller then runs
    /// the subproblem inline. The width was checked by the caller.
    CANOPY_DEVICE unsigned take_record_or_count() const {
        const unsigned idx = free.take();
        if (idx == join_root) {
            atomic_ref<unsigned, scope::device>(*inlined).fetch_add(1u, std::memory_order_relaxed);
        } else {
            opened();
        }
        return idx;
    }

    /// A continuation's record, freed once it was read (take): every read of it comes before the push's
    /// release (join_free_list::push), which the next owner's pop acquires.
    CANOPY_DEVICE void free_record(unsigned idx) const {
        closed();
        free.give(idx);
    }
    /// free_record for a continuation that passed its context: when the resolve step ran it inline
    /// (`inline_run`), kept in the lane's stash and pushed after the step's rounds with the lane's other
    /// frees, in one CAS (join_stash.hpp: until then no other work-item may take it, so nothing orders).
    template <class Ctx> CANOPY_DEVICE void free_record(Ctx& ctx, unsigned idx, bool inline_run) const {
        closed();
        record_stash* st = context_access::stash(ctx);
        if (!inline_run || st == nullptr ||
            !st->put(free.next, free.home(), idx, free.capacity, free.stranded)) {
            free.give(idx);
        }
    }

    /// The root's slot completed (its value stored first). Release at device scope: the value before
    /// the flag; the host reads both after the run (the kernel's end orders them), and the count says
    /// the root completed exactly once.
    CANOPY_DEVICE void root_completed() const {
        atomic_ref<unsigned, scope::device>(*root_done).fetch_add(1u, std::memory_order_release);
    }
};

/// What both pool kinds' host sides share: the capacity check, the free list, the run's words
/// [root_done, failed, inlined, open now, open peak], reset() and result()'s checks.
class join_pool_common {
  public:
    /// Records on the free list (walked on the host after a run): capacity() when every join's
    /// continuation ran and freed its record.
    unsigned free_records() const { return free_.count(); }
    unsigned capacity() const { return capacity_; }
    /// Forks that found the pool empty and ran inline instead (fork_or_inline), since the last reset():
    /// 0 when the pool was large enough; otherwise a larger capacity would have spawned them.
    unsigned inlined() const {
        unsigned w[3] = {};
        words_.download(w, 3);
        return w[2];
    }
    /// Records that lanes held reserved for their next forks when the last run ended (core_base's
    /// reserve_records: a record freed in a sub-group, handed to a lane of it), since the last reset():
    /// counted free by free_records(). 0 on the locked core, under steal-rsp, and when the pool is
    /// smaller than 4 records per lane of the launch.
    unsigned stranded_records() const { return free_.stranded(); }
    /// Counts the records open at once in the runs that follow (two relaxed device-scope RMWs per fork,
    /// one per free: off by default, so that a measured run pays nothing); peak_open() reads the most.
    void track_peak(bool on) { track_ = on; }
    /// The most records open at once since the last reset(), when track_peak(true) was set for the runs:
    /// what a capacity must hold for that run (0 when not tracked).
    unsigned peak_open() const {
        unsigned w[5] = {};
        words_.download(w, 5);
        return w[4];
    }

  protected:
    join_pool_common(unsigned capacity, const char* name)
        : name_(name), capacity_(check(capacity)), free_(capacity), words_(5) {}

    join_view_common common_view() const {
        return {free_.view(), words_.data(), words_.data() + 1, words_.data() + 2,
                track_ ? words_.data() + 3 : nullptr};
    }
    void reset_common() {
        free_.reset();
        words_.fill_zero();
    }

    /// Throws canopy::error naming the fix when the run's words show a failure: the pool ran out, a
    /// fork was of a width the pool does not take (`too_wide` says which), or the root did not
    /// complete exactly once (`never_hint`: the pool kind's own cause of a root never completed).
    void check_result(const std::string& too_wide, const std::string& never_hint) const {
        unsigned w[2] = {};
        words_.download(w, 2);
        if ((w[1] & join_exhausted) != 0) {
            throw error("canopy::runtime: the " + std::string(name_) + "'s " + std::to_string(capacity_) +
                        " records ran out (that many joins were open at once); construct " + name_ +
                        " with a larger capacity, or fork fewer joins (a cut-off that runs small subproblems "
                        "sequentially in one task)");
        }
        if ((w[1] & join_too_wide) != 0) {
            throw error("canopy::runtime: " + too_wide);
        }
        if (w[0] == 0) {
            throw error("canopy::runtime: the root's join never completed: a task left a slot uncompleted "
                        "(seed the root with join_root_slot and complete every slot exactly once)" +
                        never_hint);
        }
        if (w[0] != 1) {
            // The count is not cleared by a run, only by reset(): a second run of the same pool without
            // it completes the root a second time, and that is the likelier cause than a task's bug.
            throw error("canopy::runtime: the root's join completed " + std::to_string(w[0]) +
                        " times (expected once): the pool ran again without " + name_ +
                        "::reset() (call it between runs), or a task completed a slot twice");
        }
    }

  private:
    static unsigned check(unsigned capacity) {
        if (capacity == 0 || capacity > join_max_records) {
            throw error("canopy::runtime: a join pool holds 1 to " + std::to_string(join_max_records) +
                        " records (a join_slot names its record in " + std::to_string(32 - join_slot_bits) +
                        " bits; asked for " + std::to_string(capacity) + ")");
        }
        return capacity;
    }

    const char* name_;
    unsigned capacity_;
    join_free_store free_;
    device_buffer<unsigned> words_; // [root_done, failed, inlined, open now, open peak]
    bool track_ = false;
};
} // namespace detail

/// The device side of a join_pool: a plain struct that task functors hold by value. R is a result
/// (trivially copyable), K the most children one record joins (a wider fork: a tree of joins).
template <class R, unsigned K = 8> struct join_view {
    static_assert(std::is_trivially_copyable_v<R>, "join results are trivially copyable");
    static_assert(std::is_default_constructible_v<R>, "join results are default-constructible");
    static_assert(sizeof(R) % 4 == 0 && alignof(R) >= 4,
                  "join results move as 4-byte words: use a type of whole, aligned words (pad a struct)");
    static_assert(K >= 1, "a record joins at least one child");
    static_assert(K <= (1u << join_slot_bits),
                  "a record joins at most 64 children (join_slot_bits): fork a tree of joins for more");

    detail::join_view_common common; // the free list, the run's words, fork's failure path
    unsigned* pending;               // per record: children not finished
    // Per record: [to | mark << 32, n | tag << 16], 8-byte words: the continuation reads its `to` and
    // mark in one access (after the acquire that invalidated the L1, each access is a miss on the
    // scoped model). The mark is the user's 32 bits (UTS marks a node's own record).
    unsigned long long* meta;
    R* slots;      // per record: K results
    R* root_value; // the run's result

    /// Takes a record for n children whose joint result goes to `to` (a task's own slot, passed on);
    /// `mark`, 32 bits of the caller's, comes back with the continuation's take. An empty pool or n > K
    /// is recorded and returns an invalid record: return without spawning.
    CANOPY_DEVICE join_record fork(unsigned n, join_slot to, unsigned mark = 0) const {
        return open(common.take_record(n != 0 && n <= K), n, to, 0, mark);
    }

    /// fork(n, to), from a task that passes its context: the fork to use. When every child of the
    /// record runs in this sub-group (none moves out of its private ring before the record resolves),
    /// the ring core resolves it with no device-scope atomic (join_continuation.hpp, "Records that stay
    /// in their sub-group"); the same as fork(n, to) otherwise.
    template <class Ctx>
    CANOPY_DEVICE join_record fork(Ctx& ctx, unsigned n, join_slot to, unsigned mark = 0) const {
        return open(common.take_record(ctx, n != 0 && n <= K), n, to, detail::context_access::local_tag(ctx),
                    mark);
    }

    /// fork(n, to), except that an empty pool does not fail the run: `run_inline()` returns what the
    /// record's continuation would have completed `to` with (the whole subproblem, sequentially, in
    /// this lane), and complete<Cont> delivers it; the pool counts it (join_pool::inlined()). Returns
    /// the record, or an invalid one when the subproblem ran inline (or n > K, reported as by fork):
    /// either way, spawn nothing then. The cost over fork: none while the pool has records.
    template <class Cont, class Ctx, class Inline>
    CANOPY_DEVICE join_record fork_or_inline(Ctx& ctx, unsigned n, join_slot to, Inline&& run_inline) const {
        if (n == 0 || n > K) {
            return fork(n, to);
        }
        const join_record r =
            open(common.take_record_or_count(ctx), n, to, detail::context_access::local_tag(ctx), 0);
        if (!r.valid()) {
            complete<Cont>(ctx, to, run_inline());
        }
        return r;
    }

    /// Delivers one child's result to `to`. The count's decrement is left to the sub-group's resolve
    /// step, which combines the front's completions of one record and runs Cont inline once the record
    /// is resolved (join_continuation.hpp); a lane's second completion in one task, or a cooperative
    /// Cont, decrements here, and the last child spawns Cont (payload: join_payload). Nothing of the
    /// record is read after the RMW.
    template <class Cont, class Ctx> CANOPY_DEVICE void complete(Ctx& ctx, join_slot to, const R& v) const {
        if (to.root()) {
            st_value(root_value, v);
            common.root_completed();
            return;
        }
        const unsigned rec = to.record();
        st_value(&slots[static_cast<std::size_t>(rec) * K + to.slot()], v);
        // Deferred to the sub-group (join_continuation.hpp): its resolve step orders this slot store
        // before the combined RMW's release, or before the inline continuation that reads it.
        // Nothing of the record is read here: the resolve step reads the child count only for a segment
        // of two or more lanes (one that may hold every child), and an RMW returns it with the count.
        if constexpr (detail::is_inline_continuation<Cont>) {
            if (detail::context_access::defer_join<Cont>(ctx, &pending[rec], &meta[2 * rec + 1], rec)) {
                carry(ctx, to, v);
                return;
            }
        }
        // Release at device scope: this slot store happens-before the continuation (its acquire load
        // of the count reads the end of this release sequence).
        if ((atomic_ref<unsigned, scope::device>(pending[rec]).fetch_sub(1u, std::memory_order_release) &
             detail::join_count_mask) == 1u) {
            ctx.template spawn<Cont>(join_payload{rec, 0});
        }
    }

    /// The continuation's first step: the results and `to`; frees the record.
    CANOPY_DEVICE join_results<R, K> take(const join_payload& p) const {
        join_results<R, K> r{};
        const join_taken t = take(p, [&r](unsigned i, const R& v) { r.value[i] = v; });
        r.n = t.n;
        r.to = t.to;
        r.mark = t.mark;
        return r;
    }

    /// take(p) without the array of K results: visit(i, value) for each child i < n, in order; returns n
    /// and `to`; frees the record. A continuation that folds its children's results should use this:
    /// take(p)'s join_results is K results in the lane's local memory (UTS's subtree sums: 8 of 16 bytes,
    /// 128 bytes of stack), once for each place the continuation is compiled (its run, and the resolve step
    /// that runs it inline).
    template <class Visit> CANOPY_DEVICE join_taken take(const join_payload& p, Visit&& visit) const {
        const join_taken t = read(p, visit);
        common.free_record(p.record); // after every read of the record above
        return t;
    }

    /// take(p), for a continuation that passes its context: when the runtime ran it inline, its record
    /// goes back to the pool after the resolve step's rounds, with the lane's other frees of the step in
    /// one push, instead of one push inside a round (join_stash.hpp); the same as take(p) otherwise.
    /// The take to use in a continuation.
    template <class Ctx> CANOPY_DEVICE join_results<R, K> take(Ctx& ctx, const join_payload& p) const {
        join_results<R, K> r{};
        const join_taken t = take(ctx, p, [&r](unsigned i, const R& v) { r.value[i] = v; });
        r.n = t.n;
        r.to = t.to;
        r.mark = t.mark;
        return r;
    }

    /// take(p, visit), for a continuation that passes its context (take(ctx, p)).
    template <class Ctx, class Visit>
    CANOPY_DEVICE join_taken take(Ctx& ctx, const join_payload& p, Visit&& visit) const {
        const join_taken t = read(p, visit, carried_of(ctx, p));
        common.free_record(ctx, p.record, p.ordered != 0); // after every read of the record above
        return t;
    }

  private:
    /// A result of up to 16 bytes rides in the lane's context from its deferred completion to the
    /// continuation the same lane runs for that record (join_continuation.hpp's carried_result).
    static constexpr bool carries = sizeof(R) <= sizeof(detail::carried_result::words);

    template <class Ctx> CANOPY_DEVICE static void carry(Ctx& ctx, join_slot to, const R& v) {
        if constexpr (carries) {
            detail::carried_result* c = detail::context_access::carried(ctx);
            c->record = to.record();
            c->slot = to.slot();
            __builtin_memcpy(c->words, &v, sizeof(R));
        } else {
            (void)ctx;
            (void)to;
            (void)v;
        }
    }

    /// The lane's carried result when it is one of record p's (an inline continuation: the resolve
    /// step ran it in the lane that deferred the completion that resolved it), else nullptr. Consumed:
    /// the continuation's own completion may carry the next one.
    template <class Ctx>
    CANOPY_DEVICE static const detail::carried_result* carried_of(Ctx& ctx, const join_payload& p) {
        if constexpr (carries && Ctx::defers_joins) {
            detail::carried_result* c = detail::context_access::carried(ctx);
            if (p.ordered != 0 && c->record == p.record) {
                c->record = join_root;
                return c;
            }
        } else {
            (void)ctx;
            (void)p;
        }
        return nullptr;
    }

    /// A continuation's reads of its record: the children's results (visit; `mine`, the lane's carried
    /// result, for its own slot) and `to`.
    template <class Visit>
    CANOPY_DEVICE join_taken read(const join_payload& p, Visit& visit,
                                  const detail::carried_result* mine = nullptr) const {
        // Acquire at device scope: synchronizes with every child's release (one release sequence).
        // Not when the runtime ran this continuation inline: its resolve step already ordered every
        // child's slot store before it (join_continuation.hpp, core_base::resolve_joins).
        if (p.ordered == 0) {
            (void)atomic_ref<unsigned, scope::device>(pending[p.record]).load(std::memory_order_acquire);
        }
        join_taken t;
        const unsigned long long to = ld(&meta[2 * p.record + 0]);
        t.to.word = static_cast<unsigned>(to);
        t.mark = static_cast<unsigned>(to >> 32);
        // The child count: the runtime's, when it ran this continuation inline (join_payload).
        t.n = p.ordered != 0 ? p.ordered
                             : static_cast<unsigned>(ld(&meta[2 * p.record + 1])) & detail::join_count_mask;
        for (unsigned i = 0; i < t.n && i < K; ++i) {
            if (mine != nullptr && mine->slot == i) {
                // The value this lane itself stored in the slot, before the resolve step's hand-off.
                R v;
                __builtin_memcpy(&v, mine->words, sizeof(R));
                visit(i, v);
            } else {
                visit(i, ld_value(&slots[static_cast<std::size_t>(p.record) * K + i]));
            }
        }
        return t;
    }

    // Results move as plain words (st/ld), which every backend's plain access supports: 8-byte words
    // when R is whole, aligned 8-byte words (UTS's 16-byte subtree counts: 2 accesses instead of 4),
    // else 4-byte ones. Fewer, wider accesses are fewer instructions on a GPU and, on the scoped-cache model
    // (whose L1 keeps one entry per location), half the misses of a continuation reading its record right
    // after the acquire that invalidated the L1: the head lane's reads are on its sub-group's critical path
    // (docs/runtime.md, "Where a join's cycles go, by call site"). One size for every access of a slot.
    using word_t = std::conditional_t<sizeof(R) % 8 == 0 && alignof(R) >= 8, unsigned long long, unsigned>;
    static constexpr unsigned words = static_cast<unsigned>(sizeof(R) / sizeof(word_t));

    /// Opens record idx (join_root: none, passed on as an invalid record) for n children of `to`, tagged
    /// with the forking sub-group's local tag (0: none; join_continuation.hpp) and the caller's mark.
    CANOPY_DEVICE join_record open(unsigned idx, unsigned n, join_slot to, unsigned long long tag,
                                   unsigned mark) const {
        if (idx == join_root) {
            return {join_root};
        }
        // Plain: read by the continuation, which every child's release orders after this (header).
        st(&meta[2 * idx + 0], static_cast<unsigned long long>(mark) << 32 | to.word);
        st(&meta[2 * idx + 1], static_cast<unsigned long long>(n) | tag << detail::join_tag_shift);
        // Plain, as the meta words: the runtime's hand-off of the children orders it before every
        // child's RMW (rule R1; on the scoped model a device-scope RMW in this work-group first writes
        // back its own dirty copy, and a child elsewhere got there through a device-scope release).
        // Not a relaxed device-scope store: that is one more L2 access on the forking lane, and
        // children that all complete in one front (resolved with no RMW) never read the count at all.
        st(&pending[idx], n | n << detail::join_children_shift);
        return {idx};
    }

    CANOPY_DEVICE static void st_value(R* dst, const R& v) {
        word_t w[words] = {};
        __builtin_memcpy(w, &v, sizeof(R));
        word_t* d = reinterpret_cast<word_t*>(dst);
        for (unsigned i = 0; i < words; ++i) {
            st(&d[i], w[i]);
        }
    }
    CANOPY_DEVICE static R ld_value(const R* src) {
        word_t w[words];
        const word_t* s = reinterpret_cast<const word_t*>(src);
        for (unsigned i = 0; i < words; ++i) {
            w[i] = ld(&s[i]);
        }
        R v;
        __builtin_memcpy(&v, w, sizeof(R));
        return v;
    }
};

/// The host side: device memory for `capacity` join records of K slots of R. At most `capacity`
/// joins may be open at once (forked and their continuation not yet run). After a run, result()
/// returns the root's result, or throws canopy::error naming what went wrong and the fix.
template <class R, unsigned K = 8> class join_pool : public detail::join_pool_common {
  public:
    explicit join_pool(unsigned capacity)
        : join_pool_common(capacity, "join_pool"), pending_(capacity), meta_(2 * std::size_t{capacity}),
          slots_(std::size_t{capacity} * K), root_value_(1) {
        reset();
    }

    /// The device handle task functors hold.
    join_view<R, K> view() const {
        return {common_view(), pending_.data(), meta_.data(), slots_.data(), root_value_.data()};
    }

    /// Every record free, no result, no failure: before each run after the first (the constructor
    /// does it once; result() after an un-reset second run names this).
    void reset() {
        reset_common();
        pending_.fill_zero();
        root_value_.fill_zero();
    }

    /// The root's result after a run; throws canopy::error when the pool ran out, a fork was wider
    /// than K, or the root never (or more than once) completed.
    R result() const {
        check_result("a task forked 0 or more than " + std::to_string(K) +
                         " children on one join record; raise join_pool's K or fork a tree of joins",
                     "");
        R v;
        root_value_.download(&v, 1);
        return v;
    }

  private:
    device_buffer<unsigned> pending_;
    device_buffer<unsigned long long> meta_;
    device_buffer<R> slots_, root_value_;
};

} // namespace canopy::runtime
