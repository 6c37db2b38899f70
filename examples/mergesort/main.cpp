// mergesort: keys sorted by joins (docs/writing-tasks.md, "Waiting for children"), checked against
// std::sort. A task with more than `small` keys splits its range in two, forks a join record of two
// slots, spawns a task per half and returns; when both halves are sorted, the continuation `merge`
// merges them and delivers its own range to its parent. A child's result says where its keys are:
// the halves are sorted into the other of two buffers, so a merge never copies back.
//
//   mergesort [KEYS [POLICY]]     KEYS: 1..2^26 (default 1,000,000); POLICY: as parse_policy takes it
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <canopy/runtime/runtime.hpp>
#include <canopy/version.hpp>

namespace rt = canopy::runtime;

struct run_of_keys { // a join's result: keys [lo, hi) are sorted in buffer `in`
    unsigned lo, hi, in, unused;
};
using joins = rt::join_view<run_of_keys, 2>;

struct range {
    unsigned lo, hi, into; // sort keys [lo, hi) so that they end in buffer `into`
    rt::join_slot to;
};

struct merge;

struct sort {
    using payload = range;
    joins j;
    unsigned* buffer[2]; // buffer 0 holds the input (and the root's output), buffer 1 is scratch
    unsigned small;      // a range this short is sorted by one task (insertion sort)
    template <class Ctx> CANOPY_DEVICE void operator()(const range& p, Ctx& ctx) const {
        if (p.hi - p.lo <= small) {
            // Nothing else writes this range of buffer 0 before we are done (only our ancestors' merges,
            // which wait for us), so read it there and insert each key into place in `into`.
            unsigned* out = buffer[p.into];
            for (unsigned i = p.lo; i < p.hi; ++i) {
                const unsigned key = canopy::ld(&buffer[0][i]);
                unsigned k = i;
                for (; k > p.lo && canopy::ld(&out[k - 1]) > key; --k) {
                    canopy::st(&out[k], canopy::ld(&out[k - 1]));
                }
                canopy::st(&out[k], key);
            }
            j.complete<merge>(ctx, p.to, run_of_keys{p.lo, p.hi, p.into, 0});
            return;
        }
        const rt::join_record r = j.fork(ctx, 2, p.to); // our range's result goes where ours would
        if (!r.valid()) {
            return; // the pool ran out: result() reports it after the run
        }
        const unsigned mid = p.lo + (p.hi - p.lo) / 2;
        spawn<sort>(ctx, {p.lo, mid, 1 - p.into, r.slot(0)});
        spawn<sort>(ctx, {mid, p.hi, 1 - p.into, r.slot(1)});
    }
};

struct merge {
    using payload = rt::join_payload;
    joins j;
    unsigned* buffer[2];
    template <class Ctx> CANOPY_DEVICE void operator()(const rt::join_payload& p, Ctx& ctx) const {
        const auto r = j.take(ctx, p); // the two sorted halves, and where our range goes
        const run_of_keys a = r.value[0], b = r.value[1];
        const unsigned* in = buffer[a.in];
        unsigned* out = buffer[1 - a.in];
        unsigned i = a.lo, k = b.lo, o = a.lo;
        while (i < a.hi && k < b.hi) {
            const unsigned x = canopy::ld(&in[i]), y = canopy::ld(&in[k]);
            canopy::st(&out[o++], y < x ? y : x); // ties from the left half: a stable merge
            (y < x ? k : i) += 1;
        }
        for (; i < a.hi; ++i) {
            canopy::st(&out[o++], canopy::ld(&in[i]));
        }
        for (; k < b.hi; ++k) {
            canopy::st(&out[o++], canopy::ld(&in[k]));
        }
        j.complete<merge>(ctx, r.to, run_of_keys{a.lo, b.hi, 1 - a.in, 0});
    }
};

int main(int argc, char** argv) {
    const unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000000;
    if (n < 1 || n > (1ul << 26)) {
        std::fprintf(stderr, "mergesort: KEYS = %lu is out of range (1..67108864)\n", n);
        return 2;
    }
    rt::config cfg;
    try {
        if (argc > 2) {
            cfg.policy = rt::parse_policy(argv[2]);
        }
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "mergesort: %s\n", e.what());
        return 2;
    }
    std::mt19937 rng(2026);
    std::vector<unsigned> keys(n);
    for (auto& k : keys) {
        k = static_cast<unsigned>(rng() % (n / 2 + 1)); // duplicates on purpose
    }
    try {
        const unsigned small = 32;
        canopy::device_buffer<unsigned> input(keys), scratch(keys.size());
        // Every split holds a record until its merge has run: fewer than 2 n / small + 1 at once.
        rt::join_pool<run_of_keys, 2> pool(static_cast<unsigned>(2 * n / small + 16));
        unsigned* buffer[2] = {input.data(), scratch.data()};
        rt::task_set<sort, merge> tasks{sort{pool.view(), {buffer[0], buffer[1]}, small},
                                        merge{pool.view(), {buffer[0], buffer[1]}}};
        tasks.seed<sort>({0u, static_cast<unsigned>(n), 0u, rt::join_root_slot});
        const rt::stats s = tasks.run(cfg);
        const run_of_keys all = pool.result(); // throws canopy::error if a join failed
        std::vector<unsigned> sorted = input.to_vector();
        std::sort(keys.begin(), keys.end()); // the oracle
        std::printf("canopy %s (%s backend), policy %s: %lu keys sorted by joins in %llu tasks on %u "
                    "work-groups\n",
                    CANOPY_VERSION_STRING, CANOPY_BACKEND_NAME, rt::to_string(cfg.policy), n,
                    static_cast<unsigned long long>(s.total_tasks()), s.participants);
        // The kernel alone (canopy/platform/kernel_timer.hpp); on the emulator, its host time.
        std::printf("device time %.3f ms (%s): %.3g tasks/s\n", s.device_ms, canopy::device_clock,
                    s.device_ms > 0 ? static_cast<double>(s.total_tasks()) / s.device_ms * 1e3 : 0.0);
        if (all.lo != 0 || all.hi != n || all.in != 0 || sorted != keys) {
            std::printf(
                "MISMATCH: the joins' order differs from std::sort's (root run [%u, %u) in buffer %u)\n",
                all.lo, all.hi, all.in);
            return 1;
        }
        std::printf("OK: %lu keys sorted, equal to std::sort\n", n);
        return 0;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "mergesort: %s\n", e.what());
        return 1;
    }
}
