// Graph file loaders. Every parser reads the whole file into memory first (the Debian meshes are a few
// MB; a streaming parser would not be simpler to make exact about line numbers), then walks it line by
// line; every rejection names the line and says how to fix the file.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#if CANOPY_GRAPH_HAVE_ZLIB
#    include <zlib.h>
#endif

#include "canopy/workloads/graph/load.hpp"

namespace canopy::workloads::graph {

load_error::load_error(std::string file, std::uint64_t line, const std::string& what)
    : std::runtime_error(file + ":" + std::to_string(line) + ": error: " + what), file_(std::move(file)),
      line_(line), reason_(what) {}

const char* format_name(graph_format f) {
    switch (f) {
    case graph_format::matrix_market: return "mtx";
    case graph_format::dimacs: return "gr";
    case graph_format::metis: return "metis";
    case graph_format::snap: return "snap";
    }
    return "?";
}

std::optional<graph_format> parse_format_name(std::string_view name) {
    if (name == "mtx") {
        return graph_format::matrix_market;
    }
    if (name == "gr") {
        return graph_format::dimacs;
    }
    if (name == "metis") {
        return graph_format::metis;
    }
    if (name == "snap") {
        return graph_format::snap;
    }
    return std::nullopt;
}

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool ends_with_gz(const std::filesystem::path& p) { return lower(p.extension().string()) == ".gz"; }

} // namespace

std::optional<graph_format> format_from_extension(const std::filesystem::path& file) {
    std::filesystem::path p = file;
    if (ends_with_gz(p)) {
        p = p.stem();
    }
    const std::string ext = lower(p.extension().string());
    if (ext == ".mtx") {
        return graph_format::matrix_market;
    }
    if (ext == ".gr") {
        return graph_format::dimacs;
    }
    if (ext == ".graph" || ext == ".mgraph" || ext == ".metis") {
        return graph_format::metis;
    }
    if (ext == ".txt" || ext == ".el" || ext == ".snap" || ext == ".edges") {
        return graph_format::snap;
    }
    return std::nullopt;
}

namespace {

// The text being parsed, with the number of the line last returned (1-based).
class source {
  public:
    source(std::string_view text, std::string_view name) : text_(text), name_(name) {}

    // The next line without its terminator ("\n"; a "\r" before it stays and tokenizes as space). A
    // last line without a newline is still a line (4elt.graph ends that way).
    bool next_line(std::string_view& out) {
        if (pos_ >= text_.size()) {
            return false;
        }
        const std::size_t nl = text_.find('\n', pos_);
        const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
        out = text_.substr(pos_, end - pos_);
        pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
        ++line_;
        return true;
    }
    std::uint64_t line() const { return line_; }
    // Bytes not yet read: a bound on what the rest of the file can hold.
    std::size_t remaining() const { return text_.size() - pos_; }
    // Where a missing line would have been: after the last one (line 1 in an empty file).
    std::uint64_t eof_line() const { return std::max<std::uint64_t>(line_, 1); }
    const std::string& name() const { return name_; }

    [[noreturn]] void fail(const std::string& what) const { throw load_error(name_, line_, what); }
    [[noreturn]] void fail_at(std::uint64_t line, const std::string& what) const {
        throw load_error(name_, line, what);
    }

  private:
    std::string_view text_;
    std::string name_;
    std::size_t pos_ = 0;
    std::uint64_t line_ = 0;
};

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void split(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) {
            ++i;
        }
        const std::size_t b = i;
        while (i < line.size() && !is_space(line[i])) {
            ++i;
        }
        if (i > b) {
            out.push_back(line.substr(b, i - b));
        }
    }
}

bool blank(std::string_view line) {
    return std::all_of(line.begin(), line.end(), [](char c) { return is_space(c); });
}

// The first non-space character, or 0.
char first_char(std::string_view line) {
    for (char c : line) {
        if (!is_space(c)) {
            return c;
        }
    }
    return 0;
}

// The next line that is neither a comment ('%' first, as both formats write them) nor blank; false at
// the end of the file.
bool next_content_line(source& s, std::string_view& line) {
    while (s.next_line(line)) {
        if (first_char(line) != '%' && !blank(line)) {
            return true;
        }
    }
    return false;
}

