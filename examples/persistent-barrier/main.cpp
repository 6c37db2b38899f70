// persistent-barrier: an iterative 1-D Jacobi sweep in ONE kernel launch, phases separated by the XF
// inter-work-group barrier, over the work-groups that occupancy discovery found co-resident.
//
// Waiting for other work-groups inside a kernel is only safe if they are all resident at once: a
// launch larger than the device holds deadlocks (the emulator's watchdog reports it; a GPU hangs).
// launch_persistent launches as many work-groups as the device can hold, discovery admits those that
// really are resident, and the kernel is written for any number of participants (p_global_id and
// p_global_size, a grid-stride loop), never for the launched grid. main() compares the result, bit
// for bit, with the same sweep run sequentially on the host.
// Usage: persistent_barrier [points (default 4096)] [sweeps (default 64)].
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <canopy/platform/error.hpp>
#include <canopy/platform/kernel_timer.hpp>
#include <canopy/platform/memory.hpp>
#include <canopy/platform/plain_access.hpp>
#include <canopy/sync/discovery.hpp>
#include <canopy/sync/persistent.hpp>
#include <canopy/sync/xf_barrier.hpp>

// One sweep of one point: the mean of its neighbours (the ends are fixed boundary values). Written so
// that no compiler may fuse it into an FMA, so host and device round identically.
CANOPY_HOST_DEVICE inline double relax(double left, double right) { return (left + right) * 0.5; }

struct jacobi {
    double* a; // sweep k reads one buffer and writes the other; they swap every sweep
    double* b;
    unsigned n, sweeps;
    canopy::sync::xf_barrier barrier;

    CANOPY_DEVICE void operator()() const {
        for (unsigned k = 0; k < sweeps; ++k) {
            const double* src = k % 2 == 0 ? a : b;
            double* dst = k % 2 == 0 ? b : a;
            // Plain accesses (canopy::ld/st): within a phase no two work-items touch the same word.
            for (unsigned i = canopy::sync::p_global_id() + 1; i + 1 < n;
                 i += canopy::sync::p_global_size()) {
                canopy::st(&dst[i], relax(canopy::ld(&src[i - 1]), canopy::ld(&src[i + 1])));
            }
            // Every write of this sweep happens-before every read of the next: the XF barrier releases
            // and acquires at device scope (sync/xf_barrier.hpp), and it also keeps the next sweep's
            // writes from overtaking this sweep's reads of the same buffer.
            barrier.wait();
        }
    }
};

int main(int argc, char** argv) {
    const unsigned n = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) : 4096;
    const unsigned sweeps = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 64;
    if (n < 3 || n > (1u << 26) || sweeps == 0) {
        std::fprintf(stderr, "persistent_barrier: points must be in [3, 2^26] and sweeps at least 1\n");
        return 2;
    }
    std::vector<double> init(n, 0.0);
    init.front() = 1.0; // hot left end, cold right end
    init.back() = -1.0;
    try {
        canopy::device_buffer<double> a(init), b(init);
        const unsigned block = 64;
        // As many work-groups as the device holds resident with this kernel; discovery keeps the ids
        // of those that join, and the barrier needs one flag per possible participant.
        const unsigned grid = canopy::sync::persistent_grid<jacobi>(block);
        canopy::sync::discovery_context discovery(grid);
        canopy::sync::xf_barrier_state flags(grid);
        canopy::kernel_timer timer; // the kernel alone: no allocation or copy (on the emulator, host time)
        const unsigned participants =
            canopy::sync::launch_persistent({.grid = grid, .block = block}, discovery,
                                            jacobi{a.data(), b.data(), n, sweeps, flags.barrier()}, &timer);
        const double device_ms = timer.total().span_ms;

        std::vector<double> got(n);
        (sweeps % 2 == 0 ? a : b).download(got.data(), n);

        std::vector<double> x = init, y = init; // the same sweeps, sequentially
        for (unsigned k = 0; k < sweeps; ++k) {
            for (unsigned i = 1; i + 1 < n; ++i) {
                y[i] = relax(x[i - 1], x[i + 1]);
            }
            x.swap(y);
        }
        unsigned wrong = 0;
        for (unsigned i = 0; i < n; ++i) {
            wrong += got[i] != x[i];
        }
        std::printf(
            "%u points, %u sweeps: %u of %u launched work-groups took part, %u barriers; u[1] = %.6f\n", n,
            sweeps, participants, grid, sweeps, got[1]);
        std::printf("device time %.3f ms (%s): %.3g us a sweep\n", device_ms, canopy::device_clock,
                    device_ms * 1e3 / sweeps);
        if (wrong != 0) {
            std::printf("MISMATCH: %u points differ from the sequential sweep\n", wrong);
            return 1;
        }
        std::printf("OK: bit-identical to the sequential sweep\n");
        return 0;
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "persistent_barrier: %s\n", e.what());
        return 1;
    }
}
