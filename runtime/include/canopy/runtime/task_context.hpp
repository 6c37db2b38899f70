// canopy/runtime/task_context.hpp — the device task API: what a running task sees, and spawn<Task>().
//
// A task type is a functor with a fixed-size, trivially copyable payload:
//   struct fib { using payload = fib_args;
//                template <class Ctx> CANOPY_DEVICE void operator()(const payload& p, Ctx& ctx) const {
//                    if (p.n >= 2) { spawn<fib>(ctx, {p.n - 1}); spawn<fib>(ctx, {p.n - 2}); } } };
// spawn<T>(ctx, payload) (canopy::runtime::spawn, found by argument-dependent lookup) and
// ctx.spawn<T>(payload) are the same call; generic code, whose ctx has a dependent type, would have to
// write the second as ctx.template spawn<T>(payload).
// spawn may be called by any lane, any number of times, from divergent code and data-dependent loops:
// it appends to the calling lane's own staging buffer with plain stores and no collective. The
// scheduler packs the staged tasks into fronts at its next convergent scheduling point. A staging
// buffer that fills up fails the run (reported to the host naming the lane), never drops a task.
//
// A sub-group-cooperative task type (`static constexpr bool cooperative = true;`) is called on every
// lane of the sub-group that runs its front, converged, as operator()(const payload&, bool valid,
// Ctx&): `valid` is false on the lanes past the front's count (their payload is zero). Its body may
// use the sub-group collectives (platform/subgroup.hpp), which every lane must then reach, to share
// one front's work among all the lanes: a partial front of 10 vertices with 11 arcs each keeps 10
// lanes busy for 11 arcs as plain tasks, and all 64 for 2 arcs as a cooperative one (the warp-centric
// expansion of Merrill et al.'s BFS, GTaP's warp-cooperative tasks).
#pragma once

#include <cstring>
#include <type_traits>

#include "canopy/platform/config.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/runtime/join_continuation.hpp"
#include "canopy/runtime/join_stash.hpp"