std::string quote_token(std::string_view tok) {
    std::string s(tok.substr(0, 40));
    if (tok.size() > 40) {
        s += "...";
    }
    return "'" + s + "'";
}

// A non-negative integer token; `what` names it in messages ("vertex id", "edge weight", ...).
std::uint64_t parse_uint(const source& s, std::string_view tok, const std::string& what) {
    std::uint64_t v = 0;
    std::string_view digits = tok;
    if (!digits.empty() && digits.front() == '+') {
        digits.remove_prefix(1);
    }
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && p == digits.data() + digits.size() && !digits.empty()) {
        return v;
    }
    if (ec == std::errc::result_out_of_range) {
        s.fail(what + " " + quote_token(tok) + " is too large (more than 64 bits); fix the value");
    }
    if (tok.size() > 1 && tok.front() == '-') {
        std::int64_t neg = 0;
        const auto [q, ec2] = std::from_chars(tok.data(), tok.data() + tok.size(), neg);
        if ((ec2 == std::errc() && q == tok.data() + tok.size()) || ec2 == std::errc::result_out_of_range) {
            s.fail("negative " + what + " " + quote_token(tok) + "; a " + what +
                   " is a non-negative integer");
        }
    }
    s.fail(what + " " + quote_token(tok) + " is not an integer; fix the token");
}

weight_t check_weight(const source& s, std::uint64_t w, std::string_view tok) {
    if (w > 0xffffffffull) {
        s.fail("edge weight " + quote_token(tok) +
               " does not fit 32 bits (at most 4294967295); rescale the weights or "
               "load with ignore_weights to use the hash weight rule");
    }
    return static_cast<weight_t>(w);
}

weight_t parse_weight(const source& s, std::string_view tok) {
    return check_weight(s, parse_uint(s, tok, "edge weight"), tok);
}

// A Matrix Market `real` value as a weight: accepted when it is a non-negative integer in 32 bits.
weight_t parse_real_weight(const source& s, std::string_view tok) {
    double d = 0;
    const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if (ec != std::errc() || p != tok.data() + tok.size()) {
        if (ec == std::errc::result_out_of_range) {
            s.fail("real value " + quote_token(tok) + " is out of range; fix the value");
        }
        s.fail("real value " + quote_token(tok) + " is not a number; fix the token");
    }
    if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > 4294967295.0) {
        s.fail("real value " + quote_token(tok) +
               " is not an integer weight in 0..4294967295 (canopy's weights are "
               "32-bit integers); load with ignore_weights to use the hash weight rule instead");
    }
    return static_cast<weight_t>(d);
}

// With ignore_weights a weight only has to be a number (any sign, any fraction): it is dropped anyway.
void check_number(const source& s, std::string_view tok) {
    double d = 0;
    const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if ((ec != std::errc() && ec != std::errc::result_out_of_range) || p != tok.data() + tok.size()) {
        s.fail("edge weight " + quote_token(tok) + " is not a number; fix the token");
    }
}

// An edge weight token: checked as a number and dropped (ignore_weights), or a 32-bit weight.
weight_t read_weight(const source& s, std::string_view tok, const load_options& o, bool real = false) {
    if (o.ignore_weights) {
        check_number(s, tok);
        return 1;
    }
    return real ? parse_real_weight(s, tok) : parse_weight(s, tok);
}

// A 1-based vertex id in 1..n, returned 0-based.
vertex_id parse_vertex_1(const source& s, std::string_view tok, std::uint64_t n, const std::string& hint) {
    const std::uint64_t v = parse_uint(s, tok, "vertex id");
    if (v < 1 || v > n) {
        s.fail("vertex id " + std::string(tok) + " is out of range 1.." + std::to_string(n) + " (" + hint +
               "); fix the id or the vertex count");
    }
    return static_cast<vertex_id>(v - 1);
}

std::uint64_t parse_vertex_count(const source& s, std::string_view tok) {
    const std::uint64_t n = parse_uint(s, tok, "vertex count");
    if (n > max_vertices) {
        s.fail("vertex count " + std::string(tok) +
               " exceeds canopy's 32-bit vertex ids (at most 4294967295)");
    }
    return n;
}

