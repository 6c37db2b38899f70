// fib-join: fib(n) computed by joins (docs/writing-tasks.md, "Waiting for children"). A task for n >= 2
// forks a join record of two slots, spawns fib(n - 1) and fib(n - 2) into them and returns; when both
// have delivered their results, the runtime's last child spawns the continuation `add`, which takes the
// two results and delivers their sum to its own parent's slot. The root's result comes back to the host.
//
//   fib-join [N [POLICY]]     N: 0..60 (default 30); POLICY: as canopy::runtime::parse_policy takes it
#include <cstdio>
#include <cstdlib>
#include <string>

#include <canopy/runtime/runtime.hpp>
#include <canopy/version.hpp>

namespace rt = canopy::runtime;

using joins = rt::join_view<unsigned long long, 2>; // results of 8 bytes, records of two children

struct fib_args {
    unsigned n;
    rt::join_slot to; // where this task's result goes
};

struct add;

struct fib {
    using payload = fib_args;
    joins j;
    template <class Ctx> CANOPY_DEVICE void operator()(const fib_args& p, Ctx& ctx) const {
        if (p.n < 2) {
            j.complete<add>(ctx, p.to, p.n); // a leaf delivers its value
            return;
        }
        const rt::join_record r = j.fork(ctx, 2, p.to); // the record's own result goes where ours would
        if (!r.valid()) {
            return; // the pool ran out: result() reports it after the run
        }
        spawn<fib>(ctx, {p.n - 1, r.slot(0)});
        spawn<fib>(ctx, {p.n - 2, r.slot(1)});
    }
};

struct add {
    using payload = rt::join_payload;
    joins j;
    template <class Ctx> CANOPY_DEVICE void operator()(const rt::join_payload& p, Ctx& ctx) const {
        const auto r = j.take(ctx, p); // both results, and where the sum goes
        j.complete<add>(ctx, r.to, r.value[0] + r.value[1]);
    }
};

int main(int argc, char** argv) {
    const unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 30;
    if (n > 60) {
        std::fprintf(stderr, "fib-join: n = %lu is too large for this example (at most 60)\n", n);
        return 2;
    }
    rt::config cfg;
    try {
        if (argc > 2) {
            cfg.policy = rt::parse_policy(argv[2]);
        }
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "fib-join: %s\n", e.what());
        return 2;
    }
    try {
        // Open joins at once stay far below the task count; 2^20 records (~40 MiB) cover fib(30) on
        // every device here with room to spare. Too few is reported by result(), naming the fix.
        rt::join_pool<unsigned long long, 2> pool(1u << 20);
        rt::task_set<fib, add> tasks{fib{pool.view()}, add{pool.view()}};
        tasks.seed<fib>({static_cast<unsigned>(n), rt::join_root_slot});
        const rt::stats s = tasks.run(cfg);
        const unsigned long long got = pool.result(); // throws canopy::error if a join failed

        unsigned long long a = 0, b = 1; // the sequential oracle
        for (unsigned long i = 0; i < n; ++i) {
            const unsigned long long c = a + b;
            a = b;
            b = c;
        }
        std::printf("canopy %s (%s backend), policy %s: fib(%lu) by joins ran %llu tasks on %u work-groups\n",
                    CANOPY_VERSION_STRING, CANOPY_BACKEND_NAME, rt::to_string(cfg.policy), n,
                    static_cast<unsigned long long>(s.total_tasks()), s.participants);
        // The kernel alone (canopy/platform/kernel_timer.hpp); on the emulator, its host time.
        std::printf("device time %.3f ms (%s): %.3g tasks/s\n", s.device_ms, canopy::device_clock,
                    s.device_ms > 0 ? static_cast<double>(s.total_tasks()) / s.device_ms * 1e3 : 0.0);
        if (got != a) {
            std::printf("MISMATCH: fib(%lu) = %llu by joins, %llu by the loop\n", n, got, a);
            return 1;
        }
        std::printf("OK: fib(%lu) = %llu\n", n, got);
        return 0;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "fib-join: %s\n", e.what());
        return 1;
    }
}
