// canopy/workloads/graph/load.hpp — reading graph files: Matrix Market, DIMACS shortest-path (.gr),
// METIS (.graph) and SNAP edge lists. docs/graph.md lists every format's quirks.
//
// A malformed file throws load_error, whose what() is exactly "FILE:LINE: error: <what, and the fix>"
// (line 0 when the problem is the file as a whole: it cannot be opened, its format is unknown); no
// partial graph is ever returned. Files ending in .gz are decompressed transparently when canopy was
// built with zlib. Host-only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/edge_list.hpp"

namespace canopy::workloads::graph {

enum class graph_format { matrix_market, dimacs, metis, snap };

/// "mtx", "gr", "metis", "snap": the names the CLI's --format takes.
const char* format_name(graph_format f);
/// Parses a --format name; std::nullopt for anything else.
std::optional<graph_format> parse_format_name(std::string_view name);
/// By extension, ignoring case and a trailing ".gz": .mtx; .gr; .graph, .mgraph or .metis; .txt, .el, .snap
/// or .edges. std::nullopt when the extension says nothing.
std::optional<graph_format> format_from_extension(const std::filesystem::path& file);

/// A malformed or unreadable graph file.
class load_error : public std::runtime_error {
  public:
    load_error(std::string file, std::uint64_t line, const std::string& what);
    const std::string& file() const { return file_; }
    std::uint64_t line() const { return line_; }
    /// The message without the "FILE:LINE: error: " prefix.
    const std::string& reason() const { return reason_; }

  private:
    std::string file_;
    std::uint64_t line_;
    std::string reason_;
};

struct load_options {
    /// std::nullopt: from the extension (format_from_extension), else an error naming the choices.
    std::optional<graph_format> format;
    /// Check only that the file's weights are numbers (any sign or fraction), then drop them: for files
    /// whose weights are not 32-bit non-negative integers (Matrix Market `real`, negative weights), or to
    /// use the hash weight rule (weights.hpp) instead.
    bool ignore_weights = false;
    /// A Matrix Market or DIMACS header may declare at most 2 x (its entries) + vertex_slack vertices
    /// (at most that many vertices no entry names). Every vertex costs the CSR 8 bytes before any edge is
    /// read, so without a bound a 30-byte file declaring 4294967295 vertices and no entries would make the
    /// loader allocate 32 GiB; with it a tiny file allocates at most 128 MiB. Raise it for a file that
    /// really has more isolated vertices (docs/graph.md). METIS and SNAP need no bound: a METIS file has a
    /// line per vertex, and SNAP's vertices are the ids its edges name.
    std::uint64_t vertex_slack = std::uint64_t{1} << 24;
    build_options build;
};

struct load_report {
    std::string file;
    graph_format format = graph_format::snap;
    std::uint64_t lines = 0;           // lines read
    std::uint64_t header_vertices = 0; // as the header states (SNAP: distinct ids)
    std::uint64_t header_edges = 0;    // as the header states (METIS: undirected edges; SNAP: lines)
    bool file_weighted = false;        // the file carries edge weights (kept unless ignore_weights)
    bool file_symmetric = false;       // Matrix Market `symmetric`: one triangle stored, both arcs made
    /// SNAP ids that were not exactly 0..n-1 are renumbered 0..n-1 in ascending order of the original
    /// id; original_ids[new id] is the file's id (empty when the ids were kept).
    bool ids_remapped = false;
    std::vector<std::uint64_t> original_ids;
    /// Things read and not used (METIS vertex sizes and weights, ...), one sentence each.
    std::vector<std::string> notes;
    build_report build;
    /// Several lines: file, format, counts, every clean-up step and note.
    std::string summary() const;
};

struct loaded_graph {
    csr_graph graph;
    load_report report;
};

/// Reads `file` (throws load_error).
loaded_graph load_graph(const std::filesystem::path& file, const load_options& options = {});

/// Parses `text` as if it were the contents of a file named `name` (name is used in messages only).
loaded_graph parse_graph(std::string_view text, std::string_view name, graph_format format,
                         const load_options& options = {});

/// The edge list a file describes, before build_csr (report.build is empty): for tools that want the
/// file's edges themselves. Throws load_error.
edge_list parse_edge_list(std::string_view text, std::string_view name, graph_format format,
                          const load_options& options, load_report& report);

} // namespace canopy::workloads::graph