// How many entries to reserve for the `declared` ones a header announces: never more than the rest of
// the file can hold (every entry takes at least two bytes: a digit and a separator), so that a tiny
// file declaring 2^32 entries cannot make the loader allocate gigabytes before it finds them missing.
std::size_t reserve_for(const source& s, std::uint64_t declared) {
    return static_cast<std::size_t>(std::min<std::uint64_t>(declared, s.remaining() / 2 + 1));
}

// load_options::vertex_slack: a header's vertex count n against its entry count (2 endpoints each).
void check_vertex_slack(const source& s, std::uint64_t n, std::uint64_t entries, const load_options& o,
                        const char* entries_word) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t named = entries > max / 2 ? max : 2 * entries;
    const std::uint64_t allowed = named > max - o.vertex_slack ? max : named + o.vertex_slack;
    if (n > allowed) {
        s.fail("the header declares " + std::to_string(n) + " vertices but only " + std::to_string(entries) +
               " " + entries_word + ", so at least " + std::to_string(n - std::min(n, named)) +
               " vertices would have no edge; more than load_options::vertex_slack (" +
               std::to_string(o.vertex_slack) +
               ") are refused before the CSR allocates them: fix the count, or raise vertex_slack " +
               "if the graph really has that many isolated vertices");
    }
}

std::string plural(std::uint64_t n, const char* word, const char* words = nullptr) {
    if (n == 1) {
        return "1 " + std::string(word);
    }
    return std::to_string(n) + " " + (words != nullptr ? std::string(words) : std::string(word) + "s");
}

// ---- Matrix Market ------------------------------------------------------------------------------------

edge_list parse_mtx(source& s, const load_options& o, load_report& r) {
    constexpr const char* banner =
        "'%%MatrixMarket matrix coordinate pattern|integer|real general|symmetric'";
    std::string_view line;
    std::vector<std::string_view> t;
    if (!s.next_line(line)) {
        s.fail_at(1, std::string("empty file; a Matrix Market file starts with ") + banner);
    }
    split(line, t);
    if (t.empty() || lower(std::string(t[0])) != "%%matrixmarket") {
        s.fail(std::string("the first line is not a Matrix Market banner; it must read ") + banner);
    }
    if (t.size() != 5) {
        s.fail("the banner has " + std::to_string(t.size()) + " fields; it must read " + banner);
    }
    const std::string object = lower(std::string(t[1])), layout = lower(std::string(t[2])),
                      field = lower(std::string(t[3])), symmetry = lower(std::string(t[4]));
    if (object != "matrix") {
        s.fail("object " + quote_token(t[1]) + " is not supported; a graph is a 'matrix'");
    }
    if (layout != "coordinate") {
        s.fail("format " + quote_token(t[2]) + " is not supported; graphs are sparse 'coordinate' matrices");
    }
    if (field != "pattern" && field != "integer" && field != "real") {
        s.fail("field " + quote_token(t[3]) + " is not supported; use pattern, integer or real");
    }
    if (symmetry != "general" && symmetry != "symmetric") {
        s.fail("symmetry " + quote_token(t[4]) + " is not supported; use general or symmetric");
    }
    r.file_weighted = field != "pattern";
    r.file_symmetric = symmetry == "symmetric";
    // The size line: the first line after the comments.
    if (!next_content_line(s, line)) {
        s.fail_at(s.eof_line(), "the file ends before the size line 'rows columns entries'; add it");
    }
    const std::uint64_t size_line = s.line();
    split(line, t);
    if (t.size() != 3) {
        s.fail("the size line has " + plural(t.size(), "field") + "; it must be 'rows columns entries'");
    }
    const std::uint64_t rows = parse_uint(s, t[0], "row count");
    const std::uint64_t cols = parse_uint(s, t[1], "column count");
    const std::uint64_t nnz = parse_uint(s, t[2], "entry count");
    if (rows != cols) {
        s.fail("the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
               "; an adjacency matrix is square: fix the size line");
    }
    const std::uint64_t n = parse_vertex_count(s, t[0]);
    check_vertex_slack(s, n, nnz, o, "entries");
    r.header_vertices = n;
    r.header_edges = nnz;
    edge_list list;
    list.num_vertices = n;
    list.undirected = r.file_symmetric;
    list.weighted = r.file_weighted && !o.ignore_weights;
    list.edges.reserve(reserve_for(s, nnz));
    const std::size_t want = field == "pattern" ? 2 : 3;
    std::uint64_t seen = 0;
    while (s.next_line(line)) {
        if (first_char(line) == '%' || blank(line)) {
            continue;
        }
        split(line, t);
        if (seen == nnz) {
            s.fail("more entries than the " + std::to_string(nnz) + " the size line (line " +
                   std::to_string(size_line) + ") declares; fix the count or remove the extra lines");
        }
        if (t.size() != want) {
            s.fail("an entry of a '" + field + "' matrix has " + std::to_string(want) +
                   " fields ('row column" + (want == 3 ? " value'" : "'") + "), this line has " +
                   std::to_string(t.size()));
        }
        edge e;
        e.u = parse_vertex_1(s, t[0], n, "Matrix Market indices are 1-based");
        e.v = parse_vertex_1(s, t[1], n, "Matrix Market indices are 1-based");
        if (want == 3) {
            e.w = read_weight(s, t[2], o, field == "real");
        }
        list.edges.push_back(e);
        ++seen;
    }
    if (seen != nnz) {
        s.fail_at(s.eof_line(), "the file ends after " + plural(seen, "entry", "entries") +
                                    " but the size line (line " + std::to_string(size_line) + ") declares " +
                                    std::to_string(nnz) + "; the file is truncated or the count is wrong");
    }
    return list;
}

