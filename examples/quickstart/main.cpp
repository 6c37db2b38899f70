// quickstart: a task type that spawns children from device code.
//
// fib(n) spawns fib(n-1) and fib(n-2); fib(0) and fib(1) are leaves that count themselves. The tree has
// F(n+1) leaves and 2 F(n+1) - 1 tasks (F = the Fibonacci numbers), which main() checks against Binet's
// closed form. Usage: quickstart [n (default 20, at most 40)] [policy (default hrf-indirect)].
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <canopy/platform/atomic.hpp>
#include <canopy/platform/error.hpp>
#include <canopy/platform/memory.hpp>
#include <canopy/runtime/runtime.hpp>
#include <canopy/version.hpp>

// A payload is what one task carries: fixed size, trivially copyable (it is copied into queue slots).
struct fib_args {
    unsigned n;
};

// A task type: its payload type, and an operator() that runs on one lane of the device.
struct fib {
    using payload = fib_args;
    unsigned long long* leaves; // device memory; the functor is copied to the device once per run

    template <class Ctx> CANOPY_DEVICE void operator()(const fib_args& p, Ctx& ctx) const {
        if (p.n < 2) {
            // Relaxed, device scope: every work-group adds to one counter, and nobody reads it before
            // the kernel ends (the end of the run is what orders it before the host's read).
            canopy::atomic_ref<unsigned long long, canopy::scope::device>(*leaves).fetch_add(
                1, std::memory_order_relaxed);
            return;
        }
        // Any lane may spawn, any number of times, from divergent code: the scheduler packs the
        // children into task-fronts at its next scheduling point.
        spawn<fib>(ctx, {p.n - 1});
        spawn<fib>(ctx, {p.n - 2});
    }
};

int main(int argc, char** argv) {
    const unsigned n = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) : 20;
    if (n > 40) {
        std::fprintf(stderr, "quickstart: n = %u is too large for this example (at most 40)\n", n);
        return 2;
    }
    canopy::runtime::config cfg; // defaults: persistent launch, hrf-indirect, the queue capacities
    try {
        if (argc > 2) {
            cfg.policy = canopy::runtime::parse_policy(argv[2]); // throws naming the valid policies
        }
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "quickstart: %s\n", e.what());
        return 2;
    }
    try {
        canopy::device_buffer<unsigned long long> leaves(1);
        leaves.fill_zero();

        canopy::runtime::task_set<fib> tasks{fib{leaves.data()}};
        tasks.seed<fib>({n});
        const canopy::runtime::stats s = tasks.run(cfg); // throws canopy::error if the run fails

        unsigned long long got = 0;
        leaves.download(&got, 1);
        // Binet: F(k) = round(phi^k / sqrt 5), exact in double for k <= 70.
        const double phi = (1 + std::sqrt(5.0)) / 2;
        const auto expected =
            static_cast<unsigned long long>(std::llround(std::pow(phi, n + 1) / std::sqrt(5.0)));
        std::printf(
            "canopy %s (%s backend), policy %s: fib(%u) ran %llu tasks on %u work-groups, %llu leaves\n",
            CANOPY_VERSION_STRING, CANOPY_BACKEND_NAME, canopy::runtime::to_string(cfg.policy), n,
            static_cast<unsigned long long>(s.total_tasks()), s.participants, got);
        // The kernel alone (canopy/platform/kernel_timer.hpp); on the emulator, its host time.
        std::printf("device time %.3f ms (%s): %.3g tasks/s\n", s.device_ms, canopy::device_clock,
                    s.device_ms > 0 ? static_cast<double>(s.total_tasks()) / s.device_ms * 1e3 : 0.0);
        if (got != expected || s.total_tasks() != 2 * expected - 1) {
            std::printf("MISMATCH: expected %llu leaves and %llu tasks (closed form)\n", expected,
                        2 * expected - 1);
            return 1;
        }
        std::printf("OK: %llu leaves = F(%u), %llu tasks = 2 F(%u) - 1 (closed form)\n", got, n + 1,
                    2 * expected - 1, n + 1);
        return 0;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "quickstart: %s\n", e.what());
        return 1;
    }
}
