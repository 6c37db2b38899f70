// tests/fuzz/fuzz_graph.cpp — fuzz target canopy_fuzz_graph: the graph loaders
// (canopy/workloads/graph/load.hpp) for all four formats in one target. The first byte chooses:
//   bits 0-1  the format: 0 Matrix Market, 1 DIMACS .gr, 2 METIS, 3 SNAP ('0'..'3' in a seed file)
//   bit 2     ignore_weights          bit 3  build.symmetrize
//   bit 6     build.drop_self_loops   bit 7  build.drop_duplicates
// and the rest is the file. One target rather than four: the formats share the tokenizer, the number
// parsing and build_csr, so one corpus lets a mutation that helps one format help the others, and CI pays
// one time slice instead of four.
// Oracles: a rejection is load_error and nothing else (no std::bad_alloc: a huge header must be refused
// before it allocates); an accepted file gives a CSR that keeps csr.hpp's invariants (checked here again,
// independently), sorted adjacencies, a build report that adds up, counts that match the header, and
// the same CSR again when written out as DIMACS and read back.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "canopy/workloads/graph/load.hpp"
#include "fuzz_check.hpp"

namespace graph = canopy::workloads::graph;

namespace {

void check_csr(const graph::csr_graph& g) {
    const auto off = g.offsets();
    const auto tgt = g.targets();
    const auto w = g.weights();
    const std::uint64_t n = g.num_vertices();
    CANOPY_FUZZ_CHECK(off.size() == n + 1 && off[0] == 0, "CSR offsets do not start at 0 or miscount");
    CANOPY_FUZZ_CHECK(off[n] == tgt.size(), "the last CSR offset is not the arc count");
    CANOPY_FUZZ_CHECK(w.empty() || w.size() == tgt.size(), "CSR weights are not parallel to the targets");
    for (std::uint64_t v = 0; v < n; ++v) {
        CANOPY_FUZZ_CHECK(off[v] <= off[v + 1], "CSR offsets decrease");
        for (std::uint64_t e = off[v]; e < off[v + 1]; ++e) {
            CANOPY_FUZZ_CHECK(tgt[e] < n, "a CSR target is not a vertex");
            if (e > off[v]) {
                const bool sorted =
                    tgt[e - 1] < tgt[e] || (tgt[e - 1] == tgt[e] && (w.empty() || w[e - 1] <= w[e]));
                CANOPY_FUZZ_CHECK(sorted, "an adjacency is not sorted by (target, weight)");
            }
        }
    }
}

bool has_arc(const graph::csr_graph& g, graph::vertex_id u, graph::vertex_id v) {
    const auto nb = g.neighbours(u);
    return std::binary_search(nb.begin(), nb.end(), v);
}

void check_build(const graph::loaded_graph& lg, const graph::load_options& o) {
    const graph::csr_graph& g = lg.graph;
    const graph::build_report& b = lg.report.build;
    CANOPY_FUZZ_CHECK(b.vertices == g.num_vertices() && b.arcs == g.num_edges(),
                      "build report's size is wrong");
    std::uint64_t loops = 0, dups = 0, unpaired = 0;
    for (graph::vertex_id u = 0; u < g.num_vertices(); ++u) {
        const auto nb = g.neighbours(u);
        for (std::size_t i = 0; i < nb.size(); ++i) {
            loops += nb[i] == u;
            dups += i > 0 && nb[i] == nb[i - 1];
            unpaired += nb[i] != u && !has_arc(g, nb[i], u);
        }
    }
    CANOPY_FUZZ_CHECK(unpaired == b.unpaired_arcs, "build report's unpaired arc count is wrong");
    if (o.build.drop_self_loops) {
        CANOPY_FUZZ_CHECK(loops == 0, "a self-loop survived drop_self_loops");
    }
    if (o.build.drop_duplicates) {
        CANOPY_FUZZ_CHECK(dups == 0, "a duplicate arc survived drop_duplicates");
    }
    if (o.build.symmetrize) {
        CANOPY_FUZZ_CHECK(unpaired == 0, "symmetrize left an arc without its reverse");
    }
    if (!o.build.symmetrize && !o.build.drop_self_loops && !o.build.drop_duplicates) {
        CANOPY_FUZZ_CHECK(b.arcs == b.expanded_arcs, "arcs went missing without a clean-up option");
        CANOPY_FUZZ_CHECK(loops == b.self_loops && dups == b.duplicates,
                          "build report's loop or duplicate count");
    }
}

void check_header(const graph::loaded_graph& lg, graph::graph_format f, const graph::load_options& o) {
    const graph::load_report& r = lg.report;
    const std::uint64_t n = lg.graph.num_vertices();
    switch (f) {
    case graph::graph_format::matrix_market:
    case graph::graph_format::dimacs:
        CANOPY_FUZZ_CHECK(r.header_vertices == n, "vertex count differs from the header's");
        CANOPY_FUZZ_CHECK(r.build.input_edges == r.header_edges, "entry count differs from the header's");
        break;
    case graph::graph_format::metis:
        CANOPY_FUZZ_CHECK(r.header_vertices == n, "vertex count differs from the METIS header's");
        CANOPY_FUZZ_CHECK(r.header_edges <= UINT64_MAX / 2 && r.build.input_edges == 2 * r.header_edges,
                          "METIS adjacency entries are not twice the header's edge count");
        break;
    case graph::graph_format::snap:
        CANOPY_FUZZ_CHECK(r.header_vertices == n && r.build.input_edges == r.header_edges, "SNAP counts");
        if (r.ids_remapped) {
            CANOPY_FUZZ_CHECK(r.original_ids.size() == n, "SNAP id map is not one id per vertex");
            for (std::size_t i = 1; i < r.original_ids.size(); ++i) {
                CANOPY_FUZZ_CHECK(r.original_ids[i - 1] < r.original_ids[i], "SNAP id map is not ascending");
            }
        }
        break;
    }
    if (lg.graph.num_edges() != 0) {
        CANOPY_FUZZ_CHECK(lg.graph.has_weights() == (r.file_weighted && !o.ignore_weights),
                          "the graph's weights do not follow the file and ignore_weights");
    }
}

// The CSR written as a DIMACS .gr file (every arc; weight 1 where unweighted) and read back must be the
// same CSR: the DIMACS reader against every other format's.
void check_round_trip(const graph::csr_graph& g) {
    std::string text =
        "c round trip\np sp " + std::to_string(g.num_vertices()) + " " + std::to_string(g.num_edges()) + "\n";
    for (graph::vertex_id u = 0; u < g.num_vertices(); ++u) {
        for (std::uint64_t e = g.offsets()[u]; e < g.offsets()[u + 1]; ++e) {
            text += "a " + std::to_string(u + 1ull) + " " + std::to_string(g.targets()[e] + 1ull) + " " +
                    std::to_string(g.weight(e)) + "\n";
        }
    }
    graph::load_options o;
    o.vertex_slack = g.num_vertices(); // the first parse already accepted this many vertices
    graph::loaded_graph back;
    try {
        back = graph::parse_graph(text, "round-trip.gr", graph::graph_format::dimacs, o);
    } catch (const graph::load_error&) {
        CANOPY_FUZZ_CHECK(false, "a parsed graph written as DIMACS does not parse back");
    }
    const graph::csr_graph& h = back.graph;
    CANOPY_FUZZ_CHECK(std::ranges::equal(g.offsets(), h.offsets()) &&
                          std::ranges::equal(g.targets(), h.targets()),
                      "a parsed graph written as DIMACS reads back as another graph");
    if (g.has_weights()) {
        CANOPY_FUZZ_CHECK(std::ranges::equal(g.weights(), h.weights()), "DIMACS round trip changed weights");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    CANOPY_FUZZ_PLANTED_CHECK(size);
    if (size == 0) {
        return 0;
    }
    const auto format = static_cast<graph::graph_format>(data[0] & 3);
    graph::load_options o;
    o.format = format;
    o.ignore_weights = (data[0] & 4) != 0;
    o.build.symmetrize = (data[0] & 8) != 0;
    o.build.drop_self_loops = (data[0] & 0x40) != 0;
    o.build.drop_duplicates = (data[0] & 0x80) != 0;
    // Keep every execution fast: a header may declare at most 2 x entries + 4096 vertices here (the
    // default, 2^24, is what a real file gets; tests/workloads checks that it refuses 2^32 - 1).
    o.vertex_slack = 4096;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    graph::loaded_graph lg;
    try {
        lg = graph::parse_graph(text, "fuzz.in", format, o);
    } catch (const graph::load_error& e) {
        CANOPY_FUZZ_CHECK(e.file() == "fuzz.in" && !e.reason().empty(),
                          "a load_error without file or reason");
        return 0;
    }
    check_csr(lg.graph);
    check_build(lg, o);
    check_header(lg, format, o);
    check_round_trip(lg.graph);
    return 0;
}