// ---- DIMACS shortest path (.gr) ----------------------------------------------------------------------

edge_list parse_dimacs(source& s, const load_options& o, load_report& r) {
    std::string_view line;
    std::vector<std::string_view> t;
    edge_list list;
    list.weighted = !o.ignore_weights;
    r.file_weighted = true;
    bool have_p = false;
    std::uint64_t p_line = 0, n = 0, m = 0, seen = 0;
    while (s.next_line(line)) {
        const char c = first_char(line);
        if (c == 0 || c == 'c') {
            continue;
        }
        split(line, t);
        if (t[0] == "p") {
            if (have_p) {
                s.fail("a second problem line (the first is line " + std::to_string(p_line) +
                       "); a .gr file has exactly one 'p sp n m'");
            }
            if (t.size() != 4 || t[1] != "sp") {
                s.fail("the problem line must be 'p sp <vertices> <arcs>'");
            }
            n = parse_vertex_count(s, t[2]);
            m = parse_uint(s, t[3], "arc count");
            check_vertex_slack(s, n, m, o, "arcs");
            have_p = true;
            p_line = s.line();
            list.num_vertices = n;
            list.edges.reserve(reserve_for(s, m));
            r.header_vertices = n;
            r.header_edges = m;
        } else if (t[0] == "a") {
            if (!have_p) {
                s.fail("an arc before the problem line; put 'p sp <vertices> <arcs>' first");
            }
            if (t.size() != 4) {
                s.fail("an arc line must be 'a <from> <to> <weight>', this one has " +
                       plural(t.size(), "field"));
            }
            if (seen == m) {
                s.fail("more arcs than the " + std::to_string(m) + " the problem line (line " +
                       std::to_string(p_line) + ") declares; fix the count or remove the extra arcs");
            }
            edge e;
            e.u = parse_vertex_1(s, t[1], n, "DIMACS ids are 1-based");
            e.v = parse_vertex_1(s, t[2], n, "DIMACS ids are 1-based");
            e.w = read_weight(s, t[3], o);
            list.edges.push_back(e);
            ++seen;
        } else {
            s.fail("unknown line type " + quote_token(t[0]) + "; a .gr line starts with c (comment), p or a");
        }
    }
    if (!have_p) {
        s.fail_at(s.eof_line(), "no problem line; a .gr file needs 'p sp <vertices> <arcs>' before its arcs");
    }
    if (seen != m) {
        s.fail_at(s.eof_line(), "the file ends after " + plural(seen, "arc") +
                                    " but the problem line (line " + std::to_string(p_line) + ") declares " +
                                    std::to_string(m) + "; the file is truncated or the count is wrong");
    }
    return list;
}