namespace canopy::runtime {

namespace detail {
template <class T, class... Ts> struct index_of;
template <class T, class... Ts> struct index_of<T, T, Ts...> { static constexpr unsigned value = 0; };
template <class T, class U, class... Ts> struct index_of<T, U, Ts...> {
    static constexpr unsigned value = 1 + index_of<T, Ts...>::value;
};
template <class T> struct index_of<T> {
    static_assert(sizeof(T) == 0, "spawn<Task>: Task is not one of this run's task types");
};

/// What a payload must be: the runtime moves payloads as raw words (memcpy into queue slots, and back
/// into a default-constructed object on the lane that runs the task).
template <class T> constexpr void check_payload() {
    using P = typename T::payload;
    static_assert(std::is_trivially_copyable_v<P>, "task payloads must be trivially copyable");
    static_assert(std::is_default_constructible_v<P>, "task payloads must be default-constructible");
}

/// A task type whose body is called on every lane of its front (see the header).
template <class T, class = void> struct is_cooperative : std::false_type {};
template <class T>
struct is_cooperative<T, std::void_t<decltype(T::cooperative)>> : std::bool_constant<T::cooperative> {};

/// A continuation type that asks to be spawned, never run inline (`static constexpr bool
/// inline_continuation = false;`): one heavy enough to want a front of its own.
template <class T, class = void> struct allows_inline : std::true_type {};
template <class T>
struct allows_inline<T, std::void_t<decltype(T::inline_continuation)>>
    : std::bool_constant<T::inline_continuation> {};

/// A join's continuation: a task type whose payload is join_payload (join.hpp, join_sum.hpp).
template <class T>
inline constexpr bool is_join_continuation = std::is_same_v<typename T::payload, join_payload>;

/// A task type the runtime may run inline as a join's continuation (join_continuation.hpp): a join
/// continuation that runs on one lane (a cooperative one needs a whole front: it is spawned) and did not
/// opt out.
template <class T>
inline constexpr bool is_inline_continuation =
    is_join_continuation<T> && !is_cooperative<T>::value && allows_inline<T>::value;

template <class T> constexpr unsigned words_of() { return (sizeof(typename T::payload) + 3) / 4; }
/// The same as a constant (usable in device code, where nvcc refuses a call to a host constexpr function).
template <class T> inline constexpr unsigned words_of_v = words_of<T>();
template <class... Ts> constexpr unsigned max_words() {
    unsigned m = 1;
    ((m = words_of<Ts>() > m ? words_of<Ts>() : m), ...);
    return m;
}
} // namespace detail

/// Words of the largest payload of a run's task types: the size of every front slot.
template <class... Tasks> inline constexpr unsigned payload_words = detail::max_words<Tasks...>();

/// Words of the payload of task type `type` (an index into Tasks): what a front slot of that type
/// actually holds. A function, not an array: a namespace-scope array is host memory to nvcc.
template <class... Tasks> CANOPY_HOST_DEVICE constexpr unsigned type_words(unsigned type) {
    unsigned i = 0, w = 0;
    ((w = i++ == type ? detail::words_of_v<Tasks> : w), ...);
    return w;
}

namespace detail {
template <class T, class = void> struct front_width_of { static constexpr unsigned value = 0; };
template <class T> struct front_width_of<T, std::void_t<decltype(T::front_width)>> {
    static constexpr unsigned value = T::front_width;
};
} // namespace detail

/// The most tasks of type `type` that the ring core packs into one front: the type's `static constexpr
/// unsigned front_width` when it declares one (and it is below the sub-group's width), else the width.
/// A cooperative task whose lanes share a task's work (a block of 8 vertices per 8 lanes) runs a front
/// of k tasks in k / (F / 8) passes; left at F per front, a sub-group's children fill one front, which
/// one sub-group runs pass after pass while others idle (its work is shared by fronts, not by tasks).
template <class... Tasks>
CANOPY_HOST_DEVICE constexpr unsigned type_front_width(unsigned type, unsigned lanes) {
    unsigned i = 0, w = 0;
    ((w = i++ == type ? detail::front_width_of<Tasks>::value : w), ...);
    return w != 0 && w < lanes ? w : lanes;
}

/// Words one staged task takes: its type, its priority, then its payload.
template <class... Tasks> inline constexpr unsigned staged_words = 2 + payload_words<Tasks...>;

/// Whether a task set may stage in the work-group's shared memory (config::staging_in_shared): payloads
/// of at most 3 words (fib's: a value and a join slot). Staging grows with the payload: at the default
/// staging capacity (16) only 2 words fit beside hrf8's residency (64 lanes x 16 x 4 words = 16 KiB, a
/// quarter of a CU), 3 fit at a capacity of 12, and a wider set would need a capacity too small for
/// most of its tasks. A set that may not compiles no second staging path: the path costs registers
/// where it is compiled (ptxas -v, sm_90: 8 in some locked-core kernels), so UTS's and the graph
/// algorithms' kernels keep their code.
template <class... Tasks> inline constexpr bool may_stage_in_shared = staged_words<Tasks...> <= 5;

namespace detail {
struct context_access;
} // namespace detail

namespace detail {
/// The deferred-completion slot and the freed-record stash (join_stash.hpp) of a context whose task set
/// has a continuation the runtime can run inline; empty otherwise (empty base), so that every other
/// kernel's context, which lives in local memory (its per-type counts are indexed at run time), is not
/// a word larger.
template <bool Defers> struct deferred_slot {
    deferred_join deferred_{nullptr, nullptr, 0, 0, false};
    // A completion parked by a resolve step that stopped early (core_base::resolve_joins): resolved
    // by a later front's step in this lane, or by the step that empties the private ring.
    deferred_join held_{nullptr, nullptr, 0, 0, false};
    record_stash stash_{};
    carried_result carried_{};
    // The sub-group's local tag (join_continuation.hpp, "Records that stay in their sub-group"): what a
    // fork with this context writes into its record, and what the resolve step compares it with; 0
    // (the locked core's, and every core's before it sets one): records are never treated as local.
    unsigned long long local_tag_ = 0;
    // Whether the running task may complete a record of this sub-group's (deferred_join::maybe_local):
    // its front came from the private ring, or it is the continuation of such a record.
    bool local_front_ = false;
};
template <> struct deferred_slot<false> {};
} // namespace detail

template <class... Tasks>
class task_context : private detail::deferred_slot<(detail::is_inline_continuation<Tasks> || ...)> {
  public:
    static constexpr unsigned W = payload_words<Tasks...>;
    /// Whether a completion may be deferred to the sub-group (join_continuation.hpp): some task type
    /// is a continuation the runtime can run inline. Otherwise the cores have no resolve step at all.
    static constexpr bool defers_joins = (detail::is_inline_continuation<Tasks> || ...);

    CANOPY_DEVICE task_context(unsigned* stage, unsigned capacity, unsigned device = 0)
        : stage_(stage), capacity_(capacity), device_(device) {}

