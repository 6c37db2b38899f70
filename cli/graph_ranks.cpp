// canopy graph bfs across ranks or emulated devices (graph_ranks.hpp). The argument for exactness and
// termination is in canopy/workloads/graph/partitioned_bfs.hpp; this file is its MPI transport.
#include "graph_ranks.hpp"

#include <chrono>
#include <vector>

#include "canopy/workloads/graph/partitioned_bfs_runs.hpp"

namespace canopy::cli {

namespace graph = workloads::graph;

graph_device_outcome run_bfs_ranks(const graph::csr_graph& g, std::uint32_t source, unsigned block,
                                   const mpi::session& world) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto size = static_cast<unsigned>(world.size());
    graph::compiled::partitioned_bfs_part part(g, size, static_cast<unsigned>(world.rank()), block);
    part.seed(source);
    graph_device_outcome out;
    for (std::uint64_t frontier = 1; frontier != 0; ++out.iterations) {
        // Every rank's expand kernel has ended before its outbox is sent, and the receive kernel runs on
        // what every rank sent: after the sum, every vertex still to expand is in some next frontier,
        // and every rank sees the same sum, so all leave after the same level.
        const std::vector<graph::vertex_id> got = world.alltoallv(part.expand());
        frontier = 0;
        for (const std::uint64_t n : world.allgather(part.receive(got))) {
            frontier += n;
        }
    }
    // Rank 0 gathers the levels: the parts are consecutive blocks, so the concatenation in rank order is
    // the whole graph's array.
    std::vector<std::vector<std::uint32_t>> to(size);
    to[0] = part.levels();
    std::uint64_t reached = 0;
    for (const std::uint32_t l : to[0]) {
        reached += l != graph::unreached_level ? 1 : 0;
    }
    out.levels = world.alltoallv(to);
    out.reached_per_part = world.allgather(reached);
    for (const std::uint64_t n : world.allgather(part.launches())) {
        out.launches += n;
    }
    for (const std::uint64_t n : world.allgather(part.remote_arcs())) {
        out.remote_arcs += n;
    }
    for (const std::uint64_t n : world.allgather(part.sent())) {
        out.sent += n;
    }
    out.parts = size;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    describe_last_launch(out);
    return out;
}

graph_device_outcome run_bfs_devices(const graph::csr_graph& g, std::uint32_t source, unsigned block,
                                     unsigned devices) {
    graph::compiled::partitioned_bfs_result r = graph::compiled::bfs_partitioned(g, source, devices, block);
    graph_device_outcome out;
    out.levels = std::move(r.levels);
    out.iterations = r.iterations;
    out.launches = r.launches;
    out.remote_arcs = r.remote_arcs;
    out.sent = r.sent;
    out.reached_per_part = std::move(r.reached_per_part);
    out.parts = devices;
    out.seconds = r.seconds;
    describe_last_launch(out);
    return out;
}

} // namespace canopy::cli
