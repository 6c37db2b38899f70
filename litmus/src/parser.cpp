// litmus/src/parser.cpp — herd's OpenCL litmus dialect into canopy::litmus::test (see parser.hpp).
//
// Structure: the header line and the free lines after it are scanned character by character (they are
// line-oriented and not C); from the initial-state block on, the text is tokenised (with line/column)
// and parsed by recursive descent. Recursion depth and tree sizes are bounded so that no input can
// exhaust the stack, here or in the destructors of the trees built.
#include "canopy/litmus/parser.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

namespace canopy::litmus {

namespace {

std::string located(const std::string& file, unsigned line, unsigned column, std::string_view kind,
                    const std::string& message) {
    return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + std::string(kind) +
           ": " + message;
}

} // namespace

parse_error::parse_error(std::string file_, unsigned line_, unsigned column_, std::string message_)
    : std::runtime_error(located(file_, line_, column_, "error", message_)), file(std::move(file_)),
      line(line_), column(column_), message(std::move(message_)) {}

unsupported_error::unsupported_error(std::string file_, unsigned line_, unsigned column_,
                                     std::string construct_)
    : std::runtime_error(located(file_, line_, column_, "unsupported", construct_)), file(std::move(file_)),
      line(line_), column(column_), construct(std::move(construct_)) {}

namespace {

constexpr unsigned max_nesting = 64;   // parentheses, blocks, unary chains, scopeTree parentheses
constexpr unsigned max_nodes = 1024;   // nodes of one expression / of the condition (bounds destructor depth)
constexpr unsigned max_threads = 4096; // PN with N below this

// ------------------------------------------------------------------------------------------- lexer

enum class tk { ident, number, punct, end, bad };

struct token {
    tk kind = tk::end;
    std::string text;         // identifier, punctuator or number as written; bad: the error message
    std::uint64_t number = 0; // number: its value (when !overflow)
    bool overflow = false;
    position pos, end;         // first character; one past the last
    bool space_before = false; // whitespace or a comment precedes it
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
unsigned hex_value(char c) {
    if (is_digit(c))
        return static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f')
        return static_cast<unsigned>(c - 'a' + 10);
    return static_cast<unsigned>(c - 'A' + 10);
}

std::string show_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return std::string("'") + c + "'";
    static constexpr char digits[] = "0123456789abcdef";
    return std::string("'\\x") + digits[u >> 4] + digits[u & 15] + "'";
}

class cursor {
  public:
    explicit cursor(std::string_view s) : s_(s) {}
    bool done() const { return i_ >= s_.size(); }
    char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
    void advance() {
        if (done())
            return;
        if (s_[i_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++i_;
    }
    position here() const { return {line_, col_}; }

  private:
    std::string_view s_;
    std::size_t i_ = 0;
    unsigned line_ = 1, col_ = 1;
};

struct trivia {
    bool skipped = false;
    bool ok = true; // false: an unterminated block comment starts at bad
    position bad;
};

trivia skip_trivia(cursor& c) {
    trivia r;
    while (!c.done()) {
        const char ch = c.peek();
        if (is_space(ch)) {
            c.advance();
            r.skipped = true;
        } else if (ch == '/' && c.peek(1) == '/') {
            while (!c.done() && c.peek() != '\n')
                c.advance();
            r.skipped = true;
        } else if (ch == '/' && c.peek(1) == '*') {
            const position start = c.here();
            c.advance();
            c.advance();
            bool closed = false;
            while (!c.done()) {
                if (c.peek() == '*' && c.peek(1) == '/') {
                    c.advance();
                    c.advance();
                    closed = true;
                    break;
                }
                c.advance();
            }
            if (!closed) {
                r.ok = false;
                r.bad = start;
                return r;
            }
            r.skipped = true;
        } else {
            break;
        }
    }
    return r;
}

constexpr std::string_view two_char_puncts[] = {
    "==", "!=", "<=", ">=", "&&", "||", "/\\", "\\/", "->", "++", "--",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=",  "^=",  "<<", ">>", "=>"};
constexpr std::string_view one_char_puncts = "(){}[];,:*=<>+-!~&|^/%.?";

std::vector<token> tokenize(cursor& c) {
    std::vector<token> out;
    for (;;) {
        const trivia tr = skip_trivia(c);
        token t;
        t.space_before = tr.skipped;
        if (!tr.ok) {
            t.kind = tk::bad;
            t.text = "unterminated comment '/*'";
            t.pos = t.end = tr.bad;
            out.push_back(std::move(t));
            return out;
        }
        t.pos = c.here();
        if (c.done()) {
            t.kind = tk::end;
            t.end = t.pos;
            out.push_back(std::move(t));
            return out;
        }
        const char ch = c.peek();
        if (is_alpha(ch)) {
            t.kind = tk::ident;
            while (!c.done() && is_alnum(c.peek())) {
                t.text += c.peek();
                c.advance();
            }
        } else if (is_digit(ch)) {
            t.kind = tk::number;
            unsigned base = 10;
            if (ch == '0' && (c.peek(1) == 'x' || c.peek(1) == 'X') && is_hex(c.peek(2))) {
                base = 16;
                t.text += c.peek();
                c.advance();
                t.text += c.peek();
                c.advance();
            }
            while (!c.done() && (base == 16 ? is_hex(c.peek()) : is_digit(c.peek()))) {
                const unsigned d = hex_value(c.peek());
                if (t.number > (std::numeric_limits<std::uint64_t>::max() - d) / base)
                    t.overflow = true;
                else
                    t.number = t.number * base + d;
                t.text += c.peek();
                c.advance();
            }
            if (!c.done() && is_alnum(c.peek())) {
                while (!c.done() && is_alnum(c.peek())) {
                    t.text += c.peek();
                    c.advance();
                }
                t.kind = tk::bad;
                t.text = "invalid number '" + t.text + "'";
            }
        } else {
            bool two = false;
            for (const std::string_view p : two_char_puncts) {
                if (ch == p[0] && c.peek(1) == p[1]) {
                    t.kind = tk::punct;
                    t.text = std::string(p);
                    c.advance();
                    c.advance();
                    two = true;
                    break;
                }
            }
            if (!two) {
                if (one_char_puncts.find(ch) != std::string_view::npos) {
                    t.kind = tk::punct;
                    t.text = std::string(1, ch);
                } else {
                    t.kind = tk::bad;
                    t.text = "unexpected character " + show_char(ch);
                }
                c.advance();
            }
        }
        t.end = c.here();
        const bool stop = t.kind == tk::bad;
        out.push_back(std::move(t));
        if (stop)
            return out;
    }
}

// --------------------------------------------------------------------------------------- vocabulary

const std::set<std::string_view>& keywords() {
    static const std::set<std::string_view> k = {"if",
                                                 "else",
                                                 "while",
                                                 "for",
                                                 "do",
                                                 "switch",
                                                 "case",
                                                 "default",
                                                 "return",
                                                 "goto",
                                                 "break",
                                                 "continue",
                                                 "int",
                                                 "atomic_int",
                                                 "global",
                                                 "__global",
                                                 "local",
                                                 "__local",
                                                 "private",
                                                 "__private",
                                                 "constant",
                                                 "__constant",
                                                 "volatile",
                                                 "const",
                                                 "restrict",
                                                 "unsigned",
                                                 "signed",
                                                 "long",
                                                 "short",
                                                 "char",
                                                 "float",
                                                 "double",
                                                 "void",
                                                 "bool",
                                                 "_Bool",
                                                 "_Atomic",
                                                 "struct",
                                                 "union",
                                                 "enum",
                                                 "typedef",
                                                 "sizeof",
                                                 "static",
                                                 "extern",
                                                 "auto",
                                                 "register",
                                                 "scopeTree",
                                                 "ScopeTree",
                                                 "exists",
                                                 "forall",
                                                 "fence",
                                                 "barrier",
                                                 "NULL",
                                                 "true",
                                                 "false",
                                                 "atomic_work_item_fence",
                                                 "work_group_barrier"};
    return k;
}

// Type words that may start a declaration we do not support (registers are int).
const std::set<std::string_view>& other_type_words() {
    static const std::set<std::string_view> k = {
        "unsigned", "signed",    "long",     "short",      "char",      "float", "double",
        "void",     "bool",      "_Bool",    "_Atomic",    "uint",      "ulong", "size_t",
        "const",    "volatile",  "static",   "register",   "struct",    "union", "enum",
        "typedef",  "extern",    "auto",     "global",     "__global",  "local", "__local",
        "private",  "__private", "constant", "__constant", "atomic_int"};
    return k;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

const std::map<std::string_view, order>& order_names() {
    static const std::map<std::string_view, order> m = {{"memory_order_relaxed", order::relaxed},
                                                        {"mo_rlx", order::relaxed},
                                                        {"memory_order_acquire", order::acquire},
                                                        {"mo_acq", order::acquire},
                                                        {"memory_order_consume", order::acquire},
                                                        {"memory_order_release", order::release},
                                                        {"mo_rel", order::release},
                                                        {"memory_order_acq_rel", order::acq_rel},
                                                        {"mo_ar", order::acq_rel},
                                                        {"memory_order_seq_cst", order::seq_cst},
                                                        {"mo_sc", order::seq_cst}};
    return m;
}

const std::map<std::string_view, scope>& scope_names() {
    static const std::map<std::string_view, scope> m = {
        {"memory_scope_work_item", scope::work_item},
        {"s_wi", scope::work_item},
        {"memory_scope_sub_group", scope::sub_group},
        {"s_sg", scope::sub_group},
        {"memory_scope_work_group", scope::work_group},
        {"s_wg", scope::work_group},
        {"memory_scope_device", scope::device},
        {"s_dev", scope::device},
        {"memory_scope_all_svm_devices", scope::all_svm_devices},
        {"memory_scope_all_devices", scope::all_svm_devices},
        {"s_all", scope::all_svm_devices}};
    return m;
}

bool is_reserved(std::string_view s) {
    return keywords().count(s) != 0 || order_names().count(s) != 0 || scope_names().count(s) != 0 ||
           starts_with(s, "memory_order_") || starts_with(s, "memory_scope_") || starts_with(s, "CLK_");
}

bool is_fence_name(std::string_view s) { return s == "fence" || s == "atomic_work_item_fence"; }
bool is_barrier_name(std::string_view s) { return s == "barrier" || s == "work_group_barrier"; }

bool is_proc(const token& t) {
    if (t.kind != tk::ident || t.text.size() < 2 || t.text[0] != 'P')
        return false;
    return std::all_of(t.text.begin() + 1, t.text.end(), is_digit);
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = static_cast<char>(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}

std::string where(position p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

std::string describe(const token& t) {
    switch (t.kind) {
    case tk::end: return "end of file";
    case tk::bad: return t.text;
    default: return "'" + t.text + "'";
    }
}

// -------------------------------------------------------------------------------------------- parser

class parser {
  public:
    parser(std::string_view text, std::string file, std::vector<std::string>* warnings)
        : text_(text), file_(std::move(file)), warnings_(warnings) {}

    test run() {
        test_.file = file_;
        cursor c(text_);
        parse_header(c);
        skip_free_lines(c);
        toks_ = tokenize(c);
        parse_init();
        parse_threads();
        bool has_tree = false;
        if (ident_is(0, "scopeTree") || ident_is(0, "ScopeTree")) {
            parse_scope_tree();
            has_tree = true;
        }
        parse_condition(has_tree);
        accept(";");
        if (ident_is(0, "with") || ident_is(0, "locations") || ident_is(0, "filter"))
            unsupported(peek().pos, "'" + peek().text + "' clause after the final condition");
        if (peek().kind != tk::end)
            fail_at(peek(), "unexpected " + describe(peek()) + " after the final condition");
        return std::move(test_);
    }

  private:
    // ---------------------------------------------------------------------------------- diagnostics
    [[noreturn]] void fail(position p, const std::string& message) const {
        throw parse_error(file_, p.line, p.column, message);
    }
    [[noreturn]] void unsupported(position p, const std::string& what) const {
        throw unsupported_error(file_, p.line, p.column, what);
    }
    // At a token: a lexical error there wins over the parser's message.
    [[noreturn]] void fail_at(const token& t, const std::string& message) const {
        if (t.kind == tk::bad)
            fail(t.pos, t.text);
        fail(t.pos, message);
    }
    [[noreturn, gnu::noinline]] void fail_literal(position p, const char* message) const { fail(p, message); }
    [[noreturn, gnu::noinline]] void too_deep(position at) const {
        fail(at, "nesting too deep (more than " + std::to_string(max_nesting) + " levels)");
    }
    void warn(position p, const std::string& message) const {
        if (warnings_ != nullptr)
            warnings_->push_back(located(file_, p.line, p.column, "warning", message));
    }

    // RAII depth counter for every recursive production.
    class nest {
      public:
        nest(const parser& p, position at) : depth_(p.depth_) {
            if (++depth_ > max_nesting) {
                --depth_; // the destructor of a half-constructed guard does not run
                p.too_deep(at);
            }
        }
        ~nest() { --depth_; }
        nest(const nest&) = delete;
        nest& operator=(const nest&) = delete;

      private:
        unsigned& depth_;
    };

    // ------------------------------------------------------------------------------------- tokens
    const token& peek(std::size_t k = 0) const { return toks_[std::min(at_ + k, toks_.size() - 1)]; }
    const token& take() {
        const token& t = toks_[std::min(at_, toks_.size() - 1)];
        if (at_ + 1 < toks_.size())
            ++at_;
        return t;
    }
    const token& previous() const { return toks_[at_ == 0 ? 0 : at_ - 1]; }
    bool punct(std::size_t k, std::string_view p) const {
        const token& t = peek(k);
        return t.kind == tk::punct && t.text == p;
    }
    bool ident(std::size_t k) const { return peek(k).kind == tk::ident; }
    bool ident_is(std::size_t k, std::string_view s) const {
        const token& t = peek(k);
        return t.kind == tk::ident && t.text == s;
    }
    bool accept(std::string_view p) {
        if (!punct(0, p))
            return false;
        take();
        return true;
    }
    // Messages are built only on failure (`context` is a const char* or a callable returning a string), so
    // that the recursive productions keep small stack frames.
    static std::string text_of(const char* context) { return context; }
    template <typename F> static std::string text_of(const F& context) { return context(); }
    template <typename Context> const token& expect(std::string_view p, const Context& context) {
        if (punct(0, p))
            return take();
        fail_expected(p, text_of(context));
    }
    [[noreturn]] void fail_expected(std::string_view p, const std::string& context) const {
        fail_at(peek(), "expected '" + std::string(p) + "' " + context + ", found " + describe(peek()));
    }
    // A missing ';' is reported just after the previous token, where it belongs.
    template <typename Context> void expect_semi(const Context& context) {
        if (accept(";"))
            return;
        fail_semi(text_of(context));
    }
    [[noreturn]] void fail_semi(const std::string& context) const {
        if (peek().kind == tk::bad)
            fail(peek().pos, peek().text);
        fail(previous().end, "expected ';' " + context + ", found " + describe(peek()));
    }
    std::string pname() const { return "P" + std::to_string(cur().id); }

    // ------------------------------------------------------------------------------------- header
    void parse_header(cursor& c) {
        const trivia tr = skip_trivia(c);
        if (!tr.ok)
            fail(tr.bad, "unterminated comment '/*'");
        if (c.done())
            fail(c.here(), "empty input: expected the header line 'OpenCL NAME'");
        const position p = c.here();
        if (!is_alpha(c.peek()))
            fail(p, "expected the header line 'OpenCL NAME'");
        std::string arch;
        while (!c.done() && is_alnum(c.peek())) {
            arch += c.peek();
            c.advance();
        }
        if (arch != "OpenCL") {
            static const std::set<std::string_view> archs = {
                "C",     "CPP",  "X86", "X86_64",  "AArch64", "ARM",  "PPC", "MIPS",
                "RISCV", "LISA", "PTX", "GPU_PTX", "Bell",    "Java", "BPF", "ASL"};
            if (archs.count(arch) != 0)
                unsupported(p, "litmus architecture '" + arch + "' (only OpenCL tests are supported)");
            fail(p, "expected the header line 'OpenCL NAME', found '" + arch + "'");
        }
        while (!c.done() && (c.peek() == ' ' || c.peek() == '\t' || c.peek() == '\r'))
            c.advance();
        const position np = c.here();
        std::string name;
        while (!c.done() && !is_space(c.peek())) {
            name += c.peek();
            c.advance();
        }
        if (name.empty() || starts_with(name, "//") || starts_with(name, "/*"))
            fail(np, "missing test name after 'OpenCL'");
        test_.name = std::move(name);
        while (!c.done() && c.peek() != '\n')
            c.advance(); // the rest of the header line is ignored
    }

    // Between the header and '{': a quoted doc string, key=value lines, comments. Skipped.
    void skip_free_lines(cursor& c) {
        for (;;) {
            while (!c.done() && is_space(c.peek()))
                c.advance();
            if (c.done())
                fail(c.here(), "expected the initial state block '{'");
            const char ch = c.peek();
            if (ch == '{')
                return;
            if (ch == '/' && (c.peek(1) == '/' || c.peek(1) == '*')) {
                const trivia tr = skip_trivia(c);
                if (!tr.ok)
                    fail(tr.bad, "unterminated comment '/*'");
                continue;
            }
            if (ch == '"') {
                const position p = c.here();
                c.advance();
                while (!c.done() && c.peek() != '"')
                    c.advance();
                if (c.done())
                    fail(p, "unterminated string");
                c.advance();
                continue;
            }
            if (ch == 'P' && is_digit(c.peek(1))) {
                std::size_t k = 1;
                while (is_digit(c.peek(k)))
                    ++k;
                while (c.peek(k) == ' ' || c.peek(k) == '\t')
                    ++k;
                if (c.peek(k) == '(')
                    fail(c.here(), "expected the initial state block '{' before the threads");
            }
            while (!c.done() && c.peek() != '\n')
                c.advance();
        }
    }

    // ------------------------------------------------------------------------------ initial state
    void parse_init() {
        const token& open = expect("{", "to open the initial state");
        const position open_pos = open.pos;
        for (;;) {
            if (accept("}"))
                return;
            if (accept(";"))
                continue;
            const token& t = peek();
            if (t.kind == tk::end)
                fail(t.pos, "expected '}' to close the initial state block opened at " + where(open_pos) +
                                ", found end of file");
            if (is_proc(t) && punct(1, "("))
                fail(t.pos, "expected '}' to close the initial state block opened at " + where(open_pos) +
                                " before thread " + t.text);
            parse_init_entry();
            if (accept(";") || punct(0, "}"))
                continue;
            if (peek().kind == tk::bad)
                fail(peek().pos, peek().text);
            fail(previous().end,
                 "expected ';' or '}' after an entry of the initial state, found " + describe(peek()));
        }
    }

    void parse_init_entry() {
        const token& first = peek();
        if ((first.kind == tk::number || is_proc(first)) && punct(1, ":"))
            unsupported(first.pos, "register initialisation in the initial state (" + first.text + ":...)");
        if (ident_is(0, "int") || ident_is(0, "atomic_int")) {
            if (ident(1) || punct(1, "["))
                take();
        } else if (ident(0) && other_type_words().count(first.text) != 0 &&
                   (ident(1) || punct(1, "[") || punct(1, "*"))) {
            unsupported(first.pos, "initial state entry of type '" + first.text + "'");
        }
        if (punct(0, "*"))
            unsupported(peek().pos, "pointer in the initial state");
        position p = peek().pos;
        std::string name;
        if (accept("[")) {
            const token& n = peek();
            if (n.kind != tk::ident || is_reserved(n.text))
                fail_at(n, "expected a location name after '[', found " + describe(n));
            take();
            name = n.text;
            p = n.pos;
            expect("]", [&] { return "after '[" + name; });
        } else {
            const token& n = peek();
            if (n.kind != tk::ident || is_reserved(n.text))
                fail_at(n, "expected an entry '[x]=value;' in the initial state, found " + describe(n));
            take();
            name = n.text;
            p = n.pos;
        }
        std::int64_t v = 0;
        if (accept("="))
            v = parse_int_value("the initial value of '" + name + "'");
        else if (punct(0, "["))
            unsupported(peek().pos, "array in the initial state");
        if (declared_init_.count(name) != 0)
            fail(p, "location '" + name + "' is initialised twice");
        declared_init_.insert(name);
        test_.init.emplace_back(name, v);
    }

    std::int64_t parse_int_value(const std::string& what) {
        bool neg = false;
        if (accept("-"))
            neg = true;
        else
            accept("+");
        const token& t = peek();
        if (t.kind == tk::ident || punct(0, "&"))
            unsupported(t.pos, "a location (address) as " + what);
        if (t.kind != tk::number)
            fail_at(t, "expected an integer as " + what + ", found " + describe(t));
        take();
        return to_int64(t, neg);
    }

    std::int64_t to_int64(const token& t, bool neg) const {
        constexpr std::uint64_t limit = std::uint64_t{1} << 63;
        if (t.overflow || t.number > limit || (!neg && t.number == limit))
            fail(t.pos, "integer " + std::string(neg ? "-" : "") + t.text + " out of range");
        if (!neg)
            return static_cast<std::int64_t>(t.number);
        if (t.number == limit)
            return std::numeric_limits<std::int64_t>::min();
        return -static_cast<std::int64_t>(t.number);
    }

    // ------------------------------------------------------------------------------------ threads
    unsigned proc_id(const token& t) const { // t is_proc
        const std::string digits = t.text.substr(1);
        if (digits.size() > 6 || std::stoul(digits) >= max_threads)
            fail(t.pos, "thread number " + t.text + " is too large");
        return static_cast<unsigned>(std::stoul(digits));
    }

    thread& cur() { return test_.threads[cur_]; }
    const thread& cur() const { return test_.threads[cur_]; }

    static bool has_param(const thread& th, std::string_view name) {
        return std::any_of(th.params.begin(), th.params.end(),
                           [&](const parameter& p) { return p.name == name; });
    }

    void parse_threads() {
        while (is_proc(peek()))
            parse_thread();
        if (test_.threads.empty()) {
            if (punct(0, "}"))
                fail(peek().pos, "unbalanced '}': no block is open here");
            fail_at(peek(), "expected a thread 'P0 (...) { ... }', found " + describe(peek()));
        }
        std::stable_sort(test_.threads.begin(), test_.threads.end(),
                         [](const thread& a, const thread& b) { return a.id < b.id; });
        const std::size_t n = test_.threads.size();
        for (std::size_t i = 0; i < n; ++i) {
            if (test_.threads[i].id != i)
                fail(test_.threads[i].pos, "threads must be numbered P0..P" + std::to_string(n - 1) +
                                               " without gaps: P" + std::to_string(i) + " is missing");
        }
        if (punct(0, "}"))
            fail(peek().pos, "unbalanced '}': no block is open here");
    }

    void parse_thread() {
        const token& pt = take();
        const unsigned id = proc_id(pt);
        for (const thread& th : test_.threads)
            if (th.id == id)
                fail(pt.pos, "duplicate thread " + pt.text + " (first defined at " + where(th.pos) + ")");
        test_.threads.emplace_back();
        cur_ = test_.threads.size() - 1;
        cur().id = id;
        cur().pos = pt.pos;
        expect("(", [&] { return "after " + pt.text; });
        parse_params();
        const token& open = peek();
        if (!punct(0, "{"))
            fail_at(open, "expected '{' to open the body of " + pt.text + ", found " + describe(open));
        take();
        scopes_.assign(1, {});
        open_braces_.assign(1, open.pos);
        while (!punct(0, "}"))
            cur().body.push_back(parse_statement());
        take();
        open_braces_.clear();
    }

    void parse_params() { // after '('
        if (accept(")"))
            return;
        if (ident_is(0, "void") && punct(1, ")")) {
            take();
            take();
            return;
        }
        for (;;) {
            parse_param();
            if (accept(","))
                continue;
            if (accept(")"))
                return;
            fail_at(peek(), "expected ',' or ')' in the parameter list of " + pname() + ", found " +
                                describe(peek()));
        }
    }

    void parse_param() {
        parameter prm;
        bool space_given = false;
        auto qualifiers = [&] {
            for (;;) {
                const token& q = peek();
                if (q.kind != tk::ident)
                    return;
                if (q.text == "global" || q.text == "__global" || q.text == "local" || q.text == "__local") {
                    const bool g = q.text == "global" || q.text == "__global";
                    if (space_given && prm.global != g)
                        fail(q.pos, "conflicting address spaces");
                    prm.global = g;
                    space_given = true;
                } else if (q.text == "private" || q.text == "__private" || q.text == "constant" ||
                           q.text == "__constant") {
                    unsupported(q.pos, "address space '" + q.text + "' for a parameter");
                } else if (q.text == "_Atomic") {
                    prm.atomic = true;
                } else if (q.text != "volatile" && q.text != "const" && q.text != "restrict") {
                    return;
                }
                take();
            }
        };
        qualifiers();
        const token& ty = peek();
        if (ty.kind == tk::ident && (ty.text == "int" || ty.text == "atomic_int")) {
            if (ty.text == "atomic_int")
                prm.atomic = true;
            take();
        } else if (ty.kind == tk::ident &&
                   (other_type_words().count(ty.text) != 0 || starts_with(ty.text, "atomic_"))) {
            unsupported(ty.pos, "parameter type '" + ty.text + "' (only int and atomic_int)");
        } else {
            fail_at(ty, "expected a parameter type (int or atomic_int), found " + describe(ty));
        }
        qualifiers();
        if (!punct(0, "*")) {
            if (ident(0))
                unsupported(peek().pos, "non-pointer parameter '" + peek().text + "'");
            fail_at(peek(), "expected '*' after the parameter type, found " + describe(peek()));
        }
        take();
        while (ident_is(0, "restrict") || ident_is(0, "const") || ident_is(0, "volatile"))
            take();
        if (punct(0, "*"))
            unsupported(peek().pos, "pointer-to-pointer parameter");
        const token& n = peek();
        if (n.kind != tk::ident || is_reserved(n.text))
            fail_at(n, "expected a parameter name, found " + describe(n));
        take();
        if (punct(0, "["))
            unsupported(peek().pos, "array parameter");
        if (has_param(cur(), n.text))
            fail(n.pos, "duplicate parameter '" + n.text + "'");
        prm.name = n.text;
        const auto [it, fresh] = space_of_.try_emplace(prm.name, prm.global, cur().id);
        if (!fresh && it->second.first != prm.global)
            fail(n.pos, "location '" + prm.name + "' is " + (prm.global ? "global" : "__local") +
                            " here but " + (it->second.first ? "global" : "__local") + " in P" +
                            std::to_string(it->second.second));
        if (std::none_of(test_.init.begin(), test_.init.end(),
                         [&](const auto& e) { return e.first == prm.name; }))
            test_.init.emplace_back(prm.name, 0);
        cur().params.push_back(std::move(prm));
    }

    // --------------------------------------------------------------------------------- registers
    bool visible(std::string_view name) const {
        for (const auto& s : scopes_)
            if (std::find(s.begin(), s.end(), name) != s.end())
                return true;
        return false;
    }
    void note_register(thread& th, const std::string& name) {
        if (std::find(th.registers.begin(), th.registers.end(), name) == th.registers.end())
            th.registers.push_back(name);
    }

    std::string resolve_location(const token& t) const {
        const thread& th = cur();
        if (has_param(th, t.text) || declared_init_.count(t.text) != 0)
            return t.text;
        const std::string pn = pname();
        if (visible(t.text))
            fail(t.pos, "'" + t.text + "' is a register, not a location (a pointer parameter of " + pn + ")");
        std::vector<std::string> near;
        auto consider = [&](const std::string& name) {
            if (iequals(name, t.text) && std::find(near.begin(), near.end(), name) == near.end())
                near.push_back(name);
        };
        for (const parameter& p : th.params)
            consider(p.name);
        for (const std::string& n : declared_init_)
            consider(n);
        if (near.size() == 1) {
            warn(t.pos, "'" + t.text + "' is neither a parameter of " + pn +
                            " nor a location of the initial state; reading it as '" + near[0] +
                            "', which differs only in letter case");
            return near[0];
        }
        fail(t.pos, "unknown location '" + t.text + "': not a pointer parameter of " + pn +
                        " nor a location of the initial state");
    }

    // -------------------------------------------------------------------------------- statements
    stmt_ptr make_stmt(stmt::kind k, position p) {
        auto s = std::make_unique<stmt>();
        s->k = k;
        s->pos = p;
        return s;
    }

    [[noreturn]] void fail_unclosed(const token& t) const {
        const position open = open_braces_.empty() ? position{} : open_braces_.back();
        const std::string what =
            open_braces_.size() <= 1 ? "the body of P" + std::to_string(cur().id) : "the block";
        fail(t.pos, "expected '}' to close " + what + " opened at " + where(open) + ", found " + describe(t));
    }

    stmt_ptr parse_statement() {
        const token& t = peek();
        const nest guard(*this, t.pos);
        expr_nodes_ = 0;
        if (t.kind == tk::end)
            fail_unclosed(t);
        if (t.kind == tk::bad)
            fail(t.pos, t.text);
        if (punct(0, "{"))
            return parse_block();
        if (punct(0, ";")) {
            take();
            return make_stmt(stmt::kind::block, t.pos);
        }
        if (punct(0, "}"))
            fail(t.pos, "expected a statement before '}'");
        if (punct(0, "*") && ident(1) && punct(2, "="))
            return parse_store();
        if (punct(0, "~") && ident_is(1, "exists"))
            fail_unclosed(t);
        if (punct(0, "++") || punct(0, "--"))
            unsupported(t.pos, "increment/decrement '" + t.text + "'");
        if (t.kind == tk::ident) {
            const std::string& w = t.text;
            if (is_proc(t) && punct(1, "("))
                fail_unclosed(t);
            if (w == "scopeTree" || w == "ScopeTree" || w == "exists" || w == "forall")
                fail_unclosed(t);
            if (punct(1, ":") && !is_reserved(w)) { // a label: ignored
                take();
                take();
                return parse_statement();
            }
            if (w == "if")
                return parse_if();
            if (w == "else")
                fail(t.pos, "'else' without a matching 'if'");
            if (w == "while" || w == "for" || w == "do")
                unsupported(t.pos, "'" + w + "' loop");
            if (w == "switch" || w == "case" || w == "default" || w == "return" || w == "goto" ||
                w == "break" || w == "continue")
                unsupported(t.pos, "'" + w + "' statement");
            if (w == "int")
                return parse_declaration();
            if (other_type_words().count(w) != 0)
                unsupported(t.pos, "declaration of type '" + w + "' (registers are int)");
            if (is_fence_name(w))
                return parse_fence();
            if (is_barrier_name(w))
                return parse_barrier();
            if (punct(1, "="))
                return parse_assign();
            const token& op = peek(1);
            if (op.kind == tk::punct &&
                (op.text == "+=" || op.text == "-=" || op.text == "*=" || op.text == "/=" ||
                 op.text == "%=" || op.text == "&=" || op.text == "|=" || op.text == "^=" ||
                 op.text == "++" || op.text == "--"))
                unsupported(op.pos, "compound assignment '" + op.text + "'");
            if (op.kind == tk::punct && op.text == "[")
                unsupported(op.pos, "array indexing");
        }
        expr_ptr e = parse_expr();
        expect_semi("after the expression");
        if (e->k != expr::kind::call)
            unsupported(t.pos, "expression statement that is not an atomic call");
        auto s = make_stmt(stmt::kind::eval, t.pos);
        s->value = std::move(e);
        return s;
    }

    stmt_ptr parse_block() {
        const token& open = take();
        auto s = make_stmt(stmt::kind::block, open.pos);
        scopes_.emplace_back();
        open_braces_.push_back(open.pos);
        while (!punct(0, "}"))
            s->body.push_back(parse_statement());
        take();
        open_braces_.pop_back();
        scopes_.pop_back();
        return s;
    }

    stmt_ptr parse_branch() {
        scopes_.emplace_back();
        stmt_ptr s = parse_statement();
        scopes_.pop_back();
        return s;
    }

    stmt_ptr parse_if() {
        const token& kw = take();
        auto s = make_stmt(stmt::kind::if_, kw.pos);
        const token& open = expect("(", "after 'if'");
        s->value = parse_expr();
        expect(")", [&] {
            return "to close the condition of the 'if' at " + where(kw.pos) + " (opened at " +
                   where(open.pos) + ")";
        });
        s->body.push_back(parse_branch());
        if (ident_is(0, "else")) {
            take();
            s->body.push_back(parse_branch());
        }
        return s;
    }

    stmt_ptr parse_declaration() {
        const token& kw = take(); // int
        if (punct(0, "*"))
            unsupported(peek().pos, "pointer variable");
        const token& n = peek();
        if (n.kind != tk::ident || is_reserved(n.text))
            fail_at(n, "expected a register name after 'int', found " + describe(n));
        take();
        if (has_param(cur(), n.text))
            fail(n.pos, "'" + n.text + "' is a pointer parameter of " + pname() +
                            "; it cannot be declared as a register");
        const auto& inner = scopes_.back();
        if (std::find(inner.begin(), inner.end(), n.text) != inner.end())
            fail(n.pos, "redeclaration of register '" + n.text + "'");
        if (visible(n.text))
            unsupported(n.pos, "declaration of '" + n.text + "' that shadows an outer one");
        if (punct(0, "["))
            unsupported(peek().pos, "array variable");
        auto s = make_stmt(stmt::kind::declare, kw.pos);
        s->name = n.text;
        if (accept("=")) {
            s->k = stmt::kind::assign;
            s->value = parse_expr();
        }
        if (punct(0, ","))
            unsupported(peek().pos, "several declarators in one declaration");
        expect_semi([&] { return "after the declaration of '" + n.text + "'"; });
        scopes_.back().push_back(n.text);
        note_register(cur(), n.text);
        return s;
    }

    stmt_ptr parse_assign() {
        const token& n = take();
        if (has_param(cur(), n.text))
            unsupported(n.pos, "assignment to the pointer parameter '" + n.text + "' (write *" + n.text +
                                   " = ... to store)");
        if (is_reserved(n.text))
            fail(n.pos, "cannot assign to '" + n.text + "'");
        take(); // '='
        auto s = make_stmt(stmt::kind::assign, n.pos);
        s->name = n.text;
        s->value = parse_expr();
        expect_semi([&] { return "after the assignment to '" + n.text + "'"; });
        if (!visible(n.text))
            scopes_.front().push_back(n.text); // herd: an undeclared register is thread-wide
        note_register(cur(), n.text);
        return s;
    }

    stmt_ptr parse_store() {
        const token& star = take();
        const token& n = take();
        auto s = make_stmt(stmt::kind::store_plain, star.pos);
        s->name = resolve_location(n);
        take(); // '='
        s->value = parse_expr();
        expect_semi([&] { return "after the store to '*" + n.text + "'"; });
        return s;
    }

    void parse_fence_flags(stmt& s) {
        s.global_fence = false;
        s.local_fence = false;
        for (;;) {
            const token& f = peek();
            if (ident_is(0, "CLK_GLOBAL_MEM_FENCE"))
                s.global_fence = true;
            else if (ident_is(0, "CLK_LOCAL_MEM_FENCE"))
                s.local_fence = true;
            else if (ident_is(0, "CLK_IMAGE_MEM_FENCE"))
                unsupported(f.pos, "fence flag CLK_IMAGE_MEM_FENCE");
            else if (f.kind == tk::ident && starts_with(f.text, "CLK_"))
                fail(f.pos, "unknown fence flag '" + f.text + "'");
            else
                fail_at(f, "expected fence flags (CLK_GLOBAL_MEM_FENCE and/or CLK_LOCAL_MEM_FENCE), found " +
                               describe(f));
            take();
            if (!accept("|"))
                return;
        }
    }

    template <typename What> order parse_order(const What& what) {
        const token& t = peek();
        if (t.kind == tk::ident) {
            const auto it = order_names().find(t.text);
            if (it != order_names().end()) {
                take();
                return it->second;
            }
            if (starts_with(t.text, "memory_order_"))
                fail(t.pos, "unknown memory order '" + t.text + "'");
        }
        fail_at(t,
                "expected a memory order (memory_order_...) as " + text_of(what) + ", found " + describe(t));
    }

    template <typename What> scope parse_scope(const What& what) {
        const token& t = peek();
        if (t.kind == tk::ident) {
            const auto it = scope_names().find(t.text);
            if (it != scope_names().end()) {
                take();
                return it->second;
            }
            if (starts_with(t.text, "memory_scope_"))
                fail(t.pos, "unknown memory scope '" + t.text + "'");
        }
        fail_at(t,
                "expected a memory scope (memory_scope_...) as " + text_of(what) + ", found " + describe(t));
    }

    stmt_ptr parse_fence() {
        const token& kw = take();
        auto s = make_stmt(stmt::kind::fence, kw.pos);
        const auto ctx = [&](const char* what) {
            return what + (" of " + kw.text) + " (flags, order, scope)";
        };
        expect("(", [&] { return "after " + kw.text; });
        parse_fence_flags(*s);
        expect(",", [&] { return ctx("and the memory order"); });
        s->fence_order = parse_order([&] { return ctx("the order"); });
        expect(",", [&] { return ctx("and the memory scope"); });
        s->fence_scope = parse_scope([&] { return ctx("the scope"); });
        expect(")", [&] { return ctx("to close the arguments"); });
        expect_semi([&] { return "after " + kw.text + "(...)"; });
        return s;
    }

    stmt_ptr parse_barrier() {
        const token& kw = take();
        auto s = make_stmt(stmt::kind::barrier, kw.pos);
        s->fence_scope = scope::work_group;
        expect("(", [&] { return "after " + kw.text; });
        parse_fence_flags(*s);
        if (accept(","))
            s->fence_scope = parse_scope([&] { return "the scope of " + kw.text; });
        expect(")", [&] { return "to close the arguments of " + kw.text + " (flags[, scope])"; });
        expect_semi([&] { return "after " + kw.text + "(...)"; });
        return s;
    }

    // ------------------------------------------------------------------------------- expressions
    expr_ptr make_expr(expr::kind k, position p) {
        if (++expr_nodes_ > max_nodes)
            fail_literal(p, "expression too large");
        auto e = std::make_unique<expr>();
        e->k = k;
        e->pos = p;
        return e;
    }
    expr_ptr make_binary(std::string op, expr_ptr l, expr_ptr r, position p) {
        auto e = make_expr(expr::kind::binary, p);
        e->op = std::move(op);
        e->lhs = std::move(l);
        e->rhs = std::move(r);
        return e;
    }

    // expr := unary (binop unary)*, by precedence climbing: || < && < == != < < <= > >= < + - < *, all
    // left-associative. The recursion for right operands is bounded by the number of levels.
    expr_ptr parse_expr() {
        const nest guard(*this, peek().pos); // atomic-call arguments and parentheses recurse through here
        expr_ptr e = parse_binary(1);
        if (peek().kind == tk::punct)
            check_after_expression();
        return e;
    }

    [[gnu::noinline]] void check_after_expression() const {
        const token& t = peek();
        static const std::set<std::string_view> ops = {"/",  "%",  "&",  "|",  "^",  "<<", ">>",
                                                       "?",  "+=", "-=", "*=", "/=", "%=", "&=",
                                                       "|=", "^=", "++", "--", "->", ".",  "~"};
        if (ops.count(t.text) != 0)
            unsupported(t.pos, "operator '" + t.text + "'");
        if (t.text == "=")
            unsupported(t.pos, "assignment inside an expression");
    }

    static int precedence(const token& t) {
        if (t.kind != tk::punct)
            return 0;
        const std::string& o = t.text;
        if (o == "||")
            return 1;
        if (o == "&&")
            return 2;
        if (o == "==" || o == "!=")
            return 3;
        if (o == "<" || o == "<=" || o == ">" || o == ">=")
            return 4;
        if (o == "+" || o == "-")
            return 5;
        if (o == "*")
            return 6;
        return 0;
    }

    expr_ptr parse_binary(int min_precedence) {
        expr_ptr l = parse_unary();
        for (;;) {
            const token& t = peek();
            const int p = precedence(t);
            if (p == 0 || p < min_precedence)
                return l;
            take();
            expr_ptr r = parse_binary(p + 1);
            l = make_binary(t.text, std::move(l), std::move(r), t.pos);
        }
    }

    expr_ptr parse_unary() {
        const token& t = peek();
        if (t.kind == tk::punct) {
            if (t.text == "!") {
                const nest guard(*this, t.pos);
                take();
                auto e = make_expr(expr::kind::unary_not, t.pos);
                e->op = "!";
                e->lhs = parse_unary();
                return e;
            }
            if (t.text == "-") {
                const nest guard(*this, t.pos);
                take();
                if (peek().kind == tk::number) { // a negative literal
                    const token& n = take();
                    auto e = make_expr(expr::kind::constant, t.pos);
                    e->value = to_int64(n, true);
                    return postfix(std::move(e));
                }
                expr_ptr operand = parse_unary();
                auto zero = make_expr(expr::kind::constant, t.pos);
                return make_binary("-", std::move(zero), std::move(operand), t.pos);
            }
            if (t.text == "+") {
                const nest guard(*this, t.pos);
                take();
                return parse_unary();
            }
            if (t.text == "*") {
                take();
                const token& n = peek();
                if (n.kind != tk::ident || is_reserved(n.text))
                    bad_deref(t);
                take();
                auto e = make_expr(expr::kind::deref, t.pos);
                e->name = resolve_location(n);
                return postfix(std::move(e));
            }
            if (t.text == "&" || t.text == "~" || t.text == "++" || t.text == "--")
                bad_unary(t);
        }
        return postfix(parse_primary());
    }

    [[noreturn, gnu::noinline]] void bad_deref(const token& star) const { // after '*'
        const token& n = peek();
        if (punct(0, "(") || punct(0, "*"))
            unsupported(star.pos, "pointer arithmetic or indirection in '*" + n.text + "...'");
        fail_at(n, "expected a location (pointer parameter) after '*', found " + describe(n));
    }

    [[noreturn, gnu::noinline]] void bad_unary(const token& t) const {
        if (t.text == "&")
            unsupported(t.pos, "address-of '&'");
        if (t.text == "~")
            unsupported(t.pos, "bitwise complement '~'");
        unsupported(t.pos, "increment/decrement '" + t.text + "'");
    }

    expr_ptr postfix(expr_ptr e) {
        if (peek().kind == tk::punct)
            check_postfix();
        return e;
    }
    [[gnu::noinline]] void check_postfix() const {
        const token& t = peek();
        if (punct(0, "["))
            unsupported(t.pos, "array indexing");
        if (punct(0, "++") || punct(0, "--"))
            unsupported(t.pos, "increment/decrement '" + t.text + "'");
        if (punct(0, ".") || punct(0, "->"))
            unsupported(t.pos, "member access '" + t.text + "'");
    }

    expr_ptr parse_primary() {
        const token& t = peek();
        if (t.kind == tk::number) {
            take();
            auto e = make_expr(expr::kind::constant, t.pos);
            e->value = to_int64(t, false);
            return e;
        }
        if (punct(0, "(")) {
            const nest guard(*this, t.pos);
            take();
            expr_ptr e = parse_expr();
            expect(")", [&] { return "to close the parenthesis opened at " + where(t.pos); });
            return e;
        }
        if (t.kind == tk::ident) {
            if (punct(1, "(")) {
                if (starts_with(t.text, "atomic_") && !is_fence_name(t.text))
                    return parse_atomic_call();
                bad_call(t);
            }
            if (visible(t.text)) {
                take();
                auto e = make_expr(expr::kind::reg, t.pos);
                e->name = t.text;
                return e;
            }
        }
        bad_primary(t);
    }

    [[noreturn, gnu::noinline]] void
    bad_call(const token& t) const { // t '(' where t is not an atomic operation
        if (is_fence_name(t.text) || is_barrier_name(t.text))
            fail(t.pos, "'" + t.text + "' is a statement and has no value");
        if (is_reserved(t.text))
            fail(t.pos, "unexpected '" + t.text + "' in an expression");
        unsupported(t.pos, "call to unknown function '" + t.text + "'");
    }

    [[noreturn, gnu::noinline]] void bad_primary(const token& t) const {
        if (t.kind == tk::ident) {
            if (has_param(cur(), t.text) || declared_init_.count(t.text) != 0)
                unsupported(t.pos, "the pointer '" + t.text + "' used as a value (read it with *" + t.text +
                                       " or an atomic load)");
            if (is_reserved(t.text))
                fail(t.pos, "unexpected '" + t.text + "' in an expression");
            fail(t.pos, "use of undeclared register '" + t.text + "' in " + pname());
        }
        fail_at(t, "expected an expression, found " + describe(t));
    }

    std::string parse_location_arg(const std::string& fn, const char* role) {
        const token& t = peek();
        if (t.kind != tk::ident)
            bad_location_arg(fn, role);
        take();
        if (punct(0, "+") || punct(0, "-") || punct(0, "["))
            unsupported(peek().pos, "pointer arithmetic on '" + t.text + "'");
        return resolve_location(t);
    }

    [[noreturn, gnu::noinline]] void bad_location_arg(const std::string& fn, const char* role) const {
        const token& t = peek();
        if (punct(0, "&"))
            unsupported(t.pos, "address-of '&' as the " + std::string(role) + " of " + fn);
        if (punct(0, "(") || punct(0, "*"))
            unsupported(t.pos, "pointer expression as the " + std::string(role) + " of " + fn);
        fail_at(t, "expected a location (pointer parameter) as the " + std::string(role) + " of " + fn +
                       ", found " + describe(t));
    }

    // atomic_<op>[_explicit][_remote] -> the operation, into call.
    [[gnu::noinline]] void decode_atomic(const token& nt, atomic_call& call) const {
        std::string_view rest = nt.text;
        rest.remove_prefix(7); // "atomic_"
        if (ends_with(rest, "_remote")) {
            call.remote = true;
            rest.remove_suffix(7);
        }
        if (ends_with(rest, "_explicit"))
            rest.remove_suffix(9);
        if (ends_with(rest, "_remote"))
            fail(nt.pos,
                 "'_remote' goes after '_explicit' (atomic_..._explicit_remote) in '" + nt.text + "'");
        if (rest == "load")
            call.op = atomic_op::load;
        else if (rest == "store")
            call.op = atomic_op::store;
        else if (rest == "fetch_add")
            call.op = atomic_op::fetch_add;
        else if (rest == "fetch_sub")
            call.op = atomic_op::fetch_sub;
        else if (rest == "exchange")
            call.op = atomic_op::exchange;
        else if (rest == "compare_exchange_strong")
            call.op = atomic_op::compare_exchange;
        else
            unsupported(nt.pos, "atomic operation '" + nt.text + "'");
    }

    [[noreturn, gnu::noinline]] void too_many_arguments(const std::string& fn) const {
        fail(peek().pos, "too many arguments to " + fn);
    }

    expr_ptr parse_atomic_call() {
        const token& nt = take();
        auto call = std::make_unique<atomic_call>();
        call->pos = nt.pos;
        decode_atomic(nt, *call);
        const std::string& fn = nt.text;
        const auto of = [&](const char* what) { return [what, &fn] { return what + (" of " + fn); }; };
        expect("(", of("after"));
        call->location = parse_location_arg(fn, "first argument");
        if (call->op == atomic_op::compare_exchange) {
            expect(",", of("and the expected location"));
            call->expected = parse_location_arg(fn, "expected argument");
            expect(",", of("and the desired value"));
            call->operand = parse_expr();
        } else if (call->op != atomic_op::load) {
            expect(",", of("and the value argument"));
            call->operand = parse_expr();
        }
        if (accept(",")) {
            if (call->op == atomic_op::compare_exchange) {
                call->success = parse_order(of("the success order"));
                expect(",", of("and the failure order"));
                call->failure = parse_order(of("the failure order"));
            } else {
                call->success = parse_order(of("the order"));
            }
            if (accept(","))
                call->scope_ = parse_scope(of("the scope"));
        }
        if (punct(0, ","))
            too_many_arguments(fn);
        expect(")", of("to close the arguments"));
        auto e = make_expr(expr::kind::call, nt.pos);
        e->call = std::move(call);
        return e;
    }

    // --------------------------------------------------------------------------------- scopeTree
    unsigned tree_thread(const token& t, std::vector<bool>& seen) const {
        const unsigned id = proc_id(t);
        if (id >= test_.threads.size())
            fail(t.pos, "the scopeTree names " + t.text + ", which is not a thread of this test");
        if (seen[id])
            fail(t.pos, t.text + " appears twice in the scopeTree");
        seen[id] = true;
        return id;
    }

    static bool is_wg_word(std::string_view s) { return s == "work_group" || s == "cta" || s == "block"; }
    static bool is_sg_word(std::string_view s) { return s == "sub_group" || s == "warp"; }

    void parse_scope_tree() {
        const token& kw = take();
        if (!punct(0, "("))
            fail_at(peek(), "expected '(device ...)' after " + kw.text + ", found " + describe(peek()));
        std::vector<bool> seen(test_.threads.size(), false);
        while (punct(0, "("))
            parse_tree_item(seen);
        for (std::size_t i = 0; i < seen.size(); ++i)
            if (!seen[i])
                fail(kw.pos, "thread P" + std::to_string(i) + " is missing from the scopeTree");
    }

    void parse_tree_item(std::vector<bool>& seen) { // at '('
        const token& open = take();
        const nest guard(*this, open.pos);
        if (ident_is(0, "device")) {
            take();
            std::vector<std::vector<unsigned>> wgs;
            parse_device_members(seen, wgs, true);
            if (wgs.empty())
                fail(open.pos, "empty device in the scopeTree");
            test_.tree.devices.push_back(std::move(wgs));
            return;
        }
        if (punct(0, "(")) { // extra parentheses around devices
            while (punct(0, "("))
                parse_tree_item(seen);
            expect(")", [&] {
                return "to close the parenthesis opened at " + where(open.pos) + " in the scopeTree";
            });
            return;
        }
        const token& t = peek();
        if (t.kind == tk::ident && (t.text == "kernel" || is_wg_word(t.text) || is_sg_word(t.text)))
            fail(t.pos, "expected '(device ...)' at the top of the scopeTree, found '" + t.text + "'");
        fail_at(t, "expected 'device' after '(' in the scopeTree, found " + describe(t));
    }

    // The members of a device (or of a kernel inside it) up to and including the closing ')'.
    void parse_device_members(std::vector<bool>& seen, std::vector<std::vector<unsigned>>& wgs,
                              bool allow_kernel) {
        for (;;) {
            if (accept(")"))
                return;
            const token& t = peek();
            if (is_proc(t)) {
                take();
                wgs.push_back({tree_thread(t, seen)}); // herd: a bare thread is a work-group of its own
                continue;
            }
            if (punct(0, "(")) {
                const token& open = take();
                const token& lv = peek();
                if (allow_kernel && ident_is(0, "kernel")) {
                    take();
                    const std::size_t before = wgs.size();
                    parse_device_members(seen, wgs, false);
                    if (wgs.size() == before)
                        fail(open.pos, "empty kernel in the scopeTree");
                    continue;
                }
                if (lv.kind == tk::ident && is_wg_word(lv.text)) {
                    take();
                    wgs.push_back(parse_work_group(seen, open.pos));
                    continue;
                }
                if (lv.kind == tk::ident && is_sg_word(lv.text)) {
                    take();
                    wgs.push_back(parse_sub_group(seen, open.pos)); // a work-group of its own
                    continue;
                }
                if (ident_is(0, "device") || ident_is(0, "kernel"))
                    fail(lv.pos,
                         "'" + lv.text + "' cannot appear inside a " + (allow_kernel ? "device" : "kernel"));
                fail_at(lv, "expected work_group, sub_group or a thread, found " + describe(lv));
            }
            if (t.kind == tk::end)
                fail(t.pos, "expected ')' to close the scopeTree, found end of file");
            fail_at(t, "expected '(work_group ...)', a thread or ')' in the scopeTree, found " + describe(t));
        }
    }

    std::vector<unsigned> parse_work_group(std::vector<bool>& seen, position open) {
        std::vector<unsigned> ids;
        for (;;) {
            if (accept(")"))
                break;
            const token& t = peek();
            if (is_proc(t)) {
                take();
                ids.push_back(tree_thread(t, seen));
                continue;
            }
            if (punct(0, "(") && ident(1) && is_sg_word(peek(1).text)) {
                const token& sopen = take();
                take();
                const std::vector<unsigned> sg = parse_sub_group(seen, sopen.pos);
                ids.insert(ids.end(), sg.begin(), sg.end()); // sub-groups flatten into the work-group
                continue;
            }
            fail_at(t, "expected a thread, '(sub_group ...)' or ')' in the work_group, found " + describe(t));
        }
        if (ids.empty())
            fail(open, "empty work_group in the scopeTree");
        return ids;
    }

    std::vector<unsigned> parse_sub_group(std::vector<bool>& seen, position open) {
        std::vector<unsigned> ids;
        for (;;) {
            if (accept(")"))
                break;
            const token& t = peek();
            if (!is_proc(t))
                fail_at(t, "expected a thread or ')' in the sub_group, found " + describe(t));
            take();
            ids.push_back(tree_thread(t, seen));
        }
        if (ids.empty())
            fail(open, "empty sub_group in the scopeTree");
        return ids;
    }

    // ------------------------------------------------------------------------------ the condition
    std::unique_ptr<cond> make_cond(cond::kind k, position p) {
        if (++cond_nodes_ > max_nodes)
            fail_literal(p, "condition too large");
        auto c = std::make_unique<cond>();
        c->k = k;
        return c;
    }
    std::unique_ptr<cond> make_not(std::unique_ptr<cond> inner, position p) {
        auto c = make_cond(cond::kind::not_, p);
        c->lhs = std::move(inner);
        return c;
    }

    void parse_condition(bool has_tree) {
        const std::size_t start = at_;
        const token& t = peek();
        if (ident_is(0, "exists") || ident_is(0, "final")) {
            take();
            test_.q = quantifier::exists;
        } else if (ident_is(0, "forall")) {
            take();
            test_.q = quantifier::forall;
        } else if ((punct(0, "~") || ident_is(0, "not")) && ident_is(1, "exists")) {
            take();
            take();
            test_.q = quantifier::not_exists;
        } else if (ident_is(0, "locations") || ident_is(0, "filter") || ident_is(0, "observed") ||
                   ident_is(0, "cases")) {
            unsupported(t.pos, "'" + t.text + "' clause");
        } else if (punct(0, "}")) {
            fail(t.pos, "unbalanced '}': no block is open here");
        } else {
            fail_at(t, std::string("expected ") + (has_tree ? "" : "scopeTree or ") +
                           "the final condition (exists, ~exists or forall), found " + describe(t));
        }
        cond_nodes_ = 0;
        test_.condition = parse_or_prop();
        std::string text;
        for (std::size_t i = start; i < at_; ++i) {
            if (i > start && toks_[i].space_before)
                text += ' ';
            text += toks_[i].text;
        }
        test_.condition_text = std::move(text);
    }

    std::unique_ptr<cond> parse_or_prop() {
        auto l = parse_and_prop();
        while (punct(0, "\\/")) {
            const position p = take().pos;
            auto r = parse_and_prop();
            auto n = make_cond(cond::kind::or_, p);
            n->lhs = std::move(l);
            n->rhs = std::move(r);
            l = std::move(n);
        }
        return l;
    }

    std::unique_ptr<cond> parse_and_prop() {
        auto l = parse_implies_prop();
        while (punct(0, "/\\")) {
            const position p = take().pos;
            auto r = parse_implies_prop();
            auto n = make_cond(cond::kind::and_, p);
            n->lhs = std::move(l);
            n->rhs = std::move(r);
            l = std::move(n);
        }
        return l;
    }

    std::unique_ptr<cond> parse_implies_prop() { // herd: a => b binds tighter than /\, right-associative
        auto l = parse_unary_prop();
        if (!punct(0, "=>"))
            return l;
        const token& op = take();
        const nest guard(*this, op.pos);
        auto r = parse_implies_prop();
        auto n = make_cond(cond::kind::or_, op.pos);
        n->lhs = make_not(std::move(l), op.pos);
        n->rhs = std::move(r);
        return n;
    }

    std::unique_ptr<cond> parse_unary_prop() {
        const token& t = peek();
        if (punct(0, "~")) {
            const nest guard(*this, t.pos);
            take();
            return make_not(parse_unary_prop(), t.pos);
        }
        if (punct(0, "(")) {
            const nest guard(*this, t.pos);
            take();
            if (accept(")"))
                return make_cond(cond::kind::true_, t.pos);
            auto c = parse_or_prop();
            expect(")", [&] {
                return "to close the parenthesis opened at " + where(t.pos) + " in the condition";
            });
            return c;
        }
        if (ident_is(0, "true")) {
            take();
            return make_cond(cond::kind::true_, t.pos);
        }
        if (ident_is(0, "false")) {
            take();
            return make_not(make_cond(cond::kind::true_, t.pos), t.pos);
        }
        return parse_atom();
    }

    std::unique_ptr<cond> parse_atom() {
        const token& t = peek();
        auto c = make_cond(cond::kind::atom, t.pos);
        if ((t.kind == tk::number || is_proc(t)) && punct(1, ":")) {
            take();
            take();
            unsigned id = 0;
            if (t.kind == tk::number) {
                if (t.overflow || t.number >= test_.threads.size())
                    fail(t.pos, "the condition names thread " + t.text + ", which this test does not have");
                id = static_cast<unsigned>(t.number);
            } else {
                id = proc_id(t);
                if (id >= test_.threads.size())
                    fail(t.pos, "the condition names thread " + t.text + ", which this test does not have");
            }
            const token& r = peek();
            if (r.kind != tk::ident || is_reserved(r.text))
                fail_at(r, "expected a register name after '" + t.text + ":', found " + describe(r));
            take();
            thread& th = test_.threads[id];
            if (has_param(th, r.text))
                unsupported(r.pos, "condition on the pointer parameter " + t.text + ":" + r.text);
            c->thread = id;
            c->name = r.text;
            note_register(th, r.text);
        } else {
            const token* n = &t;
            const bool bracket = punct(0, "[");
            if (bracket) {
                take();
                n = &peek();
            }
            if (n->kind != tk::ident || is_reserved(n->text))
                fail_at(*n, "expected a condition atom (T:reg=value or loc=value), found " + describe(*n));
            take();
            if (bracket)
                expect("]", [&] { return "after '[" + n->text; });
            if (std::none_of(test_.init.begin(), test_.init.end(),
                             [&](const auto& e) { return e.first == n->text; }))
                fail(n->pos, "unknown location '" + n->text + "' in the condition");
            c->name = n->text;
        }
        bool negate = false;
        if (punct(0, "!="))
            negate = true;
        else if (!punct(0, "=") && !punct(0, "=="))
            fail_at(peek(), "expected '=' in the condition atom, found " + describe(peek()));
        take();
        c->value = parse_int_value("the value in the condition");
        if (negate)
            return make_not(std::move(c), t.pos);
        return c;
    }

    // --------------------------------------------------------------------------------------- state
    std::string_view text_;
    std::string file_;
    std::vector<std::string>* warnings_;
    std::vector<token> toks_;
    std::size_t at_ = 0;
    test test_;
    std::set<std::string> declared_init_;                       // names listed in the init block
    std::map<std::string, std::pair<bool, unsigned>> space_of_; // location -> (global, first thread)
    std::size_t cur_ = 0;                                       // index of the thread being parsed
    std::vector<std::vector<std::string>> scopes_;              // register scopes, outermost first
    std::vector<position> open_braces_;                         // '{' of the enclosing blocks
    mutable unsigned depth_ = 0;
    unsigned expr_nodes_ = 0;
    unsigned cond_nodes_ = 0;
};

} // namespace

test parse(std::string_view text, std::string file_name, std::vector<std::string>* warnings) {
    return parser(text, std::move(file_name), warnings).run();
}

test parse_file(const std::string& path, std::vector<std::string>* warnings) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw std::runtime_error("cannot read " + path + ": is a directory");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw std::runtime_error(
            "cannot read " + path + ": " +
            (err != 0 ? std::error_code(err, std::generic_category()).message() : "cannot open"));
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad())
        throw std::runtime_error("cannot read " + path + ": read error");
    return parse(buf.str(), path, warnings);
}

} // namespace canopy::litmus