    /// The device this task runs on (0 .. config::devices - 1): a task that counts into device memory
    /// at device scope keeps one copy per device (device scope does not reach the other devices).
    CANOPY_DEVICE unsigned device() const { return device_; }

    /// Spawns one task of type Task (any lane, divergent or not; no collective). `priority` matters
    /// only under config::order = priority: lower runs sooner, in buckets of config::priority_delta.
    template <class Task> CANOPY_DEVICE void spawn(const typename Task::payload& p, unsigned priority = 0) {
        detail::check_payload<Task>();
        if (n_ >= capacity_) {
            overflow_ =
                true; // reported at the next scheduling point; the run fails, nothing is lost silently
            return;
        }
        constexpr unsigned tw = detail::words_of_v<Task>;
        constexpr unsigned type = detail::index_of<Task, Tasks...>::value;
        unsigned words[tw] = {};
        __builtin_memcpy(words, &p, sizeof(p)); // device code: std::memcpy is host-only on HIP
        unsigned* e = stage_ + n_ * stride();
        // Plain stores: this lane reads them back itself when the sub-group packs (program order).
        // Only the task's own words: the slot is W words wide, the rest is never read.
        st(&e[0], type);
        st(&e[1], priority);
        for (unsigned i = 0; i < tw; ++i) {
            st(&e[2 + i], words[i]);
        }
        ++n_;
        ++per_type_[type];
    }

  private:
    // The scheduler's side, private so that a task cannot reach it (a task that called clear() would
    // silently discard its own spawns): only detail::context_access, which the schedulers use.
    friend struct detail::context_access;

    CANOPY_DEVICE unsigned staged() const { return n_; }
    /// Tasks of type t staged by this lane (kept in registers: the pack needs no pass over memory).
    CANOPY_DEVICE unsigned staged_of(unsigned t) const { return per_type_[t]; }
    CANOPY_DEVICE bool overflowed() const { return overflow_; }
    /// Staged task i: [type, priority, payload words].
    CANOPY_DEVICE const unsigned* entry(unsigned i) const { return stage_ + i * stride(); }
    /// Words between a lane's consecutive entries: the sub-group's staging is entry-major
    /// (layout::staging_at), the lanes' entry i side by side.
    CANOPY_DEVICE static unsigned stride() { return subgroup_size() * (2 + W); }
    /// Leaves the completion of one child of `record` (count `pending`, `n` children) to the sub-group's
    /// resolve step, which runs Cont inline once the record is resolved. False when this lane already
    /// deferred one in this task (the caller completes it itself) or Cont cannot run inline.
    template <class Cont>
    CANOPY_DEVICE bool defer_join(unsigned* pending, const unsigned long long* children, unsigned record) {
        if constexpr (!detail::is_inline_continuation<Cont>) {
            return false;
        } else {
            if (this->deferred_.pending != nullptr) {
                return false;
            }
            this->deferred_ = {pending, children, record, detail::index_of<Cont, Tasks...>::value,
                               this->local_front_};
            return true;
        }
    }
    /// The lane's carried result (join_continuation.hpp), or nullptr where nothing is deferred.
    CANOPY_DEVICE detail::carried_result* carried() {
        if constexpr (defers_joins) {
            return &this->carried_;
        } else {
            return nullptr;
        }
    }
    /// Whether the lane has a completion to resolve: deferred in this front, or parked.
    CANOPY_DEVICE bool has_deferred() const {
        if constexpr (defers_joins) {
            return this->deferred_.pending != nullptr || this->held_.pending != nullptr;
        } else {
            return false;
        }
    }
    /// Whether the lane holds two (one deferred, one parked): a step cannot stop before it resolves one.
    CANOPY_DEVICE bool holds_two() const {
        return this->deferred_.pending != nullptr && this->held_.pending != nullptr;
    }
    /// The completion to resolve this round, removed (a continuation run for it may defer its own):
    /// the one deferred in this front first (it may combine with its neighbours'), else the parked
    /// one. Only where defers_joins (the cores' resolve step).
    CANOPY_DEVICE detail::deferred_join take_deferred() {
        detail::deferred_join& from = this->deferred_.pending != nullptr ? this->deferred_ : this->held_;
        const detail::deferred_join e = from;
        from.pending = nullptr;
        return e;
    }
    /// Parks the lane's deferred completion for a later step (held_ is empty: holds_two() is false).
    CANOPY_DEVICE void park() {
        if (this->deferred_.pending != nullptr) {
            this->held_ = this->deferred_;
            this->deferred_.pending = nullptr;
        }
    }
    /// The lane's freed-record stash (join_stash.hpp); nullptr where the task set has no continuation
    /// the runtime runs inline (no resolve step, which pushes it).
    CANOPY_DEVICE detail::record_stash* stash() {
        if constexpr (defers_joins) {
            return &this->stash_;
        } else {
            return nullptr;
        }
    }
    CANOPY_DEVICE void clear() {
        if constexpr (defers_joins) {
            this->deferred_.pending = nullptr;
        }
        clear_staged();
    }
    /// The staged tasks only (packed already), not a deferred completion.
    CANOPY_DEVICE void clear_staged() {
        n_ = 0;
        overflow_ = false;
        for (unsigned& c : per_type_) {
            c = 0;
        }
    }