// ---- METIS (.graph) ----------------------------------------------------------------------------------

edge_list parse_metis(source& s, const load_options& o, load_report& r) {
    std::string_view line;
    std::vector<std::string_view> t;
    if (!next_content_line(s, line)) {
        s.fail_at(s.eof_line(), "no header; a METIS graph starts with '<vertices> <edges> [fmt [ncon]]'");
    }
    const std::uint64_t header_line = s.line();
    split(line, t);
    if (t.size() < 2 || t.size() > 4) {
        s.fail("the header has " + plural(t.size(), "field") +
               "; it must be '<vertices> <edges> [fmt [ncon]]'");
    }
    const std::uint64_t n = parse_vertex_count(s, t[0]);
    const std::uint64_t m = parse_uint(s, t[1], "edge count");
    // The lists hold 2m entries (both ends of every edge): a larger m would wrap 2m around, and a file
    // with no edges at all would then match it.
    if (m > std::numeric_limits<std::uint64_t>::max() / 2) {
        s.fail("edge count " + quote_token(t[1]) +
               " is too large (the lists would hold twice as many entries); fix the count");
    }
    bool has_size = false, has_vwgt = false, has_ewgt = false;
    std::uint64_t ncon = 0;
    if (t.size() >= 3) {
        const std::string_view fmt = t[2];
        if (fmt.size() > 3 ||
            !std::all_of(fmt.begin(), fmt.end(), [](char c) { return c == '0' || c == '1'; })) {
            s.fail("fmt " + quote_token(fmt) +
                   " is not a METIS fmt; it is up to three 0/1 digits (vertex sizes, "
                   "vertex weights, edge weights), e.g. 001 or 011");
        }
        const std::string f = std::string(3 - fmt.size(), '0') + std::string(fmt);
        has_size = f[0] == '1';
        has_vwgt = f[1] == '1';
        has_ewgt = f[2] == '1';
        ncon = has_vwgt ? 1 : 0;
    }
    if (t.size() == 4) {
        ncon = parse_uint(s, t[3], "ncon");
        if (!has_vwgt || ncon == 0) {
            s.fail("ncon " + quote_token(t[3]) +
                   " needs fmt's vertex-weight digit set (e.g. 010) and ncon >= 1");
        }
    }
    r.header_vertices = n;
    r.header_edges = m;
    r.file_weighted = has_ewgt;
    if (has_size) {
        r.notes.push_back("vertex sizes (fmt 1xx) read and not used");
    }
    if (has_vwgt) {
        r.notes.push_back(plural(ncon, "vertex weight") + " per vertex (fmt x1x) read and not used");
    }
    edge_list list;
    list.num_vertices = n;
    list.weighted = has_ewgt && !o.ignore_weights;
    list.edges.reserve(reserve_for(s, 2 * m));
    const std::size_t skip = (has_size ? 1 : 0) + ncon;
    std::uint64_t v = 0;
    // In METIS an empty line is a vertex without neighbours, so only comment lines are skipped.
    while (v < n && s.next_line(line)) {
        if (first_char(line) == '%') {
            continue;
        }
        split(line, t);
        if (t.size() < skip) {
            s.fail("vertex " + std::to_string(v + 1) + "'s line has " + plural(t.size(), "field") +
                   " but fmt/ncon put " + std::to_string(skip) +
                   " size/weight fields first; fix the line or the header");
        }
        for (std::size_t i = 0; i < skip; ++i) {
            parse_uint(s, t[i], i == 0 && has_size ? "vertex size" : "vertex weight");
        }
        const std::size_t rest = t.size() - skip;
        if (has_ewgt && rest % 2 != 0) {
            s.fail("vertex " + std::to_string(v + 1) + " lists a neighbour without its edge weight; fmt " +
                   "xx1 wants 'neighbour weight' pairs");
        }
        for (std::size_t i = skip; i < t.size(); i += has_ewgt ? 2 : 1) {
            edge e;
            e.u = static_cast<vertex_id>(v);
            e.v = parse_vertex_1(s, t[i], n, "METIS ids are 1-based");
            if (has_ewgt) {
                e.w = read_weight(s, t[i + 1], o);
            }
            list.edges.push_back(e);
        }
        ++v;
    }
    if (v < n) {
        s.fail_at(s.eof_line(), "the file ends after " + plural(v, "vertex line") + " but the header (line " +
                                    std::to_string(header_line) + ") declares " + std::to_string(n) +
                                    " vertices; the file is truncated or the count is wrong");
    }
    while (s.next_line(line)) {
        if (first_char(line) != '%' && !blank(line)) {
            s.fail("more vertex lines than the " + std::to_string(n) + " the header (line " +
                   std::to_string(header_line) + ") declares; fix the count or remove the extra lines");
        }
    }
    if (list.edges.size() != 2 * m) {
        s.fail_at(header_line, "the header declares " + std::to_string(m) +
                                   " edges, so the adjacency lists " + "should hold " +
                                   std::to_string(2 * m) + " entries (METIS lists every " +
                                   "edge at both ends), but they hold " + std::to_string(list.edges.size()) +
                                   "; fix the edge count or the lists");
    }
    return list;
}

