// canopy/workloads/checked_tasks.hpp — task workloads that check the runtime itself: checksummed tree
// tasks (every task runs exactly once, no stale payload), Fibonacci-like recursion, and a maximally
// unbalanced fan-out. The runtime's tests and `canopy stress` (the schedule sweep) share them: each run
// carries its own oracle (per-id execution counts, payload checksums, a closed-form leaf count).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/broken_policies.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/fib_tasks.hpp"

namespace canopy::workloads::checked {

CANOPY_HOST_DEVICE inline unsigned checksum(unsigned id, unsigned salt) {
    unsigned h = id * 0x9E3779B1u ^ (salt + 0x7F4A7C15u);
    h ^= h >> 15;
    h *= 0x85EBCA77u;
    h ^= h >> 13;
    return h | 1u; // never 0: a zeroed (stale) slot can never pass
}

struct node {
    unsigned id, salt, check, pad;
};

/// Shared by the checksum tasks: where they record what they saw.
struct record {
    unsigned* executions; // per id
    unsigned* errors;     // [0] bad checksum, [1] id out of range
    unsigned n;           // ids are 0 .. n-1
    unsigned arity;       // tree: children of i are arity*i+1 .. arity*i+arity (those < n)
    unsigned fanout_root; // unbalanced: id 0 spawns every other id itself

    CANOPY_DEVICE void seen(const node& p) const {
        if (p.id >= n) {
            atomic_ref<unsigned, scope::device>(errors[1]).fetch_add(1, std::memory_order_relaxed);
            return;
        }
        if (p.check != checksum(p.id, p.salt)) {
            atomic_ref<unsigned, scope::device>(errors[0]).fetch_add(1, std::memory_order_relaxed);
        }
        // Relaxed device-scope RMW: a witness that the runtime's scopes cannot hide.
        atomic_ref<unsigned, scope::device>(executions[p.id]).fetch_add(1, std::memory_order_relaxed);
    }
};

template <unsigned Tag> struct tree_task;

template <class Ctx> CANOPY_DEVICE void spawn_node(Ctx& ctx, unsigned id);

/// Two task types (even and odd ids) so that fronts of different types interleave.
template <unsigned Tag> struct tree_task {
    using payload = node;
    record r;
    template <class Ctx> CANOPY_DEVICE void operator()(const node& p, Ctx& ctx) const {
        r.seen(p);
        if (p.id >= r.n) {
            return;
        }
        if (r.fanout_root) {
            if (p.id == 0) {
                for (unsigned c = 1; c < r.n; ++c) { // one lane spawns everything
                    spawn_node(ctx, c);
                }
            }
            return;
        }
        for (unsigned c = 1; c <= r.arity && r.arity * p.id + c < r.n; ++c) { // data-dependent trip count
            spawn_node(ctx, r.arity * p.id + c);
        }
    }
};

template <class Ctx> CANOPY_DEVICE void spawn_node(Ctx& ctx, unsigned id) {
    const unsigned salt = id * 7u + 3u;
    if (id % 2 == 0) {
        ctx.template spawn<tree_task<0>>({id, salt, checksum(id, salt), 0});
    } else {
        ctx.template spawn<tree_task<1>>({id, salt, checksum(id, salt), 0});
    }
}

struct tree_result {
    std::vector<unsigned> executions;
    unsigned bad_checksum = 0, bad_id = 0;
    runtime::stats stats;
    bool exactly_once() const {
        for (unsigned e : executions) {
            if (e != 1) {
                return false;
            }
        }
        return bad_checksum == 0 && bad_id == 0;
    }
};

inline tree_result run_tree(const runtime::config& c, unsigned n, unsigned arity, bool unbalanced) {
    device_buffer<unsigned> exec(n), errs(2);
    exec.fill_zero();
    errs.fill_zero();
    const record r{exec.data(), errs.data(), n, arity, unbalanced ? 1u : 0u};
    runtime::task_set<tree_task<0>, tree_task<1>> ts{tree_task<0>{r}, tree_task<1>{r}};
    ts.seed<tree_task<0>>({0, 3, checksum(0, 3), 0});
    tree_result out;
    out.stats = runtime::run_allowing_broken(ts, c); // the teeth tests and stress run broken-*
    out.executions = exec.to_vector();
    const auto e = errs.to_vector();
    out.bad_checksum = e[0];
    out.bad_id = e[1];
    return out;
}

inline unsigned run_fib(const runtime::config& c, unsigned n, runtime::stats* s = nullptr) {
    device_buffer<unsigned> leaves(1);
    leaves.fill_zero();
    runtime::task_set<fib_task> ts{fib_task{leaves.data()}};
    ts.seed<fib_task>({n});
    const runtime::stats st = runtime::run_allowing_broken(ts, c);
    if (s) {
        *s = st;
    }
    return leaves.to_vector()[0];
}

} // namespace canopy::workloads::checked