    unsigned* stage_;
    unsigned capacity_;
    unsigned device_;
    unsigned n_ = 0;
    unsigned per_type_[sizeof...(Tasks)] = {};
    bool overflow_ = false;
};

namespace detail {
/// What the schedulers (scheduler.hpp, ring_scheduler.hpp) read and reset of a lane's context between
/// tasks; not part of the task API.
struct context_access {
    template <class C> CANOPY_DEVICE static unsigned staged(const C& c) { return c.staged(); }
    template <class C> CANOPY_DEVICE static unsigned staged_of(const C& c, unsigned t) {
        return c.staged_of(t);
    }
    template <class C> CANOPY_DEVICE static bool overflowed(const C& c) { return c.overflowed(); }
    template <class C> CANOPY_DEVICE static const unsigned* entry(const C& c, unsigned i) {
        return c.entry(i);
    }
    template <class C> CANOPY_DEVICE static void clear(C& c) { c.clear(); }
    template <class C> CANOPY_DEVICE static void clear_staged(C& c) { c.clear_staged(); }
    /// join.hpp's complete: defer one child's completion to the sub-group (join_continuation.hpp).
    template <class Cont, class C>
    CANOPY_DEVICE static bool defer_join(C& c, unsigned* pending, const unsigned long long* children,
                                         unsigned record) {
        return c.template defer_join<Cont>(pending, children, record);
    }
    template <class C> CANOPY_DEVICE static carried_result* carried(C& c) { return c.carried(); }
    template <class C> CANOPY_DEVICE static bool has_deferred(const C& c) { return c.has_deferred(); }
    template <class C> CANOPY_DEVICE static deferred_join take_deferred(C& c) { return c.take_deferred(); }
    template <class C> CANOPY_DEVICE static bool holds_two(const C& c) { return c.holds_two(); }
    template <class C> CANOPY_DEVICE static void park(C& c) { c.park(); }
    /// join.hpp's take(ctx, ...) and the cores' resolve step: the lane's freed-record stash
    /// (join_stash.hpp), or nullptr.
    template <class C> CANOPY_DEVICE static record_stash* stash(C& c) { return c.stash(); }
    /// The sub-group's local tag (join_continuation.hpp): 0 where none is set or nothing defers.
    template <class C> CANOPY_DEVICE static unsigned long long local_tag(const C& c) {
        if constexpr (C::defers_joins) {
            return c.local_tag_;
        } else {
            return 0;
        }
    }
    /// Set by the ring core before a front runs and before its resolve step (uniform).
    template <class C> CANOPY_DEVICE static void set_local_tag(C& c, unsigned long long t) {
        if constexpr (C::defers_joins) {
            c.local_tag_ = t;
        } else {
            (void)c;
            (void)t;
        }
    }
    /// Whether the task about to run may complete one of the sub-group's own records (deferred_join).
    template <class C> CANOPY_DEVICE static void set_local_front(C& c, bool local) {
        if constexpr (C::defers_joins) {
            c.local_front_ = local;
        } else {
            (void)c;
            (void)local;
        }
    }
};
} // namespace detail

/// Spawns one task of type Task from a task body: the free-function spelling of ctx.spawn<Task>(p),
/// which generic code (a task templated on its context type) can call without writing
/// `ctx.template spawn<Task>(...)`. Same semantics: any lane, divergent or not, no collective.
template <class Task, class Ctx>
CANOPY_DEVICE void spawn(Ctx& ctx, const typename Task::payload& p, unsigned priority = 0) {
    ctx.template spawn<Task>(p, priority);
}

} // namespace canopy::runtime
