// nqueens: how many ways N queens fit on an N x N board, none attacking another, counted by a
// summing join (docs/writing-tasks.md, "Waiting for children"). A task holds the rows placed so far as
// three bitmasks (the columns and both diagonals taken); it forks one summing record for its legal
// squares in the next row, spawns a task per square and returns. Each child delivers its count with
// one atomic add; the last one spawns the continuation `total`, which passes the sum to its own parent.
// Near the bottom (the last `cutoff` rows) a task counts alone, by the same recursion in a loop.
//
//   nqueens [N [POLICY]]     N: 1..16 (default 10); POLICY: as canopy::runtime::parse_policy takes it
#include <cstdio>
#include <cstdlib>
#include <string>

#include <canopy/runtime/runtime.hpp>
#include <canopy/version.hpp>

namespace rt = canopy::runtime;

struct board {
    unsigned n, row;
    unsigned cols, left, right; // squares of this row attacked: by column, by either diagonal
    rt::join_slot to;           // where this board's count goes
};

/// Solutions below a board, counted in one task (an explicit stack: no recursion in device code).
CANOPY_HOST_DEVICE inline unsigned count_alone(unsigned n, unsigned row, unsigned cols, unsigned left,
                                               unsigned right) {
    const unsigned all = (1u << n) - 1;
    unsigned stack[16][4]; // per row: the squares still to try, and the three masks
    int depth = 0;
    unsigned found = 0;
    stack[0][0] = all & ~(cols | left | right);
    stack[0][1] = cols;
    stack[0][2] = left;
    stack[0][3] = right;
    while (depth >= 0) {
        unsigned& todo = stack[depth][0];
        if (todo == 0) {
            --depth;
            continue;
        }
        const unsigned q = todo & (0u - todo); // the lowest square left
        todo &= todo - 1;
        if (row + static_cast<unsigned>(depth) + 1 == n) {
            ++found;
            continue;
        }
        const unsigned c = stack[depth][1] | q, l = (stack[depth][2] | q) << 1,
                       r = (stack[depth][3] | q) >> 1;
        ++depth;
        stack[depth][0] = all & ~(c | l | r);
        stack[depth][1] = c;
        stack[depth][2] = l;
        stack[depth][3] = r;
    }
    return found;
}

struct total;

struct place {
    using payload = board;
    rt::join_sum_view j;
    unsigned cutoff; // rows left at which a task counts alone
    template <class Ctx> CANOPY_DEVICE void operator()(const board& b, Ctx& ctx) const {
        if (b.row == b.n) {
            j.complete<total>(ctx, b.to, 1u); // every queen placed: one solution
            return;
        }
        if (b.n - b.row <= cutoff) {
            j.complete<total>(ctx, b.to, count_alone(b.n, b.row, b.cols, b.left, b.right));
            return;
        }
        unsigned free_squares = ((1u << b.n) - 1) & ~(b.cols | b.left | b.right);
        if (free_squares == 0) {
            j.complete<total>(ctx, b.to, 0u); // a dead end counts nothing
            return;
        }
        unsigned children = 0;
        for (unsigned m = free_squares; m != 0; m &= m - 1) {
            ++children;
        }
        const rt::join_record r = j.fork(ctx, children, b.to);
        if (!r.valid()) {
            return; // the pool ran out: result() reports it after the run
        }
        for (unsigned i = 0; free_squares != 0; ++i) {
            const unsigned q = free_squares & (0u - free_squares);
            free_squares &= free_squares - 1;
            spawn<place>(ctx, {b.n, b.row + 1, b.cols | q, (b.left | q) << 1, (b.right | q) >> 1, r.slot(i)});
        }
    }
};

struct total {
    using payload = rt::join_payload;
    rt::join_sum_view j;
    template <class Ctx> CANOPY_DEVICE void operator()(const rt::join_payload& p, Ctx& ctx) const {
        const rt::join_sum_result r = j.take(p); // the children's sum, and where it goes
        j.complete<total>(ctx, r.to, r.sum);
    }
};

int main(int argc, char** argv) {
    const unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10;
    if (n < 1 || n > 16) {
        // 16: a task spawns at most n children, and the runtime stages 16 per task by default.
        std::fprintf(stderr, "nqueens: N = %lu is out of range (1..16)\n", n);
        return 2;
    }
    rt::config cfg;
    try {
        if (argc > 2) {
            cfg.policy = rt::parse_policy(argv[2]);
        }
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "nqueens: %s\n", e.what());
        return 2;
    }
    // The published counts (OEIS A000170), checked against the sequential count below as well.
    static const unsigned long long published[17] = {
        0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
    try {
        // Open joins: a running task holds at most N - cutoff, but a GPU runs a hundred thousand lanes
        // at once, breadth-first (fifo): 2^16 records ran out at N = 14 on an H100. 2^21 is 42 MB.
        rt::join_sum_pool pool(1u << 21);
        const unsigned cutoff = n > 6 ? 5u : 0u;
        rt::task_set<place, total> tasks{place{pool.view(), cutoff}, total{pool.view()}};
        tasks.seed<place>({static_cast<unsigned>(n), 0u, 0u, 0u, 0u, rt::join_root_slot});
        const rt::stats s = tasks.run(cfg);
        const unsigned long long got = pool.result(); // throws canopy::error if a join failed
        const unsigned long long alone = count_alone(static_cast<unsigned>(n), 0u, 0u, 0u, 0u);
        std::printf("canopy %s (%s backend), policy %s: %lu-queens by summing joins ran %llu tasks on %u "
                    "work-groups\n",
                    CANOPY_VERSION_STRING, CANOPY_BACKEND_NAME, rt::to_string(cfg.policy), n,
                    static_cast<unsigned long long>(s.total_tasks()), s.participants);
        // The kernel alone (canopy/platform/kernel_timer.hpp); on the emulator, its host time.
        std::printf("device time %.3f ms (%s): %.3g tasks/s\n", s.device_ms, canopy::device_clock,
                    s.device_ms > 0 ? static_cast<double>(s.total_tasks()) / s.device_ms * 1e3 : 0.0);
        if (got != alone || got != published[n]) {
            std::printf("MISMATCH: %llu solutions by joins, %llu counted alone, %llu published\n", got, alone,
                        published[n]);
            return 1;
        }
        std::printf("OK: %lu-queens has %llu solutions\n", n, got);
        return 0;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "nqueens: %s\n", e.what());
        return 1;
    }
}
