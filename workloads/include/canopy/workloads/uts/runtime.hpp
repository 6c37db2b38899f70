// canopy/workloads/uts/runtime.hpp — UTS on the canopy task runtime: a node is a task whose payload is
// its 20-byte state, its height and its type; it counts itself and spawns its children. A node with more
// than `fan_out` children (a BIN root has up to 2000, a GEO node up to 100) spawns child-index ranges
// instead, which split until a range is small enough to spawn its nodes: every task stages at most
// `fan_out` tasks, within the runtime's per-lane staging buffer.
//
// Counts: device-scope relaxed RMWs on 64-bit counters spread over `slots` slots (by global work-item
// id) so that work-items do not all hit one word; the host sums the slots after the run.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/rules.hpp"

namespace canopy::workloads::uts {

inline constexpr unsigned fan_out = 8;      // most tasks one task stages
inline constexpr unsigned count_slots = 64; // power of two
inline constexpr unsigned slot_words = 8;   // 64-bit words per slot (64 bytes: one line per slot)
/// What one SHA-1 compression costs a sub-group, for the emulator's timing model (model_cycles): about
/// 1,000 ALU instructions per lane (80 rounds of ~12 operations, plus the message schedule), and a
/// wave64 instruction issues over 4 cycles on a 16-lane SIMD (GCN/CDNA). An estimate, not a
/// measurement; the HRF experiment varies it (--compute-cycles). GPUs ignore it.
inline constexpr unsigned sha1_model_cycles = 4000;

struct node_payload {
    std::uint32_t s[5]; // the state's 20 bytes
    int height;
    int type; // tree_type: a HYBRID tree's node is GEO or BIN
};
struct range_payload {
    std::uint32_t s[5]; // the parent's state
    int height;         // the parent's height
    unsigned lo, hi;    // child indices [lo, hi)
};

struct shared_args {
    params p;
    unsigned long long* counters;             // count_slots x slot_words: [0] nodes, [1] leaves, [2] depth
    unsigned hash_cycles = sha1_model_cycles; // model_cycles per SHA-1 compression (emulator timing)
};

struct node_task;
struct range_task;

template <class Ctx>
CANOPY_DEVICE void spawn_children(Ctx& ctx, const shared_args& a, const std::uint32_t (&s)[5], int height,
                                  unsigned lo, unsigned hi);

struct node_task {
    using payload = node_payload;
    shared_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const node_payload& x, Ctx& ctx) const {
        node_state st;
        __builtin_memcpy(st.b, x.s, 20);
        const int n = num_children(a.p, st, x.height, static_cast<tree_type>(x.type));
        unsigned long long* slot = a.counters + (global_id() & (count_slots - 1)) * slot_words;
        atomic_ref<unsigned long long, scope::device>(slot[0]).fetch_add(1, std::memory_order_relaxed);
        if (n <= 0) {
            atomic_ref<unsigned long long, scope::device>(slot[1]).fetch_add(1, std::memory_order_relaxed);
            atomic_ref<unsigned long long, scope::device> d(slot[2]);
            const auto h = static_cast<unsigned long long>(x.height);
            if (d.load(std::memory_order_relaxed) < h) { // the deepest node is a leaf
                d.fetch_max(h, std::memory_order_relaxed);
            }
            return;
        }
        spawn_children(ctx, a, x.s, x.height, 0u, static_cast<unsigned>(n));
    }
};

struct range_task {
    using payload = range_payload;
    shared_args a;
    template <class Ctx> CANOPY_DEVICE void operator()(const range_payload& x, Ctx& ctx) const {
        spawn_children(ctx, a, x.s, x.height, x.lo, x.hi);
    }
};

template <class Ctx>
CANOPY_DEVICE void spawn_children(Ctx& ctx, const shared_args& a, const std::uint32_t (&s)[5], int height,
                                  unsigned lo, unsigned hi) {
    const unsigned n = hi - lo;
    if (n <= fan_out) {
        node_state parent;
        __builtin_memcpy(parent.b, s, 20);
        const int ct = static_cast<int>(child_type(a.p, height));
        for (unsigned i = lo; i < hi; ++i) {
            const node_state c = spawn_state(parent, i, a.p.granularity);
            model_cycles(a.hash_cycles * static_cast<unsigned>(a.p.granularity));
            node_payload np;
            __builtin_memcpy(np.s, c.b, 20);
            np.height = height + 1;
            np.type = ct;
            ctx.template spawn<node_task>(np);
        }
        return;
    }
    const unsigned chunk = (n + fan_out - 1) / fan_out;
    for (unsigned b = lo; b < hi; b += chunk) {
        range_payload rp;
        __builtin_memcpy(rp.s, s, 20);
        rp.height = height;
        rp.lo = b;
        rp.hi = b + chunk < hi ? b + chunk : hi;
        ctx.template spawn<range_task>(rp);
    }
}

/// A runtime configuration with queues deep enough for the sample trees: a depth-first sub-group can
/// hold many fronts (T3's binomial spine under a steal policy overflowed the default 32 private fronts).
inline runtime::config default_config(runtime::policy pol, unsigned block = 64) {
    runtime::config c;
    c.policy = pol;
    c.block = block;
    c.private_capacity = 256;
    c.workgroup_capacity = 64;
    c.device_capacity = 256;
    return c;
}

struct runtime_result {
    counts c;
    runtime::stats stats;
};

/// Traverses the tree of `p` on the runtime under `cfg` (the emulator's options are the caller's).
/// `hash_cycles`: what one SHA-1 compression costs in the emulator's timing model (model_cycles).
inline runtime_result traverse_runtime(const params& p, const runtime::config& cfg,
                                       unsigned hash_cycles = sha1_model_cycles) {
    if (cfg.staging_capacity < fan_out) {
        throw error("canopy uts: the staging buffer must hold at least " + std::to_string(fan_out) +
                    " tasks per lane");
    }
    device_buffer<unsigned long long> counters(count_slots * slot_words);
    counters.fill_zero();
    const shared_args a{p, counters.data(), hash_cycles};
    runtime::task_set<node_task, range_task> ts{node_task{a}, range_task{a}};
    const node_state root = root_state(p.root_seed);
    node_payload rp;
    std::memcpy(rp.s, root.b, 20);
    rp.height = 0;
    rp.type = static_cast<int>(root_type(p));
    ts.seed<node_task>(rp);
    runtime_result r;
    r.stats = ts.run(cfg);
    const std::vector<unsigned long long> v = counters.to_vector();
    for (unsigned i = 0; i < count_slots; ++i) {
        r.c.nodes += v[i * slot_words + 0];
        r.c.leaves += v[i * slot_words + 1];
        const int d = static_cast<int>(v[i * slot_words + 2]);
        r.c.depth = d > r.c.depth ? d : r.c.depth;
    }
    return r;
}

} // namespace canopy::workloads::uts
