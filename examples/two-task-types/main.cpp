// two-task-types: a producer/consumer pipeline with two task types of different payloads.
//
// Producers (`split`) own a range of integers: a large range spawns two halves, a small one spawns one
// consumer (`collatz`) per odd number in it — so lanes of one sub-group spawn different numbers of
// tasks of different types, from divergent branches. A consumer runs the Collatz iteration of its
// number (a data-dependent loop) and adds the step count to a total and its maximum to a running max.
// main() checks both against a sequential loop on the host. Usage: two_task_types [limit (default
// 20000)] [policy].
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <canopy/platform/atomic.hpp>
#include <canopy/platform/error.hpp>
#include <canopy/platform/memory.hpp>
#include <canopy/runtime/runtime.hpp>

struct range_args {
    std::uint32_t lo, hi; // [lo, hi)
};
struct number_args {
    std::uint64_t x;  // the larger payload: every front slot is as large as the largest type's
    std::uint32_t lo; // the producer's range start: the consumer checks x is in [lo, lo + leaf)
};

struct totals {
    std::uint64_t steps; // sum of Collatz step counts
    std::uint64_t max_steps;
    std::uint64_t bad_payloads; // consumers whose payload does not hold together (must stay 0)
};

// Device scope, relaxed: consumers on every work-group update the same two words, and only the host
// reads them, after the run (the end of the kernel orders the updates before the read).
CANOPY_DEVICE inline void add_result(totals* t, std::uint64_t steps) {
    canopy::atomic_ref<std::uint64_t, canopy::scope::device>(t->steps).fetch_add(steps,
                                                                                 std::memory_order_relaxed);
    canopy::atomic_ref<std::uint64_t, canopy::scope::device>(t->max_steps)
        .fetch_max(steps, std::memory_order_relaxed);
}

CANOPY_HOST_DEVICE inline std::uint64_t collatz_steps(std::uint64_t x) {
    std::uint64_t steps = 0;
    while (x != 1) {
        x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
        ++steps;
    }
    return steps;
}

struct collatz; // a task may spawn a type declared later: spawn<T> only needs T to be one of the set's

struct split {
    using payload = range_args;
    static constexpr std::uint32_t leaf = 8; // at most 4 odd numbers: within the default staging (16)
    template <class Ctx> CANOPY_DEVICE void operator()(const range_args& r, Ctx& ctx) const {
        if (r.hi - r.lo > leaf) {
            const std::uint32_t mid = r.lo + (r.hi - r.lo) / 2;
            spawn<split>(ctx, {r.lo, mid});
            spawn<split>(ctx, {mid, r.hi});
            return;
        }
        for (std::uint32_t v = r.lo | 1u; v < r.hi; v += 2) { // the odd numbers of the range
            spawn<collatz>(ctx, {v, r.lo});
        }
    }
};

struct collatz {
    using payload = number_args;
    totals* out;
    template <class Ctx> CANOPY_DEVICE void operator()(const number_args& a, Ctx&) const {
        if (a.x < a.lo || a.x >= a.lo + split::leaf || a.x % 2 == 0) {
            canopy::atomic_ref<std::uint64_t, canopy::scope::device>(out->bad_payloads)
                .fetch_add(1, std::memory_order_relaxed);
            return;
        }
        add_result(out, collatz_steps(a.x));
    }
};

int main(int argc, char** argv) {
    const std::uint32_t limit =
        argc > 1 ? static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 20000;
    if (limit < 2 || limit > 10000000) {
        std::fprintf(stderr, "two_task_types: limit must be in [2, 10000000]\n");
        return 2;
    }
    canopy::runtime::config cfg;
    try {
        if (argc > 2) {
            cfg.policy = canopy::runtime::parse_policy(argv[2]);
        }
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "two_task_types: %s\n", e.what());
        return 2;
    }
    try {
        canopy::device_buffer<totals> result(1);
        result.fill_zero();
        // Two task types in one set: the order of the template arguments is the types' numbering.
        canopy::runtime::task_set<split, collatz> tasks{split{}, collatz{result.data()}};
        tasks.seed<split>({1, limit});
        const canopy::runtime::stats s = tasks.run(cfg);
        totals got{};
        result.download(&got, 1);

        totals want{};
        std::uint64_t consumers = 0;
        for (std::uint64_t v = 1; v < limit; v += 2) {
            const std::uint64_t k = collatz_steps(v); // CANOPY_HOST_DEVICE: host and device
            want.steps += k;
            want.max_steps = k > want.max_steps ? k : want.max_steps;
            ++consumers;
        }
        std::printf(
            "policy %s: %llu tasks (%llu consumers), %llu donations, %llu steals; steps %llu, max %llu\n",
            canopy::runtime::to_string(cfg.policy), static_cast<unsigned long long>(s.total_tasks()),
            static_cast<unsigned long long>(consumers), static_cast<unsigned long long>(s.donations()),
            static_cast<unsigned long long>(s.steals_received), static_cast<unsigned long long>(got.steps),
            static_cast<unsigned long long>(got.max_steps));
        // The kernel alone (canopy/platform/kernel_timer.hpp); on the emulator, its host time.
        std::printf("device time %.3f ms (%s): %.3g tasks/s\n", s.device_ms, canopy::device_clock,
                    s.device_ms > 0 ? static_cast<double>(s.total_tasks()) / s.device_ms * 1e3 : 0.0);
        if (got.steps != want.steps || got.max_steps != want.max_steps || got.bad_payloads != 0) {
            std::printf("MISMATCH: the sequential loop gives steps %llu, max %llu; %llu bad payloads\n",
                        static_cast<unsigned long long>(want.steps),
                        static_cast<unsigned long long>(want.max_steps),
                        static_cast<unsigned long long>(got.bad_payloads));
            return 1;
        }
        std::printf("OK: matches the sequential loop over the %llu odd numbers below %u\n",
                    static_cast<unsigned long long>(consumers), limit);
        return 0;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "two_task_types: %s\n", e.what());
        return 1;
    }
}
