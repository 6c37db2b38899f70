// canopy uts under mpirun (uts_ranks.hpp). The protocol's argument is in canopy/workloads/uts/rounds.hpp
// and docs/scale-out.md; this file is its MPI transport.
#include "uts_ranks.hpp"

#include <chrono>

#include "canopy/workloads/uts/balance.hpp"

namespace canopy::cli {

uts_ranks_outcome run_uts_ranks(const uts_tree_spec& spec, const uts_runtime_settings& s,
                                const mpi::session& world, std::uint64_t round_nodes) {
    namespace uts = workloads::uts;
    const auto t0 = std::chrono::steady_clock::now();
    const auto rank = static_cast<unsigned>(world.rank());
    const auto size = static_cast<std::size_t>(world.size());
    std::vector<std::uint32_t> mine = rank == 0 ? uts_root_frontier(spec) : std::vector<std::uint32_t>{};
    uts_ranks_outcome out;
    unsigned long long nodes = 0, leaves = 0;
    int depth = 0;
    for (;;) {
        // Every rank's launch has ended and the last exchange has been received: these sizes are all
        // the work left, and every rank sees the same ones, so every rank leaves after the same round.
        const std::vector<std::uint64_t> sizes = world.allgather(mine.size() / uts_node_words);
        std::uint64_t total = 0;
        for (const std::uint64_t n : sizes) {
            total += n;
        }
        if (total == 0) {
            break;
        }
        out.frontier_nodes += total;
        // The same plan on every rank, from the same sizes: a rank knows what it sends and the
        // collective tells it what it receives.
        std::vector<std::vector<std::uint32_t>> to(size);
        for (const uts::frontier_move& m : uts::balance_plan(sizes)) {
            out.moved += m.nodes;
            if (m.from != rank) {
                continue;
            }
            const std::size_t words = m.nodes * uts_node_words;
            auto& buf = to[m.to];
            buf.insert(buf.end(), mine.end() - static_cast<std::ptrdiff_t>(words), mine.end());
            mine.resize(mine.size() - words);
        }
        const std::vector<std::uint32_t> got = world.alltoallv(to);
        mine.insert(mine.end(), got.begin(), got.end());
        ++out.rounds;
        unsigned long long ran = 0;
        if (!mine.empty()) {
            uts_round_outcome r = run_uts_round(spec, s, mine, round_nodes);
            ran = r.nodes;
            leaves += r.leaves;
            depth = r.depth > depth ? r.depth : depth;
            mine = std::move(r.frontier);
        }
        nodes += ran;
        std::uint64_t longest = 0;
        for (const std::uint64_t n : world.allgather(ran)) {
            longest = n > longest ? n : longest;
        }
        out.critical_nodes += longest;
    }
    out.nodes_per_rank = world.allgather(nodes);
    for (const std::uint64_t n : out.nodes_per_rank) {
        out.total.nodes += n;
    }
    for (const std::uint64_t l : world.allgather(leaves)) {
        out.total.leaves += l;
    }
    for (const std::uint64_t d : world.allgather(static_cast<std::uint64_t>(depth))) {
        out.total.depth = static_cast<int>(d) > out.total.depth ? static_cast<int>(d) : out.total.depth;
    }
    out.total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace canopy::cli