// ---- SNAP edge list -----------------------------------------------------------------------------------

edge_list parse_snap(source& s, const load_options& o, load_report& r) {
    struct raw {
        std::uint64_t u, v;
        weight_t w;
    };
    std::string_view line;
    std::vector<std::string_view> t;
    std::vector<raw> edges;
    std::size_t columns = 0;
    std::uint64_t first_data_line = 0;
    while (s.next_line(line)) {
        const char c = first_char(line);
        if (c == 0 || c == '#' || c == '%') {
            continue;
        }
        split(line, t);
        if (t.size() != 2 && t.size() != 3) {
            s.fail("an edge line is 'source target' or 'source target weight'; this one has " +
                   plural(t.size(), "field"));
        }
        if (columns == 0) {
            columns = t.size();
            first_data_line = s.line();
        } else if (t.size() != columns) {
            s.fail("this line has " + plural(t.size(), "field") + " but line " +
                   std::to_string(first_data_line) + " has " + std::to_string(columns) +
                   "; every edge line must have the same columns");
        }
        raw e{parse_uint(s, t[0], "vertex id"), parse_uint(s, t[1], "vertex id"), 1};
        if (columns == 3) {
            e.w = read_weight(s, t[2], o);
        }
        edges.push_back(e);
    }
    r.file_weighted = columns == 3;
    std::vector<std::uint64_t> ids;
    ids.reserve(2 * edges.size());
    for (const raw& e : edges) {
        ids.push_back(e.u);
        ids.push_back(e.v);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (ids.size() > max_vertices) {
        s.fail_at(s.eof_line(), "the file names " + std::to_string(ids.size()) +
                                    " distinct vertices; canopy's 32-bit ids hold at most 4294967295");
    }
    edge_list list;
    list.num_vertices = ids.size();
    list.weighted = columns == 3 && !o.ignore_weights;
    list.edges.reserve(edges.size());
    // Ids exactly 0..n-1 are kept; anything else (1-based, gaps, huge ids) is renumbered densely in
    // ascending order, and the report keeps the map back.
    const bool dense = ids.empty() || ids.back() == ids.size() - 1;
    if (!dense) {
        r.ids_remapped = true;
        r.original_ids = ids;
        r.notes.push_back("vertex ids renumbered 0.." + std::to_string(ids.size() - 1) +
                          " (the file's ids run " + std::to_string(ids.front()) + ".." +
                          std::to_string(ids.back()) + " with " +
                          std::to_string(ids.back() - ids.front() + 1 - ids.size()) + " unused)");
    }
    auto map = [&](std::uint64_t id) {
        return static_cast<vertex_id>(dense ? id
                                            : std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    for (const raw& e : edges) {
        list.edges.push_back({map(e.u), map(e.v), e.w});
    }
    r.header_vertices = ids.size();
    r.header_edges = edges.size();
    return list;
}

std::string read_file(const std::filesystem::path& file) {
    const std::string name = file.string();
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
        throw load_error(name, 0, "cannot open the file: it does not exist; check the path");
    }
    if (std::filesystem::is_directory(file, ec)) {
        throw load_error(name, 0, "is a directory; name a graph file");
    }
    std::string text;
#if CANOPY_GRAPH_HAVE_ZLIB
    // gzread passes files that are not gzip through unchanged, so one path reads both.
    gzFile f = gzopen(name.c_str(), "rb");
    if (f == nullptr) {
        throw load_error(name, 0,
                         std::string("cannot open the file (") + std::strerror(errno) +
                             "); check the path and permissions");
    }
    gzbuffer(f, 1 << 20);
    std::vector<char> buf(1 << 20);
    for (;;) {
        const int got = gzread(f, buf.data(), static_cast<unsigned>(buf.size()));
        if (got < 0) {
            int err = 0;
            const std::string msg = gzerror(f, &err);
            gzclose(f);
            throw load_error(name, 0, "cannot read the file (" + msg + "); is the .gz file complete?");
        }
        if (got == 0) {
            break;
        }
        text.append(buf.data(), static_cast<std::size_t>(got));
    }
    int err = 0;
    const std::string msg = gzerror(f, &err);
    gzclose(f);
    if (err != Z_OK && err != Z_STREAM_END) {
        throw load_error(name, 0, "cannot read the file (" + msg + "); is the .gz file complete?");
    }
#else
    if (ends_with_gz(file)) {
        throw load_error(name, 0,
                         "a .gz file, and this canopy was built without zlib; gunzip the file first");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        throw load_error(name, 0,
                         std::string("cannot open the file (") + std::strerror(errno) +
                             "); check the path and permissions");
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
#endif
    return text;
}

} // namespace

edge_list parse_edge_list(std::string_view text, std::string_view name, graph_format format,
                          const load_options& options, load_report& report) {
    source s(text, name);
    report.file = std::string(name);
    report.format = format;
    edge_list list;
    switch (format) {
    case graph_format::matrix_market: list = parse_mtx(s, options, report); break;
    case graph_format::dimacs: list = parse_dimacs(s, options, report); break;
    case graph_format::metis: list = parse_metis(s, options, report); break;
    case graph_format::snap: list = parse_snap(s, options, report); break;
    }
    report.lines = s.line();
    if (report.file_weighted && options.ignore_weights) {
        report.notes.push_back("the file's edge weights were read and dropped (ignore_weights)");
    }
    return list;
}

loaded_graph parse_graph(std::string_view text, std::string_view name, graph_format format,
                         const load_options& options) {
    load_report report;
    const edge_list list = parse_edge_list(text, name, format, options, report);
    built_graph built = build_csr(list, options.build);
    report.build = built.report;
    return {std::move(built.graph), std::move(report)};
}

loaded_graph load_graph(const std::filesystem::path& file, const load_options& options) {
    std::optional<graph_format> format = options.format;
    if (!format) {
        format = format_from_extension(file);
        if (!format) {
            throw load_error(
                file.string(), 0,
                "cannot tell the format from the extension " + quote_token(file.extension().string()) +
                    "; name it (mtx, gr, metis or snap) or use .mtx, .gr, .graph, .txt/.el/.snap");
        }
    }
    const std::string text = read_file(file);
    return parse_graph(text, file.string(), *format, options);
}

std::string load_report::summary() const {
    std::string s =
        file + ": " + format_name(format) + ", " + plural(lines, "line") +
        "; header: " + std::to_string(header_vertices) + " vertices, " + std::to_string(header_edges) +
        (format == graph_format::metis ? " undirected edges" : " entries") +
        (file_weighted ? ", weighted" : ", unweighted") + (file_symmetric ? ", symmetric" : "") + "\n";
    s += "graph: " + build.summary();
    for (const std::string& n : notes) {
        s += "\nnote: " + n;
    }
    return s;
}

} // namespace canopy::workloads::graph
