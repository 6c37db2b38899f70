// scoped-bug: why you run your kernels on canopy's emulator before a GPU.
//
// Every work-group counts the items of its share that pass a test and adds its count to one global
// counter with an atomic fetch_add. The buggy version gives that atomic work-group scope — "it is an
// atomic, so it is safe" — but the counter is shared by *all* work-groups, so the scope must be the
// device. A CPU's coherent caches (and most GPU runs) hide the bug: every run prints the right count.
// The scoped-cache model (SCM) makes each compute unit's L1 hold its own copy of the counter, as a
// GPU's non-coherent L1s may: work-group-scope RMWs on different compute units then lose each other's
// updates, and the count comes out wrong. The fix (device scope) is right on both models.
//
// The program runs both versions on both models over a few seeds of the deterministic scheduler and
// exits 0 only if: the buggy version passes on coherent memory, fails on the SCM for some seed, and the
// fixed version passes everywhere. Replay one seed by hand with, e.g.,
//   CANOPY_EMU_MEMORY_MODEL=scoped CANOPY_EMU_SEED=3 ./scoped_bug
// (environment variables set the emulator's defaults) or `canopy::emu::options` as below.
#include <cstdio>
#include <vector>

#include <canopy/emulator/options.hpp>
#include <canopy/platform/atomic.hpp>
#include <canopy/platform/error.hpp>
#include <canopy/platform/ids.hpp>
#include <canopy/platform/launch.hpp>
#include <canopy/platform/memory.hpp>
#include <canopy/platform/plain_access.hpp>

template <canopy::scope S> struct count_above {
    const unsigned* data;
    unsigned n, threshold;
    unsigned* count;
    CANOPY_DEVICE void operator()() const {
        unsigned mine = 0;
        for (unsigned i = canopy::global_id(); i < n; i += canopy::grid_dim() * canopy::block_dim()) {
            mine += canopy::ld(&data[i]) > threshold ? 1u : 0u;
        }
        // Relaxed is enough (nothing else is published through the counter); the SCOPE is the point:
        // S = work-group is the bug, S = device the fix.
        canopy::atomic_ref<unsigned, S>(*count).fetch_add(mine, std::memory_order_relaxed);
    }
};

template <canopy::scope S>
unsigned run(const canopy::device_buffer<unsigned>& data, unsigned threshold,
             canopy::emu::memory_model_kind m, unsigned seed) {
    canopy::emu::options o = canopy::emu::current_options();
    o.memory_model = m;
    o.scheduler = canopy::emu::scheduler_kind::deterministic; // the SCM runs only under it
    o.seed = seed;
    const canopy::emu::scoped_options use(o); // for this scope's launches; restored afterwards
    canopy::device_buffer<unsigned> count(1);
    count.fill_zero();
    // More work-groups than compute units, so that several compute units (and L1s) share the counter.
    canopy::launch({.grid = 8, .block = 32},
                   count_above<S>{data.data(), static_cast<unsigned>(data.size()), threshold, count.data()});
    unsigned c = 0;
    count.download(&c, 1);
    return c;
}

int main() {
    const unsigned n = 2048, threshold = 700;
    std::vector<unsigned> host(n);
    unsigned expected = 0;
    for (unsigned i = 0; i < n; ++i) {
        host[i] = (i * 2654435761u) % 1000; // a fixed pseudo-random sample
        expected += host[i] > threshold;
    }
    try {
        const canopy::device_buffer<unsigned> data(host);
        const unsigned seeds = 5;
        using canopy::emu::memory_model_kind;
        unsigned bug_coherent_wrong = 0, bug_scoped_wrong = 0, fix_wrong = 0;
        for (unsigned seed = 1; seed <= seeds; ++seed) {
            const unsigned a =
                run<canopy::scope::workgroup>(data, threshold, memory_model_kind::coherent, seed);
            const unsigned b =
                run<canopy::scope::workgroup>(data, threshold, memory_model_kind::scoped, seed);
            const unsigned c = run<canopy::scope::device>(data, threshold, memory_model_kind::coherent, seed);
            const unsigned d = run<canopy::scope::device>(data, threshold, memory_model_kind::scoped, seed);
            std::printf(
                "seed %u: work-group scope: coherent %u, scoped-cache %u%s | device scope: coherent %u, "
                "scoped-cache %u (expected %u)\n",
                seed, a, b, b != expected ? " WRONG" : "", c, d, expected);
            bug_coherent_wrong += a != expected;
            bug_scoped_wrong += b != expected;
            fix_wrong += (c != expected) + (d != expected);
        }
        if (bug_coherent_wrong == 0 && bug_scoped_wrong > 0 && fix_wrong == 0) {
            std::printf(
                "caught: the work-group-scope counter is right on coherent memory in %u of %u runs and "
                "wrong on the scoped-cache model in %u of %u; device scope is right in all %u runs\n",
                seeds, seeds, bug_scoped_wrong, seeds, 2 * seeds);
            return 0;
        }
        std::printf(
            "unexpected: buggy wrong on coherent %u, on scoped %u; fixed wrong %u (of %u runs each)\n",
            bug_coherent_wrong, bug_scoped_wrong, fix_wrong, seeds);
        return 1;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "scoped_bug: %s\n", e.what());
        return 1;
    }
}
