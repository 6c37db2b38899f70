// canopy_graph_runs: BFS's device runs (canopy/workloads/graph/compiled_runs.hpp says why they are here),
// and BFS over a 1-D partition of the vertices (partitioned_bfs_runs.hpp).
#include <chrono>
#include <string>

#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/partitioned_bfs.hpp"
#include "canopy/workloads/graph/partitioned_bfs_runs.hpp"

namespace canopy::workloads::graph::compiled {

run_result<bfs_problem::label> bfs(const csr_view& g, vertex_id source, const run_options& o) {
    return graph::run<bfs_problem>(g, source, o);
}

partitioned_bfs_part::partitioned_bfs_part(const csr_graph& g, unsigned parts, unsigned me, unsigned block)
    : p_(std::make_unique<bfs_part>(g, block_partition{g.num_vertices(), parts}, me, block)) {}
partitioned_bfs_part::~partitioned_bfs_part() = default;
void partitioned_bfs_part::seed(vertex_id source) { p_->seed(source); }
std::vector<std::vector<vertex_id>> partitioned_bfs_part::expand() { return p_->expand(); }
std::uint64_t partitioned_bfs_part::receive(const std::vector<vertex_id>& in) { return p_->receive(in); }
std::vector<std::uint32_t> partitioned_bfs_part::levels() const { return p_->levels(); }
std::uint64_t partitioned_bfs_part::launches() const { return p_->launches(); }
std::uint64_t partitioned_bfs_part::remote_arcs() const { return p_->remote_arcs(); }
std::uint64_t partitioned_bfs_part::sent() const { return p_->sent(); }

partitioned_bfs_result bfs_partitioned(const csr_graph& g, vertex_id source, unsigned parts, unsigned block) {
    if (parts == 0) {
        throw error("canopy graph: a partitioned BFS needs at least one part");
    }
    if (source >= g.num_vertices()) {
        throw error("canopy graph: source " + std::to_string(source) + " is not a vertex of a graph of " +
                    std::to_string(g.num_vertices()));
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<bfs_part>> part;
    for (unsigned r = 0; r < parts; ++r) {
        part.push_back(std::make_unique<bfs_part>(g, block_partition{g.num_vertices(), parts}, r, block));
        part.back()->seed(source);
    }
    partitioned_bfs_result out;
    for (std::uint64_t frontier = 1; frontier != 0; ++out.iterations) {
        // Step 2, the exchange: inbox[r] is what every part sent to r, in sender order (as Alltoallv).
        std::vector<std::vector<vertex_id>> inbox(parts);
        for (auto& p : part) {
            std::vector<std::vector<vertex_id>> to = p->expand();
            for (unsigned r = 0; r < parts; ++r) {
                inbox[r].insert(inbox[r].end(), to[r].begin(), to[r].end());
            }
        }
        frontier = 0;
        for (unsigned r = 0; r < parts; ++r) {
            frontier += part[r]->receive(inbox[r]);
        }
    }
    for (auto& p : part) {
        const std::vector<std::uint32_t> l = p->levels();
        std::uint64_t reached = 0;
        for (const std::uint32_t x : l) {
            reached += x != unreached_level ? 1 : 0;
        }
        out.reached_per_part.push_back(reached);
        out.levels.insert(out.levels.end(), l.begin(), l.end());
        out.launches += p->launches();
        out.remote_arcs += p->remote_arcs();
        out.sent += p->sent();
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace canopy::workloads::graph::compiled
