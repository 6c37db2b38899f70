// Graph loaders (canopy/workloads/graph/load.hpp): every format on small hand-written files, the clean-up
// options and their counts, every malformed-input class with its exact "FILE:LINE: error:" message,
// and Debian's METIS meshes against their headers.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if CANOPY_TEST_ZLIB
#    include <zlib.h>
#endif

#include "canopy/workloads/graph/load.hpp"
#include "graph_test_util.hpp"

namespace {

namespace g = canopy::workloads::graph;
using canopy_test_graph::scratch_dir;

// The adjacency of v as a vector, for compact expectations.
std::vector<g::vertex_id> adj(const g::csr_graph& gr, g::vertex_id v) {
    auto s = gr.neighbours(v);
    return {s.begin(), s.end()};
}
std::vector<g::weight_t> wts(const g::csr_graph& gr, g::vertex_id v) {
    auto s = gr.neighbour_weights(v);
    return {s.begin(), s.end()};
}

g::loaded_graph parse(const std::string& text, g::graph_format f, g::load_options o = {}) {
    return g::parse_graph(text, "t", f, o);
}

TEST(GraphLoad, MatrixMarketGeneralInteger) {
    const auto r = parse("%%MatrixMarket matrix coordinate integer general\n"
                         "% a comment\n"
                         "%\n"
                         "4 4 4\n"
                         "1 2 7\n"
                         "2 3 1\n"
                         "4 1 4294967295\n"
                         "1 3 0\n",
                         g::graph_format::matrix_market);
    EXPECT_EQ(r.graph.num_vertices(), 4u);
    EXPECT_EQ(r.graph.num_edges(), 4u);
    EXPECT_EQ(adj(r.graph, 0), (std::vector<g::vertex_id>{1, 2}));
    EXPECT_EQ(wts(r.graph, 0), (std::vector<g::weight_t>{7, 0}));
    EXPECT_EQ(adj(r.graph, 3), (std::vector<g::vertex_id>{0}));
    EXPECT_EQ(wts(r.graph, 3), (std::vector<g::weight_t>{4294967295u}));
    EXPECT_TRUE(r.report.file_weighted);
    EXPECT_FALSE(r.report.file_symmetric);
    EXPECT_EQ(r.report.build.unpaired_arcs, 4u);
}

TEST(GraphLoad, MatrixMarketSymmetricPatternStoresOneTriangle) {
    // Lower triangle plus a diagonal entry: the loop becomes one arc, every other entry two.
    const auto r = parse("%%MatrixMarket MATRIX Coordinate Pattern Symmetric\n3 3 3\n2 1\n3 2\n3 3\n",
                         g::graph_format::matrix_market);
    EXPECT_EQ(r.graph.num_edges(), 5u);
    EXPECT_FALSE(r.graph.has_weights());
    EXPECT_EQ(adj(r.graph, 1), (std::vector<g::vertex_id>{0, 2}));
    EXPECT_EQ(adj(r.graph, 2), (std::vector<g::vertex_id>{1, 2}));
    EXPECT_TRUE(r.report.file_symmetric);
    EXPECT_EQ(r.report.build.self_loops, 1u);
    EXPECT_TRUE(r.report.build.symmetric());
}

TEST(GraphLoad, MatrixMarketRealWeights) {
    const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 3.0\n2 1 1e2\n";
    const auto r = parse(text, g::graph_format::matrix_market);
    EXPECT_EQ(wts(r.graph, 0), (std::vector<g::weight_t>{3}));
    EXPECT_EQ(wts(r.graph, 1), (std::vector<g::weight_t>{100}));
    // A fractional value is refused, unless the weights are ignored.
    const std::string frac = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n";
    EXPECT_THROW(parse(frac, g::graph_format::matrix_market), g::load_error);
    g::load_options o;
    o.ignore_weights = true;
    const auto r2 = parse(frac, g::graph_format::matrix_market, o);
    EXPECT_FALSE(r2.graph.has_weights());
    EXPECT_TRUE(r2.report.file_weighted);
    ASSERT_EQ(r2.report.notes.size(), 1u);
    // ignore_weights still wants numbers where the weights are.
    EXPECT_EQ(parse("p sp 2 1\na 1 2 -7\n", g::graph_format::dimacs, o).graph.num_edges(), 1u);
    EXPECT_THROW(parse("p sp 2 1\na 1 2 x\n", g::graph_format::dimacs, o), g::load_error);
}

TEST(GraphLoad, DimacsShortestPath) {
    const auto r = parse("c 9th DIMACS challenge style\n"
                         "c\n"
                         "p sp 3 4\n"
                         "a 1 2 10\n"
                         "a 2 1 10\n"
                         "\n"
                         "a 2 3 5\n"
                         "a 1 3 20\n",
                         g::graph_format::dimacs);
    EXPECT_EQ(r.graph.num_vertices(), 3u);
    EXPECT_EQ(r.graph.num_edges(), 4u);
    EXPECT_EQ(adj(r.graph, 0), (std::vector<g::vertex_id>{1, 2}));
    EXPECT_EQ(wts(r.graph, 0), (std::vector<g::weight_t>{10, 20}));
    EXPECT_EQ(r.report.header_vertices, 3u);
    EXPECT_EQ(r.report.header_edges, 4u);
    EXPECT_EQ(r.report.build.unpaired_arcs, 2u);
}

TEST(GraphLoad, MetisPlainWithIsolatedVertexAndNoFinalNewline) {
    // Vertex 3 is isolated: its line is empty (not skipped). The file ends without a newline, as
    // Debian's 4elt.graph does.
    const auto r = parse("% comment\n4 2\n2 4\n1\n\n1", g::graph_format::metis);
    EXPECT_EQ(r.graph.num_vertices(), 4u);
    EXPECT_EQ(r.graph.num_edges(), 4u);
    EXPECT_EQ(r.graph.degree(2), 0u);
    EXPECT_EQ(adj(r.graph, 0), (std::vector<g::vertex_id>{1, 3}));
    EXPECT_TRUE(r.report.build.symmetric());
    EXPECT_EQ(r.report.header_edges, 2u);
}

TEST(GraphLoad, MetisSizesVertexWeightsEdgeWeights) {
    // fmt 111, ncon 2: size, two vertex weights, then (neighbour, weight) pairs.
    const auto r = parse("3 2 111 2\n"
                         "1 5 6 2 7\n"
                         "1 5 6 1 7 3 9\n"
                         "1 5 6 2 9\n",
                         g::graph_format::metis);
    EXPECT_EQ(r.graph.num_edges(), 4u);
    EXPECT_EQ(adj(r.graph, 1), (std::vector<g::vertex_id>{0, 2}));
    EXPECT_EQ(wts(r.graph, 1), (std::vector<g::weight_t>{7, 9}));
    EXPECT_EQ(r.report.notes.size(), 2u); // sizes and vertex weights read, not used
    // Short fmt: "1" means 001 (edge weights only).
    const auto r2 = parse("2 1 1\n2 4\n1 4\n", g::graph_format::metis);
    EXPECT_EQ(wts(r2.graph, 0), (std::vector<g::weight_t>{4}));
    // fmt 010 without ncon: one vertex weight.
    const auto r3 = parse("2 1 010\n8 2\n9 1\n", g::graph_format::metis);
    EXPECT_EQ(adj(r3.graph, 0), (std::vector<g::vertex_id>{1}));
    EXPECT_FALSE(r3.graph.has_weights());
}

TEST(GraphLoad, SnapTabsCrlfCommentsAndRemappedIds) {
    const auto r = parse("# Directed graph\r\n# Nodes: 3 Edges: 3\r\n10\t20\r\n20 7\r\n\r\n7\t\t10\r\n",
                         g::graph_format::snap);
    EXPECT_EQ(r.graph.num_vertices(), 3u);
    EXPECT_EQ(r.graph.num_edges(), 3u);
    EXPECT_TRUE(r.report.ids_remapped);
    EXPECT_EQ(r.report.original_ids, (std::vector<std::uint64_t>{7, 10, 20}));
    // 10->20 is 1->2, 20->7 is 2->0, 7->10 is 0->1.
    EXPECT_EQ(adj(r.graph, 1), (std::vector<g::vertex_id>{2}));
    EXPECT_EQ(adj(r.graph, 2), (std::vector<g::vertex_id>{0}));
    EXPECT_EQ(adj(r.graph, 0), (std::vector<g::vertex_id>{1}));
    ASSERT_EQ(r.report.notes.size(), 1u);
    EXPECT_NE(r.report.summary().find("renumbered"), std::string::npos);
}

TEST(GraphLoad, SnapDenseIdsKeptAndWeightedColumn) {
    const auto r = parse("0 1 5\n1 2 6\n2 0 7\n", g::graph_format::snap);
    EXPECT_FALSE(r.report.ids_remapped);
    EXPECT_TRUE(r.report.original_ids.empty());
    EXPECT_EQ(wts(r.graph, 2), (std::vector<g::weight_t>{7}));
}

TEST(GraphLoad, CleanUpOptionsAreCountedNeverSilent) {
    // Arcs: 0->1 twice (weights 9 and 4), 1->1 (loop), 1->2, 2->1.
    const std::string text = "0 1 9\n0 1 4\n1 1 1\n1 2 1\n2 1 1\n";
    const auto kept = parse(text, g::graph_format::snap);
    EXPECT_EQ(kept.graph.num_edges(), 5u);
    EXPECT_EQ(kept.report.build.self_loops, 1u);
    EXPECT_EQ(kept.report.build.self_loops_dropped, 0u);
    EXPECT_EQ(kept.report.build.duplicates, 1u);
    EXPECT_EQ(kept.report.build.duplicates_dropped, 0u);
    EXPECT_EQ(kept.report.build.unpaired_arcs, 2u);
    EXPECT_FALSE(kept.report.build.symmetric());

    g::load_options o;
    o.build = {true, true, true};
    const auto clean = parse(text, g::graph_format::snap, o);
    EXPECT_EQ(clean.report.build.self_loops_dropped, 1u);
    EXPECT_EQ(clean.report.build.duplicates_dropped, 1u);
    EXPECT_EQ(clean.report.build.reverse_arcs_added, 1u); // 1->0
    EXPECT_TRUE(clean.report.build.symmetric());
    EXPECT_EQ(clean.graph.num_edges(), 4u);
    EXPECT_EQ(wts(clean.graph, 0), (std::vector<g::weight_t>{4})); // the lightest duplicate stays
    EXPECT_EQ(adj(clean.graph, 1), (std::vector<g::vertex_id>{0, 2}));
    EXPECT_EQ(wts(clean.graph, 1), (std::vector<g::weight_t>{4, 1}));
    const std::string s = clean.report.summary();
    EXPECT_NE(s.find("1 self-loops (dropped)"), std::string::npos) << s;
    EXPECT_NE(s.find("1 duplicate arcs (dropped)"), std::string::npos) << s;
    EXPECT_NE(s.find("1 reverse arcs added"), std::string::npos) << s;
}

TEST(GraphLoad, FormatFromExtensionAndNames) {
    using f = g::graph_format;
    EXPECT_EQ(g::format_from_extension("a/b.mtx"), f::matrix_market);
    EXPECT_EQ(g::format_from_extension("b.MTX.gz"), f::matrix_market);
    EXPECT_EQ(g::format_from_extension("road.gr"), f::dimacs);
    EXPECT_EQ(g::format_from_extension("4elt.graph"), f::metis);
    EXPECT_EQ(g::format_from_extension("x.metis"), f::metis);
    EXPECT_EQ(g::format_from_extension("test.mgraph"), f::metis);
    EXPECT_EQ(g::format_from_extension("web.txt.gz"), f::snap);
    EXPECT_EQ(g::format_from_extension("a.el"), f::snap);
    EXPECT_EQ(g::format_from_extension("a.snap"), f::snap);
    EXPECT_EQ(g::format_from_extension("a.csv"), std::nullopt);
    EXPECT_EQ(g::format_from_extension("noext"), std::nullopt);
    for (f x : {f::matrix_market, f::dimacs, f::metis, f::snap}) {
        EXPECT_EQ(g::parse_format_name(g::format_name(x)), x);
    }
    EXPECT_EQ(g::parse_format_name("graphml"), std::nullopt);
}

TEST(GraphLoad, FilesByExtensionAndExplicitFormat) {
    scratch_dir dir;
    const auto p = dir.write("tiny.graph", "2 1\n2\n1\n");
    EXPECT_EQ(g::load_graph(p).graph.num_edges(), 2u);
    // The same METIS text under a .txt name needs the explicit format.
    const auto q = dir.write("tiny.txt", "2 1\n2\n1\n");
    g::load_options o;
    o.format = g::graph_format::metis;
    const auto r = g::load_graph(q, o);
    EXPECT_EQ(r.graph.num_edges(), 2u);
    EXPECT_EQ(r.report.file, q.string());
}

#if CANOPY_TEST_ZLIB
TEST(GraphLoad, GzipIsReadTransparently) {
    scratch_dir dir;
    const std::string text = "# gz\n0 1\n1 2\n";
    const auto p = dir.path() / "edges.txt.gz";
    gzFile f = gzopen(p.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
    const auto r = g::load_graph(p);
    EXPECT_EQ(r.graph.num_vertices(), 3u);
    EXPECT_EQ(r.graph.num_edges(), 2u);
    // A truncated .gz is an error, not a partial graph.
    const auto size = std::filesystem::file_size(p);
    std::filesystem::resize_file(p, size - 6);
    try {
        g::load_graph(p);
        ADD_FAILURE() << "a truncated .gz loaded";
    } catch (const g::load_error& e) {
        EXPECT_EQ(std::string(e.what()).rfind(p.string() + ":0: error: cannot read the file", 0), 0u)
            << e.what();
    }
}
#endif

// load_options::vertex_slack bounds the vertices a header may declare beyond 2 x its entries.
#define MM_HEAD_PATTERN "%%MatrixMarket matrix coordinate pattern general\n"
TEST(GraphLoad, VertexSlackBoundsIsolatedVertices) {
    g::load_options o;
    o.vertex_slack = 8;
    EXPECT_EQ(parse(MM_HEAD_PATTERN "10 10 1\n1 2\n", g::graph_format::matrix_market, o).graph.num_vertices(),
              10u);
    EXPECT_THROW(parse(MM_HEAD_PATTERN "11 11 1\n1 2\n", g::graph_format::matrix_market, o), g::load_error);
    EXPECT_EQ(parse("p sp 8 0\n", g::graph_format::dimacs, o).graph.num_vertices(), 8u);
    EXPECT_THROW(parse("p sp 9 0\n", g::graph_format::dimacs, o), g::load_error);
    // The default: 2^24 isolated vertices are fine (128 MiB of offsets), one more is not.
    EXPECT_EQ(parse("p sp 16777216 0\n", g::graph_format::dimacs).graph.num_vertices(), 16777216u);
    EXPECT_THROW(parse("p sp 16777217 0\n", g::graph_format::dimacs), g::load_error);
}

// ---- malformed input: one case per class; the message must be exactly FILE:LINE: error: ... ----------

struct bad_case {
    const char* name;
    g::graph_format format;
    const char* text;
    std::uint64_t line;
    const char* says; // a fragment of the reason
};

// gtest prints the case's name instead of its bytes.
void PrintTo(const bad_case& c, std::ostream* os) { *os << c.name; }

class GraphLoadMalformed : public ::testing::TestWithParam<bad_case> {};

TEST_P(GraphLoadMalformed, ReportsFileLineAndFix) {
    const bad_case& c = GetParam();
    try {
        (void)g::parse_graph(c.text, "bad.file", c.format);
        FAIL() << "accepted a malformed file (" << c.name << ")";
    } catch (const g::load_error& e) {
        const std::string prefix = "bad.file:" + std::to_string(c.line) + ": error: ";
        EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix) << e.what();
        EXPECT_EQ(std::string(e.what()), prefix + e.reason());
        EXPECT_EQ(e.line(), c.line);
        EXPECT_NE(e.reason().find(c.says), std::string::npos) << e.what();
    }
}

constexpr auto mtx = g::graph_format::matrix_market;
constexpr auto gr = g::graph_format::dimacs;
constexpr auto metis = g::graph_format::metis;
constexpr auto snap = g::graph_format::snap;
#define MM_HEAD "%%MatrixMarket matrix coordinate integer general\n"

INSTANTIATE_TEST_SUITE_P(
    Cases, GraphLoadMalformed,
    ::testing::Values(
        // Matrix Market
        bad_case{"mtx_empty", mtx, "", 1, "empty file"},
        bad_case{"mtx_no_banner", mtx, "3 3 1\n1 2\n", 1, "not a Matrix Market banner"},
        bad_case{"mtx_short_banner", mtx, "%%MatrixMarket matrix coordinate\n", 1, "the banner has 3 fields"},
        bad_case{"mtx_array", mtx, "%%MatrixMarket matrix array real general\n", 1, "'coordinate'"},
        bad_case{"mtx_complex", mtx, "%%MatrixMarket matrix coordinate complex general\n", 1,
                 "field 'complex'"},
        bad_case{"mtx_hermitian", mtx, "%%MatrixMarket matrix coordinate real hermitian\n", 1, "symmetry"},
        bad_case{"mtx_no_size", mtx, MM_HEAD "% only comments\n", 2, "before the size line"},
        bad_case{"mtx_size_fields", mtx, MM_HEAD "3 3\n", 2, "size line has 2 fields"},
        bad_case{"mtx_not_square", mtx, MM_HEAD "3 4 1\n1 2 1\n", 2, "square"},
        bad_case{"mtx_size_nonnumeric", mtx, MM_HEAD "3 x 1\n", 2, "column count 'x' is not an integer"},
        bad_case{"mtx_id_zero", mtx, MM_HEAD "3 3 1\n0 2 1\n", 3, "out of range 1..3"},
        bad_case{"mtx_id_high", mtx, MM_HEAD "3 3 2\n1 2 1\n4 2 1\n", 4, "vertex id 4 is out of range 1..3"},
        bad_case{"mtx_entry_fields", mtx, MM_HEAD "3 3 1\n1 2\n", 3, "has 3 fields"},
        bad_case{"mtx_nonnumeric", mtx, MM_HEAD "3 3 1\n1 two 1\n", 3, "vertex id 'two' is not an integer"},
        bad_case{"mtx_negative_weight", mtx, MM_HEAD "3 3 1\n1 2 -5\n", 3, "negative edge weight '-5'"},
        bad_case{"mtx_oversized_weight", mtx, MM_HEAD "3 3 1\n1 2 4294967296\n", 3, "does not fit 32 bits"},
        bad_case{"mtx_huge_token", mtx, MM_HEAD "3 3 1\n1 2 99999999999999999999999\n", 3, "too large"},
        bad_case{"mtx_fractional", mtx, "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 2.5\n", 3,
                 "not an integer weight"},
        bad_case{"mtx_real_garbage", mtx, "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan1\n",
                 3, "not a number"},
        bad_case{"mtx_truncated", mtx, MM_HEAD "3 3 3\n1 2 1\n2 3 1\n", 4, "ends after 2 entries"},
        bad_case{"mtx_extra", mtx, MM_HEAD "3 3 1\n1 2 1\n2 3 1\n", 4, "more entries than the 1"},
        bad_case{"mtx_too_many_vertices", mtx, MM_HEAD "4294967296 4294967296 0\n", 2, "32-bit vertex ids"},
        // Found by fuzzing (tests/fuzz/regressions/graph): a tiny header must not allocate gigabytes.
        bad_case{"mtx_vertices_without_entries", mtx, MM_HEAD "4294967295 4294967295 0\n", 2,
                 "more than load_options::vertex_slack (16777216)"},
        // DIMACS .gr
        bad_case{"gr_no_p", gr, "c nothing\n", 1, "no problem line"},
        bad_case{"gr_arc_first", gr, "a 1 2 3\np sp 2 1\n", 1, "before the problem line"},
        bad_case{"gr_bad_p", gr, "p max 2 1\n", 1, "'p sp <vertices> <arcs>'"},
        bad_case{"gr_two_p", gr, "p sp 2 1\np sp 2 1\n", 2, "a second problem line"},
        bad_case{"gr_arc_fields", gr, "p sp 2 1\na 1 2\n", 2, "has 3 fields"},
        bad_case{"gr_id_range", gr, "p sp 2 1\na 1 3 4\n", 2, "vertex id 3 is out of range 1..2"},
        bad_case{"gr_nonnumeric_weight", gr, "p sp 2 1\na 1 2 x\n", 2, "edge weight 'x' is not an integer"},
        bad_case{"gr_negative_weight", gr, "p sp 2 1\na 1 2 -1\n", 2, "negative edge weight"},
        bad_case{"gr_oversized_weight", gr, "p sp 2 1\na 1 2 5000000000\n", 2, "does not fit 32 bits"},
        bad_case{"gr_unknown_line", gr, "p sp 2 1\ne 1 2\n", 2, "unknown line type 'e'"},
        bad_case{"gr_truncated", gr, "p sp 2 2\na 1 2 1\n", 2, "ends after 1 arc but"},
        bad_case{"gr_extra", gr, "p sp 2 1\na 1 2 1\na 2 1 1\n", 3, "more arcs than the 1"},
        bad_case{"gr_vertices_without_arcs", gr, "c\np sp 4294967295 3\n", 2,
                 "4294967295 vertices but only 3 arcs, so at least 4294967289 vertices would have no edge"},
        // METIS
        bad_case{"metis_empty", metis, "% only a comment\n", 1, "no header"},
        bad_case{"metis_header_fields", metis, "5\n", 1, "the header has 1 field"},
        bad_case{"metis_header_nonnumeric", metis, "five 2\n", 1, "vertex count 'five' is not an integer"},
        bad_case{"metis_bad_fmt", metis, "2 1 2\n2\n1\n", 1, "fmt '2' is not a METIS fmt"},
        bad_case{"metis_ncon_without_vwgt", metis, "2 1 001 2\n2 1\n1 1\n", 1,
                 "needs fmt's vertex-weight digit"},
        bad_case{"metis_id_range", metis, "2 1\n3\n1\n", 2, "vertex id 3 is out of range 1..2"},
        bad_case{"metis_id_zero", metis, "2 1\n0\n1\n", 2, "vertex id 0 is out of range 1..2"},
        bad_case{"metis_nonnumeric", metis, "2 1\n2x\n1\n", 2, "vertex id '2x' is not an integer"},
        bad_case{"metis_missing_edge_weight", metis, "2 1 001\n2 5\n1\n", 3, "without its edge weight"},
        bad_case{"metis_negative_edge_weight", metis, "2 1 001\n2 -5\n1 5\n", 2, "negative edge weight"},
        bad_case{"metis_short_vertex_line", metis, "2 1 011 3\n1 1\n1 1 1 1 5\n", 2, "size/weight fields"},
        bad_case{"metis_truncated", metis, "3 2\n2\n1 3\n", 3, "ends after 2 vertex lines"},
        bad_case{"metis_extra_lines", metis, "2 1\n2\n1\n1\n", 4, "more vertex lines than the 2"},
        bad_case{"metis_edge_count", metis, "3 3\n2\n1 3\n2\n", 1, "should hold 6 entries"},
        bad_case{"metis_too_many_vertices", metis, "5000000000 1\n", 1, "32-bit vertex ids"},
        bad_case{"metis_edge_count_wraps", metis, "1 9223372036854775808\n\n", 1,
                 "edge count '9223372036854775808' is too large"},
        // SNAP
        bad_case{"snap_one_field", snap, "# c\n1 2\n3\n", 3, "this one has 1 field"},
        bad_case{"snap_four_fields", snap, "1 2 3 4\n", 1, "this one has 4 fields"},
        bad_case{"snap_mixed_columns", snap, "1 2\n2 3 5\n", 2, "but line 1 has 2"},
        bad_case{"snap_nonnumeric", snap, "1 2\na 3\n", 2, "vertex id 'a' is not an integer"},
        bad_case{"snap_negative_id", snap, "1 -2\n", 1, "negative vertex id '-2'"},
        bad_case{"snap_oversized_weight", snap, "1 2 4294967296\n", 1, "does not fit 32 bits"},
        bad_case{"snap_huge_id", snap, "1 18446744073709551616\n", 1, "too large"}),
    [](const ::testing::TestParamInfo<bad_case>& i) { return std::string(i.param.name); });

TEST(GraphLoadFile, MissingFileDirectoryAndUnknownExtension) {
    scratch_dir dir;
    const auto missing = dir.path() / "nope.mtx";
    try {
        g::load_graph(missing);
        FAIL() << "a missing file loaded";
    } catch (const g::load_error& e) {
        EXPECT_EQ(std::string(e.what()), missing.string() +
                                             ":0: error: cannot open the file: it does not exist; "
                                             "check the path");
    }
    std::filesystem::create_directories(dir.path() / "d.graph");
    EXPECT_THROW(g::load_graph(dir.path() / "d.graph"), g::load_error);
    const auto odd = dir.write("edges.csv", "1,2\n");
    try {
        g::load_graph(odd);
        FAIL() << "an unknown extension loaded";
    } catch (const g::load_error& e) {
        EXPECT_EQ(std::string(e.what()).rfind(odd.string() + ":0: error: cannot tell the format", 0), 0u)
            << e.what();
    }
    // A truncated file on disk names the file's own path and the last line.
    const auto cut = dir.write("cut.graph", "3 2\n2\n1 3\n");
    try {
        g::load_graph(cut);
        FAIL() << "a truncated file loaded";
    } catch (const g::load_error& e) {
        EXPECT_EQ(
            std::string(e.what()).rfind(cut.string() + ":3: error: the file ends after 2 vertex lines", 0),
            0u)
            << e.what();
    }
}

// ---- Debian's meshes (libmetis-doc) -------------------------------------------------------------------

struct mesh {
    const char* file;
    std::uint64_t vertices, edges;
};

void PrintTo(const mesh& m, std::ostream* os) { *os << m.file; }

class GraphLoadDebian : public ::testing::TestWithParam<mesh> {};

TEST_P(GraphLoadDebian, CountsMatchTheHeader) {
    const mesh& m = GetParam();
    const auto path = canopy_test_graph::metis_graphs_dir / m.file;
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is absent: install Debian's libmetis-doc (tools/deps.sh)";
    }
    const auto r = g::load_graph(path);
    EXPECT_EQ(r.report.format, g::graph_format::metis);
    EXPECT_EQ(r.report.header_vertices, m.vertices);
    EXPECT_EQ(r.report.header_edges, m.edges);
    EXPECT_EQ(r.graph.num_vertices(), m.vertices);
    EXPECT_EQ(r.graph.num_edges(), 2 * m.edges); // both arcs of every undirected edge
    EXPECT_TRUE(r.report.build.symmetric()) << r.report.summary();
    EXPECT_EQ(r.report.build.self_loops, 0u);
    EXPECT_EQ(r.report.build.duplicates, 0u);
    EXPECT_FALSE(r.graph.has_weights());
}

TEST(GraphLoadDebianMulti, TestMgraphHasTwoVertexWeights) {
    // METIS' multi-constraint example: header "766 1314 010 2" (two vertex weights per line, no edge
    // weights).
    const auto path = canopy_test_graph::metis_graphs_dir / "test.mgraph";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is absent: install Debian's libmetis-doc (tools/deps.sh)";
    }
    const auto r = g::load_graph(path);
    EXPECT_EQ(r.graph.num_vertices(), 766u);
    EXPECT_EQ(r.graph.num_edges(), 2u * 1314u);
    EXPECT_TRUE(r.report.build.symmetric());
    ASSERT_EQ(r.report.notes.size(), 1u);
    EXPECT_EQ(r.report.notes[0], "2 vertex weights per vertex (fmt x1x) read and not used");
}

INSTANTIATE_TEST_SUITE_P(Meshes, GraphLoadDebian,
                         ::testing::Values(mesh{"4elt.graph", 7434, 43031},
                                           mesh{"copter2.graph", 55476, 352238},
                                           mesh{"mdual.graph", 258569, 513132}),
                         [](const ::testing::TestParamInfo<mesh>& i) {
                             std::string s = i.param.file;
                             return s.substr(0, s.find('.'));
                         });

} // namespace
