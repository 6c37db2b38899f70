// Tests for the herd OpenCL litmus parser: the herd corpus (facts read from the files), every construct
// on inline tests, exact positions of errors, unsupported constructs, and robustness on damaged input.
#include "../common/test_paths.hpp"
#include "canopy/litmus/parser.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace lt = canopy::litmus;
namespace fs = std::filesystem;

namespace {

using tree_t = std::vector<std::vector<std::vector<unsigned>>>;

lt::test parse_text(const std::string& text, std::vector<std::string>* warnings = nullptr) {
    return lt::parse(text, "t.litmus", warnings);
}

// The corpus directory, or "" (the test then skips).
std::string herd_dir() {
    const std::string dir = canopy::test::herd_dir();
    if (dir.empty() || !fs::is_directory(fs::path(dir) / "opencl") ||
        !fs::is_directory(fs::path(dir) / "rsp"))
        return "";
    return dir;
}

lt::test parse_corpus(const std::string& rel, std::vector<std::string>* warnings = nullptr) {
    return lt::parse_file((fs::path(herd_dir()) / rel).string(), warnings);
}

#define REQUIRE_CORPUS()                                                                                     \
    do {                                                                                                     \
        if (herd_dir().empty())                                                                              \
            GTEST_SKIP() << "herd corpus not found at '" << canopy::test::herd_dir()                         \
                         << "' (tests/CMakeLists.txt: test_paths.cpp's CANOPY_HERD_DIR)";                    \
    } while (0)

// Compact renderings, so that structure is checked with one string comparison.
const char* order_name(lt::order o) {
    switch (o) {
    case lt::order::relaxed: return "rlx";
    case lt::order::acquire: return "acq";
    case lt::order::release: return "rel";
    case lt::order::acq_rel: return "ar";
    case lt::order::seq_cst: return "sc";
    }
    return "?";
}
const char* scope_name(lt::scope s) {
    switch (s) {
    case lt::scope::work_item: return "wi";
    case lt::scope::sub_group: return "sg";
    case lt::scope::work_group: return "wg";
    case lt::scope::device: return "dev";
    case lt::scope::all_svm_devices: return "all";
    }
    return "?";
}
const char* op_name(lt::atomic_op o) {
    switch (o) {
    case lt::atomic_op::load: return "load";
    case lt::atomic_op::store: return "store";
    case lt::atomic_op::fetch_add: return "fetch_add";
    case lt::atomic_op::fetch_sub: return "fetch_sub";
    case lt::atomic_op::exchange: return "exchange";
    case lt::atomic_op::compare_exchange: return "cas";
    }
    return "?";
}

std::string show(const lt::expr& e) {
    switch (e.k) {
    case lt::expr::kind::constant: return std::to_string(e.value);
    case lt::expr::kind::reg: return e.name;
    case lt::expr::kind::deref: return "*" + e.name;
    case lt::expr::kind::unary_not: return "!" + show(*e.lhs);
    case lt::expr::kind::binary: return "(" + show(*e.lhs) + " " + e.op + " " + show(*e.rhs) + ")";
    case lt::expr::kind::call: {
        const lt::atomic_call& c = *e.call;
        std::string s = std::string(op_name(c.op)) + (c.remote ? "_remote" : "") + "(" + c.location;
        if (c.op == lt::atomic_op::compare_exchange)
            s += ", &" + c.expected;
        if (c.operand)
            s += ", " + show(*c.operand);
        s += ", " + std::string(order_name(c.success));
        if (c.op == lt::atomic_op::compare_exchange)
            s += "/" + std::string(order_name(c.failure));
        return s + ", " + scope_name(c.scope_) + ")";
    }
    }
    return "?";
}

std::string show(const lt::stmt& s) {
    switch (s.k) {
    case lt::stmt::kind::declare: return "int " + s.name + ";";
    case lt::stmt::kind::assign: return s.name + " = " + show(*s.value) + ";";
    case lt::stmt::kind::store_plain: return "*" + s.name + " = " + show(*s.value) + ";";
    case lt::stmt::kind::eval: return show(*s.value) + ";";
    case lt::stmt::kind::if_: {
        std::string r = "if " + show(*s.value) + " " + show(*s.body.at(0));
        if (s.body.size() > 1)
            r += " else " + show(*s.body.at(1));
        return r;
    }
    case lt::stmt::kind::block: {
        std::string r = "{";
        for (const auto& b : s.body)
            r += " " + show(*b);
        return r + " }";
    }
    case lt::stmt::kind::fence:
    case lt::stmt::kind::barrier: {
        std::string r = s.k == lt::stmt::kind::fence ? "fence(" : "barrier(";
        r += s.global_fence ? "G" : "";
        r += s.local_fence ? "L" : "";
        if (s.k == lt::stmt::kind::fence)
            r += std::string(", ") + order_name(s.fence_order);
        return r + ", " + scope_name(s.fence_scope) + ");";
    }
    }
    return "?";
}

std::string show(const std::vector<lt::stmt_ptr>& body) {
    std::string r;
    for (const auto& s : body)
        r += (r.empty() ? "" : " ") + show(*s);
    return r;
}

std::string show(const lt::cond& c) {
    switch (c.k) {
    case lt::cond::kind::true_: return "true";
    case lt::cond::kind::atom:
        return (c.thread ? std::to_string(*c.thread) + ":" : std::string()) + c.name + "=" +
               std::to_string(c.value);
    case lt::cond::kind::not_: return "~" + show(*c.lhs);
    case lt::cond::kind::and_: return "(" + show(*c.lhs) + " /\\ " + show(*c.rhs) + ")";
    case lt::cond::kind::or_: return "(" + show(*c.lhs) + " \\/ " + show(*c.rhs) + ")";
    }
    return "?";
}

std::string show_params(const lt::thread& th) {
    std::string r;
    for (const auto& p : th.params)
        r += (r.empty() ? "" : ", ") + std::string(p.global ? "global " : "local ") +
             (p.atomic ? "atomic " : "") + p.name;
    return r;
}

std::vector<std::string> init_names(const lt::test& t) {
    std::vector<std::string> r;
    for (const auto& [n, v] : t.init)
        r.push_back(n);
    return r;
}

using strings = std::vector<std::string>;

// Expect a parse_error at line:column (column 0: any) whose message contains `needle`.
void expect_error(const std::string& text, unsigned line, unsigned column, const std::string& needle) {
    try {
        (void)parse_text(text);
        ADD_FAILURE() << "no parse_error for:\n" << text;
    } catch (const lt::parse_error& e) {
        EXPECT_EQ(e.line, line) << e.what() << "\nin:\n" << text;
        if (column != 0) {
            EXPECT_EQ(e.column, column) << e.what() << "\nin:\n" << text;
        }
        EXPECT_NE(e.message.find(needle), std::string::npos)
            << e.what() << "\n(expected to contain: " << needle << ")";
        EXPECT_EQ(std::string(e.what()), "t.litmus:" + std::to_string(e.line) + ":" +
                                             std::to_string(e.column) + ": error: " + e.message);
        EXPECT_EQ(e.file, "t.litmus");
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected parse_error, got: " << e.what() << "\nin:\n" << text;
    }
}

void expect_unsupported(const std::string& text, unsigned line, unsigned column, const std::string& needle) {
    try {
        (void)parse_text(text);
        ADD_FAILURE() << "no unsupported_error for:\n" << text;
    } catch (const lt::unsupported_error& e) {
        EXPECT_EQ(e.line, line) << e.what();
        EXPECT_EQ(e.column, column) << e.what();
        EXPECT_NE(e.construct.find(needle), std::string::npos)
            << e.what() << "\n(expected to contain: " << needle << ")";
        EXPECT_EQ(std::string(e.what()), "t.litmus:" + std::to_string(line) + ":" + std::to_string(column) +
                                             ": unsupported: " + e.construct);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected unsupported_error, got: " << e.what() << "\nin:\n" << text;
    }
}

// A test around one thread body (the body starts on line 4).
std::string one_thread(const std::string& body, const std::string& condition = "exists (x=0)") {
    return "OpenCL T\n{ [x]=0; [y]=0; }\nP0 (global atomic_int* x, global atomic_int* y) {\n" + body +
           "\n}\n" + condition + "\n";
}

// ------------------------------------------------------------------------------------------- corpus

struct corpus_fact {
    const char* file; // relative to the corpus directory
    const char* name;
    unsigned threads;
    tree_t tree;
    std::size_t init; // entries of test.init (the block's, then parameters not listed)
    lt::quantifier q;
    const char* condition_text;
};

const std::vector<corpus_fact>& corpus_facts() {
    using lt::quantifier;
    static const std::vector<corpus_fact> facts = {
        {"opencl/2+2W_xaG_yaG_sc--sc_sc--sc_0_1.litmus",
         "2+2W_xaG_yaG_sc--sc_sc--sc_0||1",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists ([x]=1 /\\ [y]=0)"},
        {"opencl/3.2W_xaG_yaG_zaG_sc--sc_rel_wg_-LFsc-rel_rel-GFrel_dev_-acq_wg_0_1_2.litmus",
         "3.2W_xaG_yaG_zaG_sc--sc_rel[wg]-LFsc-rel_rel-GFrel[dev]-acq[wg]_0||1|2",
         3,
         {{{0}, {1, 2}}},
         3,
         quantifier::exists,
         "exists ([x]=2 /\\ [y]=2 /\\ [z]=2)"},
        {"opencl/3LB_xaG_yaG_zaG_sc--sc_na--sc_sc--sc_0_1_2.litmus",
         "3LB_xaG_yaG_zaG_sc--sc_na--sc_sc--sc_0|1||2",
         3,
         {{{0, 1}, {2}}},
         3,
         quantifier::exists,
         "exists (0:r0=1 /\\ 1:r1=1 /\\ 2:r2=1)"},
        {"opencl/CT_wsq1.litmus",
         "CT_wsq1",
         2,
         {{{0, 1}}},
         4,
         quantifier::exists,
         "exists (1:localTail=1 /\\ val=0)"},
        {"opencl/CT_wsq2.litmus",
         "CT_wsq2",
         2,
         {{{0, 1}}},
         4,
         quantifier::exists,
         "exists (0:tmp=1 /\\ 1:localTail=1)"},
        {"opencl/IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3.litmus",
         "IRIW_sc_sc_sc-sc_sc-sc_xaG_yaG_P0_P1_P2_P3",
         4,
         {{{0, 1, 2, 3}}},
         2,
         quantifier::exists,
         "exists (2:r0=1 /\\ 2:r1=0 /\\ 3:r2=1 /\\ 3:r3=0)"},
        {"opencl/ISA2.litmus",
         "ISA2",
         3,
         {{{0}, {1}, {2}}},
         3,
         quantifier::exists,
         "exists (1:r0=1 /\\ 2:r1=1 /\\ 2:r2=0)"},
        {"opencl/ISA2_sc-sc_sc-sc_sc-sc_xaG_yaG_zaG_P0_P1_P2.litmus",
         "ISA2_sc-sc_sc-sc_sc-sc_xaG_yaG_zaG_P0_P1_P2",
         3,
         {{{0, 1, 2}}},
         3,
         quantifier::exists,
         "exists (1:r0=1 /\\ 2:r1=1 /\\ 2:r2=0)"},
        {"opencl/LB.litmus", "LB", 2, {{{0}, {1}}}, 2, quantifier::exists, "exists (0:r0=1 /\\ 1:r1=1)"},
        {"opencl/MP_rlx_1FG-sc-all_rlx_xaG_yaG_P0_P1.litmus",
         "MP_rlx_1FG-sc-all_rlx_xaG_yaG_P0_P1",
         2,
         {{{0, 1}}},
         2,
         quantifier::exists,
         "exists (1:r0=1 /\\ 1:r1=0)"},
        {"opencl/RWC_xaG_yaG_sc-_rel_wg_-LFsc-rel_rel-GFrel_dev_-acq_wg_0_1_2.litmus",
         "RWC_xaG_yaG_sc-_rel[wg]-LFsc-rel_rel-GFrel[dev]-acq[wg]_0||1|2",
         3,
         {{{0}, {1, 2}}},
         2,
         quantifier::exists,
         "exists (1:r0=1 /\\ 1:r1=0 /\\ 2:r2=0)"},
        {"opencl/R_xaG_yaG_sc--sc_sc--sc_0_1.litmus",
         "R_xaG_yaG_sc--sc_sc--sc_0||1",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (1:r0=0)"},
        {"opencl/SB.litmus", "SB", 2, {{{0}, {1}}}, 2, quantifier::exists, "exists (0:r0=0 /\\ 1:r1=0)"},
        {"opencl/SB_xaG_yaG_rel_wg_-LFsc-rel_rel-GFrel_dev_-acq_wg_0_1.litmus",
         "SB_xaG_yaG_rel[wg]-LFsc-rel_rel-GFrel[dev]-acq[wg]_0||1",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (0:r0=0 /\\ 1:r1=0)"},
        {"opencl/S_xaG_yaG_rel_wg_-LFsc-rel_rel-GFrel_dev_-acq_wg_0_1.litmus",
         "S_xaG_yaG_rel[wg]-LFsc-rel_rel-GFrel[dev]-acq[wg]_0||1",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (1:r0=1)"},
        {"opencl/WRC_xaG_yaG_sc-_rel_wg_-LFsc-rel_rel-GFrel_dev_-acq_wg_0_1_2.litmus",
         "WRC_xaG_yaG_sc-_rel[wg]-LFsc-rel_rel-GFrel[dev]-acq[wg]_0||1|2",
         3,
         {{{0}, {1, 2}}},
         2,
         quantifier::exists,
         "exists (1:r0=1 /\\ 2:r1=1 /\\ 2:r2=0)"},
        {"opencl/barrier_example.litmus",
         "barrier_example",
         2,
         {{{0, 1}}},
         2,
         quantifier::exists,
         "exists (x=0 /\\ y=0)"},
        {"opencl/global_barrier.litmus",
         "global_barrier",
         6,
         {{{0, 1}, {2, 3}, {4, 5}}},
         3,
         quantifier::exists,
         "exists (2:r0=1 /\\ 3:r1=1 /\\ 0:r2=0 /\\ 4:r4=0)"},
        {"opencl/global_barrier_mo.litmus",
         "global_barrier",
         6,
         {{{0, 1}, {2, 3}, {4, 5}}},
         4,
         quantifier::exists,
         "exists (2:r0=1 /\\ 3:r1=1 /\\ 0:r2=1 /\\ 4:r4=1 )"},
        {"opencl/thinair.litmus",
         "thinair",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (x=42 /\\ y=42)"},
        {"rsp/RSP_Test1.litmus",
         "RSP_Test1",
         4,
         {{{0, 1, 2}, {3}}},
         2,
         quantifier::exists,
         "exists (2:r0=1 /\\ 2:r1=0 /\\ 3:r2=1 /\\ 3:r3=0)"},
        {"rsp/RSP_Test10.litmus", "RSP_Test10", 3, {{{0, 1}, {2}}}, 1, quantifier::exists, "exists (~(x=3))"},
        {"rsp/RSP_Test11.litmus",
         "RSP_Test11",
         3,
         {{{0, 1}, {2}}},
         1,
         quantifier::exists,
         "exists (~(0:r0=0) /\\ ~(1:r1=0) /\\ ~(x=3))"},
        {"rsp/RSP_Test12.litmus", "RSP_Test12", 2, {{{0}}, {{1}}}, 2, quantifier::exists, "exists ()"},
        {"rsp/RSP_Test2.litmus",
         "RSP_Test2",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (1:r0=1 /\\ ~ (1:r1=53))"},
        {"rsp/RSP_Test3.litmus",
         "RSP_Test3",
         3,
         {{{0, 1}}, {{2}}},
         4,
         quantifier::exists,
         "exists (2:r0=1 /\\ 1:r1=1 /\\ ~ (1:r2=53) /\\ ~ (1:r3=42))"},
        {"rsp/RSP_Test4.litmus",
         "RSP_Test4",
         3,
         {{{0, 1}}, {{2}}},
         3,
         quantifier::exists,
         "exists (2:r0=1 /\\ 1:r1=1 /\\ 1:r3=42 /\\ ~ (1:r2=53))"},
        {"rsp/RSP_Test5.litmus",
         "RSP_Test5",
         3,
         {{{0, 1}}, {{2}}},
         3,
         quantifier::exists,
         "exists (1:r0=1 /\\ 2:r2=1 /\\ (~ (1:r1=53) \\/ ~ (2:r3=53)))"},
        {"rsp/RSP_Test6.litmus",
         "RSP_Test6",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (1:r0=1 /\\ ~(1:r1=53))"},
        {"rsp/RSP_Test7.litmus",
         "RSP_Test7",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (1:r0=1 /\\ ~(1:r1=53))"},
        {"rsp/RSP_Test8.litmus",
         "RSP_Test8",
         3,
         {{{0, 2}, {1}}},
         5,
         quantifier::exists,
         "exists (0:r0=1 /\\ 1:r1=1 /\\ 2:r3=1 /\\ 1:r2=1 /\\ 2:r4=1 /\\ ~(2:r5=53))"},
        {"rsp/RSP_Test9.litmus",
         "RSP_Test9",
         3,
         {{{0}, {1}, {2}}},
         5,
         quantifier::exists,
         "exists (0:r0=1 /\\ 1:r1=1 /\\ 2:r2=1 /\\ 2:r3=1 /\\ 2:r4=1 /\\ ~(2:r5=53))"},
        {"rsp/WSQ1.litmus",
         "WSQ1",
         2,
         {{{0}, {1}}},
         2,
         quantifier::exists,
         "exists (1:localTail=1 /\\ 1:ret=0)"},
        {"rsp/WSQ2.litmus", "WSQ2", 2, {{{0}, {1}}}, 5, quantifier::exists, "exists (0:r0=1 /\\ 1:val=1)"},
    };
    return facts;
}

} // namespace

TEST(LitmusParser, CorpusEveryFileParsesAndMatchesItsFacts) {
    REQUIRE_CORPUS();
    std::map<std::string, const corpus_fact*> by_file;
    for (const corpus_fact& f : corpus_facts())
        by_file[f.file] = &f;
    std::size_t seen = 0;
    for (const char* sub : {"opencl", "rsp"}) {
        for (const auto& entry : fs::directory_iterator(fs::path(herd_dir()) / sub)) {
            if (entry.path().extension() != ".litmus")
                continue;
            const std::string rel = std::string(sub) + "/" + entry.path().filename().string();
            SCOPED_TRACE(rel);
            ++seen;
            std::vector<std::string> warnings;
            lt::test t;
            try {
                t = lt::parse_file(entry.path().string(), &warnings);
            } catch (const std::exception& e) {
                ADD_FAILURE() << e.what();
                continue;
            }
            // Only CT_wsq2 needs the letter-case fallback (oldHead_p for oldhead_p).
            EXPECT_EQ(warnings.empty(), rel != "opencl/CT_wsq2.litmus");
            const auto it = by_file.find(rel);
            if (it == by_file.end()) {
                ADD_FAILURE() << "no facts recorded for " << rel;
                continue;
            }
            const corpus_fact& f = *it->second;
            EXPECT_EQ(t.name, f.name);
            EXPECT_EQ(t.file, entry.path().string());
            EXPECT_EQ(t.threads.size(), f.threads);
            for (std::size_t i = 0; i < t.threads.size(); ++i)
                EXPECT_EQ(t.threads[i].id, i);
            EXPECT_EQ(t.tree.devices, f.tree);
            EXPECT_EQ(t.init.size(), f.init);
            for (const auto& [name, value] : t.init)
                EXPECT_EQ(value, 0) << name;
            EXPECT_EQ(t.q, f.q);
            ASSERT_NE(t.condition, nullptr);
            EXPECT_EQ(t.condition_text, f.condition_text);
        }
    }
    EXPECT_EQ(seen, corpus_facts().size()) << "the corpus has " << seen << " .litmus files";
}

TEST(LitmusParser, CorpusRSPTest2) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("rsp/RSP_Test2.litmus");
    ASSERT_EQ(t.threads.size(), 2u);
    EXPECT_EQ(show_params(t.threads[0]), "global atomic x, global atomic y");
    EXPECT_EQ(show(t.threads[0].body), "*x = 53; store(y, 1, rel, wg);");
    EXPECT_EQ(show(t.threads[1].body), "r0 = load_remote(y, acq, dev); r1 = -1; if r0 r1 = *x;");
    EXPECT_EQ(t.threads[0].registers, strings{});
    EXPECT_EQ(t.threads[1].registers, (strings{"r0", "r1"}));
    EXPECT_EQ(init_names(t), (strings{"x", "y"}));
    EXPECT_EQ(show(*t.condition), "(1:r0=1 /\\ ~1:r1=53)");
    // The declarations `int r0 = ...` are assign statements; positions point at the statement.
    EXPECT_EQ(t.threads[1].body[0]->k, lt::stmt::kind::assign);
    EXPECT_EQ(t.threads[1].body[0]->pos.line, 15u);
    EXPECT_EQ(t.threads[1].body[0]->pos.column, 3u);
    EXPECT_EQ(t.threads[1].body[0]->value->call->pos.line, 15u);
    EXPECT_EQ(t.threads[1].body[0]->value->call->pos.column, 12u);
    EXPECT_EQ(t.threads[1].pos.line, 14u);
    EXPECT_EQ(t.threads[1].pos.column, 1u);
}

TEST(LitmusParser, CorpusRSPTest8) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("rsp/RSP_Test8.litmus");
    ASSERT_EQ(t.threads.size(), 3u);
    EXPECT_EQ(init_names(t), (strings{"w", "x", "y", "z", "zero"}));
    EXPECT_EQ(show(t.threads[0].body),
              "r0 = cas(y, &zero, 1, acq/acq, wg); if (1 == r0) { *x = 53; *z = 1; store(y, 0, rel, wg); }");
    EXPECT_EQ(show(t.threads[1].body), "r1 = cas_remote(y, &zero, 1, acq/acq, all); r2 = -1; "
                                       "if (1 == r1) { r2 = *z; *w = 1; store_remote(y, 0, rel, all); }");
    EXPECT_EQ(show(t.threads[2].body),
              "r3 = cas(y, &zero, 1, acq/acq, wg); r4 = -1; r5 = -1; if (1 == r3) { r4 = *w; r5 = *x; }");
    EXPECT_EQ(t.threads[0].registers, strings{"r0"});
    EXPECT_EQ(t.threads[1].registers, (strings{"r1", "r2"}));
    EXPECT_EQ(t.threads[2].registers, (strings{"r3", "r4", "r5"}));
    const lt::atomic_call& cas = *t.threads[1].body[0]->value->call;
    EXPECT_EQ(cas.op, lt::atomic_op::compare_exchange);
    EXPECT_TRUE(cas.remote);
    EXPECT_EQ(cas.location, "y");
    EXPECT_EQ(cas.expected, "zero");
    EXPECT_EQ(cas.success, lt::order::acquire);
    EXPECT_EQ(cas.failure, lt::order::acquire);
    EXPECT_EQ(cas.scope_, lt::scope::all_svm_devices);
    EXPECT_EQ(show(*t.condition),
              "(((((0:r0=1 /\\ 1:r1=1) /\\ 2:r3=1) /\\ 1:r2=1) /\\ 2:r4=1) /\\ ~2:r5=53)");
}

TEST(LitmusParser, CorpusWSQ2) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("rsp/WSQ2.litmus");
    ASSERT_EQ(t.threads.size(), 2u);
    // dummy_sync_flag is a parameter but not in the init block: appended, value 0.
    EXPECT_EQ(init_names(t), (strings{"h", "t", "zero0", "zero1", "dummy_sync_flag"}));
    EXPECT_EQ(show_params(t.threads[0]), "global atomic h, global atomic t, global atomic dummy_sync_flag, "
                                         "global atomic zero0, global atomic zero1");
    // r0 and val are assigned without a declaration (as herd allows).
    EXPECT_EQ(show(t.threads[0].body),
              "r0 = cas(h, &zero0, 1, ar/rlx, wg); if (r0 == 1) { } else { *t = 1; }");
    EXPECT_EQ(show(t.threads[1].body), "val = *t; if (cas_remote(h, &zero1, 1, ar/rlx, dev) == 1) { }");
    EXPECT_EQ(t.threads[0].registers, strings{"r0"});
    EXPECT_EQ(t.threads[1].registers, strings{"val"});
    EXPECT_EQ(show(*t.condition), "(0:r0=1 /\\ 1:val=1)");
}

TEST(LitmusParser, CorpusMPRelaxedWithFence) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("opencl/MP_rlx_1FG-sc-all_rlx_xaG_yaG_P0_P1.litmus");
    ASSERT_EQ(t.threads.size(), 2u);
    // Omitted scope: memory_scope_device.
    EXPECT_EQ(show(t.threads[0].body), "*x = 1; fence(G, sc, all); store(y, 1, rlx, dev);");
    EXPECT_EQ(show(t.threads[1].body), "r0 = load(y, rlx, dev); r1 = *x;");
    EXPECT_EQ(t.threads[1].registers, (strings{"r0", "r1"}));
    EXPECT_FALSE(t.threads[0].body[2]->value->call->remote);
}

TEST(LitmusParser, CorpusGlobalBarrier) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("opencl/global_barrier.litmus");
    ASSERT_EQ(t.threads.size(), 6u);
    EXPECT_EQ(init_names(t), (strings{"f0", "f1", "tyler"}));
    const std::string lf = "fence(L, rlx, wg);";
    EXPECT_EQ(show(t.threads[0].body), "barrier(G, wg); store(f0, 1, rel, dev); " + lf + " " + lf + " " + lf +
                                           " " + lf + " r2 = load(f0, acq, dev); barrier(G, wg);");
    EXPECT_EQ(show(t.threads[1].body), "*tyler = 1; barrier(G, wg); " + lf + " " + lf + " " + lf + " " + lf +
                                           " " + lf + " " + lf + " barrier(G, wg);");
    EXPECT_EQ(show(t.threads[2].body),
              lf + " " + lf + " r0 = load(f0, acq, dev); barrier(G, wg); store(f0, 0, rel, dev);");
    EXPECT_EQ(show_params(t.threads[1]), "global f0, global f1, global tyler");
    EXPECT_EQ(show_params(t.threads[5]), "global f0, global f1, global tyler");
    const std::vector<strings> regs = {{"r2"}, {}, {"r0"}, {"r1"}, {"r4"}, {"r5"}};
    for (std::size_t i = 0; i < 6; ++i)
        EXPECT_EQ(t.threads[i].registers, regs[i]) << "P" << i;
    EXPECT_EQ(show(*t.condition), "(((2:r0=1 /\\ 3:r1=1) /\\ 0:r2=0) /\\ 4:r4=0)");
}

TEST(LitmusParser, CorpusGlobalBarrierMoUsesInitLocationsThatAreNotParameters) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("opencl/global_barrier_mo.litmus");
    ASSERT_EQ(t.threads.size(), 6u);
    EXPECT_EQ(show_params(t.threads[0]), "global f0, global f1");
    EXPECT_EQ(show(*t.threads[0].body[6]), "r2 = load(g0, acq, dev);");
    EXPECT_EQ(show(*t.threads[2].body[4]), "store(g0, 1, rel, dev);");
}

TEST(LitmusParser, CorpusCTwsq1) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("opencl/CT_wsq1.litmus");
    ASSERT_EQ(t.threads.size(), 2u);
    EXPECT_EQ(show_params(t.threads[0]), "global atomic tail_p, global atomic head_p, global d, global val");
    EXPECT_EQ(show(t.threads[0].body),
              "tmp_tail = load(tail_p, acq, dev); *d = 1; tmp_tail = 1; store(tail_p, tmp_tail, rel, dev);");
    EXPECT_EQ(show(t.threads[1].body),
              "int localTail; int oldHead; oldHead = load(head_p, acq, dev); "
              "localTail = load(tail_p, acq, dev); if (localTail == 1) { *val = *d; }");
    EXPECT_EQ(t.threads[0].registers, strings{"tmp_tail"});
    EXPECT_EQ(t.threads[1].registers, (strings{"localTail", "oldHead"}));
    EXPECT_EQ(init_names(t), (strings{"tail_p", "head_p", "d", "val"}));
    EXPECT_EQ(show(*t.condition), "(1:localTail=1 /\\ val=0)");
}

TEST(LitmusParser, CorpusCTwsq2ResolvesALetterCaseSlipWithAWarning) {
    REQUIRE_CORPUS();
    std::vector<std::string> warnings;
    const lt::test t = parse_corpus("opencl/CT_wsq2.litmus", &warnings);
    ASSERT_EQ(t.threads.size(), 2u);
    EXPECT_EQ(show(t.threads[0].body), "newHead = 1; tmp = cas(head_p, &oldhead_p, newHead, rel/rel, dev); "
                                       "if tmp { } else { store(head_p, newHead, rel, dev); } "
                                       "tmp_tail = load(tail_p, acq, dev);");
    EXPECT_EQ(show(t.threads[1].body),
              "int localTail; localTail = load(tail_p, acq, dev); "
              "if (localTail != *oldhead_p) { val = *d; cas(head_p, &oldhead_p, 1, rel/rel, dev); }");
    EXPECT_EQ(t.threads[0].registers, (strings{"newHead", "tmp", "tmp_tail"}));
    EXPECT_EQ(t.threads[1].registers, (strings{"localTail", "val"}));
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_NE(warnings[0].find("CT_wsq2.litmus:15:61: warning: 'oldHead_p'"), std::string::npos)
        << warnings[0];
}

TEST(LitmusParser, CorpusLocalParameters) {
    REQUIRE_CORPUS();
    const lt::test t = parse_corpus("rsp/RSP_Test7.litmus");
    EXPECT_EQ(show_params(t.threads[0]), "global atomic x, local atomic y");
    const lt::test ta = parse_corpus("opencl/thinair.litmus");
    EXPECT_EQ(show_params(ta.threads[1]), "global x, local y");
    EXPECT_EQ(show(ta.threads[0].body), "t = load(y, acq, dev); store(x, t, rel, dev);");
}

// ---------------------------------------------------------------------------------- inline constructs

TEST(LitmusParser, HeaderFreeLinesAndComments) {
    const lt::test t = parse_text(R"(/* leading comment */ OpenCL My+Test[wg]||1 (doc)
"PodWW Rfe PodRR Fre"
Prefetch=0:x=F,0:y=W
Com=Rf Fr
Orig=PodWW Rfe
// a comment { with a brace
/* a block
   comment } */
{ [x]=0; }
P0 (global atomic_int* x) { // trailing comment
  /* inside */ atomic_store(x, /* arg */ 1);
}
exists /* c */ (x
   = 1)
)");
    EXPECT_EQ(t.name, "My+Test[wg]||1");
    EXPECT_EQ(t.file, "t.litmus");
    EXPECT_EQ(show(t.threads[0].body), "store(x, 1, sc, dev);");
    EXPECT_EQ(t.condition_text, "exists (x = 1)");
    EXPECT_TRUE(t.tree.devices.empty());
}

TEST(LitmusParser, InitBlockForms) {
    const lt::test t = parse_text("OpenCL T\r\n{\r\n [x]=0; y = -3;\tint z=5; atomic_int [w] = +7; v }\r\n"
                                  "P0 (global atomic_int* a, global int* x) { }\n"
                                  "P1 (local int* b, global int* a) { }\n"
                                  "exists (v=0)\n");
    const std::vector<std::pair<std::string, std::int64_t>> want = {{"x", 0}, {"y", -3}, {"z", 5}, {"w", 7},
                                                                    {"v", 0}, {"a", 0},  {"b", 0}};
    EXPECT_EQ(t.init, want);
}

TEST(LitmusParser, Parameters) {
    const lt::test t =
        parse_text("OpenCL T\n{ }\n"
                   "P0 (global atomic_int* a, __global int* b, __local int* c, local atomic_int* d,\n"
                   "    volatile int* e, int* f, const global int * restrict g, _Atomic int* h) { }\n"
                   "P1 (void) { }\n"
                   "P2 () { }\n"
                   "forall (true)\n");
    EXPECT_EQ(show_params(t.threads[0]),
              "global atomic a, global b, local c, local atomic d, global e, global f, "
              "global g, global atomic h");
    EXPECT_TRUE(t.threads[1].params.empty());
    EXPECT_TRUE(t.threads[2].params.empty());
    EXPECT_EQ(init_names(t), (strings{"a", "b", "c", "d", "e", "f", "g", "h"}));
    EXPECT_EQ(t.q, lt::quantifier::forall);
    EXPECT_EQ(show(*t.condition), "true");
}

TEST(LitmusParser, Statements) {
    const lt::test t = parse_text(one_thread(R"(  int r0;
  int r1 = 5;
  r0 = r1;
  undeclared = 2;
  *x = r0 + 1;
  atomic_store(y, 3);
  if (r0) *y = 1;
  if (r1 == 5) { int t = 1; *y = t; } else { int t = 2; *x = t; }
  { }
  ;
  {
    { r1 = 7; }
  }
  L1: barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  B2: L3: work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_device);
  fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);
  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE|CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_sub_group);
  if (r0) if (r1) *x = 1; else *x = 2;)"));
    const lt::thread& th = t.threads[0];
    ASSERT_EQ(th.body.size(), 16u);
    EXPECT_EQ(show(th.body),
              "int r0; r1 = 5; r0 = r1; undeclared = 2; *x = (r0 + 1); store(y, 3, sc, dev); if r0 *y = 1; "
              "if (r1 == 5) { t = 1; *y = t; } else { t = 2; *x = t; } { } { } { { r1 = 7; } } "
              "barrier(GL, wg); barrier(L, dev); fence(G, ar, wg); fence(GL, rel, sg); "
              "if r0 if r1 *x = 1; else *x = 2;");
    EXPECT_EQ(th.body[0]->k, lt::stmt::kind::declare);
    EXPECT_EQ(th.body[1]->k, lt::stmt::kind::assign);
    EXPECT_EQ(th.body[5]->k, lt::stmt::kind::eval);
    EXPECT_EQ(th.body[11]->k, lt::stmt::kind::barrier);
    EXPECT_EQ(th.body[11]->pos.line, 17u); // the barrier, not its label
    EXPECT_EQ(th.body[11]->pos.column, 7u);
    EXPECT_EQ(th.registers, (strings{"r0", "r1", "undeclared", "t"}));
    // The dangling else binds to the inner if.
    const lt::stmt& outer = *th.body[15];
    ASSERT_EQ(outer.body.size(), 1u);
    EXPECT_EQ(outer.body[0]->body.size(), 2u);
}

TEST(LitmusParser, Expressions) {
    const lt::test t = parse_text(one_thread(R"(  int r = 1;
  int a = 1 + 2 * 3 == 7 && !r || r < -2;
  int b = (1 + 2) * 3 - -4 - r;
  int c = -r;
  int d = r != 1 && r <= 2 && r > 3 && r >= 4;
  int e = *x * *y + atomic_load(x) * 2;
  int f = !!(r);
  int g = -9223372036854775808;
  int h = 9223372036854775807;
  int i = 0x10 + +3;)"));
    EXPECT_EQ(
        show(t.threads[0].body),
        "r = 1; a = ((((1 + (2 * 3)) == 7) && !r) || (r < -2)); b = ((((1 + 2) * 3) - -4) - r); c = (0 - r); "
        "d = ((((r != 1) && (r <= 2)) && (r > 3)) && (r >= 4)); e = ((*x * *y) + (load(x, sc, dev) * 2)); "
        "f = !!r; g = -9223372036854775808; h = 9223372036854775807; i = (16 + 3);");
    const lt::expr& a = *t.threads[0].body[1]->value;
    EXPECT_EQ(a.k, lt::expr::kind::binary);
    EXPECT_EQ(a.op, "||");
    EXPECT_EQ(a.pos.line, 5u);
    EXPECT_EQ(a.pos.column, 32u); // a binary node sits at its operator
}

TEST(LitmusParser, AtomicCallForms) {
    const lt::test t = parse_text(one_thread(R"(  int r;
  r = atomic_load(x);
  r = atomic_load_explicit(x, memory_order_consume);
  r = atomic_load_explicit_remote(x, memory_order_acquire, memory_scope_all_devices);
  r = atomic_load_remote(x);
  atomic_store(x, r + 1);
  atomic_store_explicit(x, 1, mo_rlx, s_wg);
  atomic_store_explicit_remote(x, 1, memory_order_release, memory_scope_work_item);
  r = atomic_fetch_add(x, 2);
  r = atomic_fetch_add_explicit(x, 2, memory_order_acq_rel);
  r = atomic_fetch_sub_explicit_remote(x, 2, memory_order_seq_cst, memory_scope_sub_group);
  r = atomic_exchange(y, 5);
  r = atomic_exchange_explicit(y, r, mo_ar, s_all);
  r = atomic_compare_exchange_strong(x, y, 1);
  r = atomic_compare_exchange_strong_explicit(x, y, 1, memory_order_acq_rel, memory_order_relaxed);
  r = atomic_compare_exchange_strong_explicit_remote(x, y, 1, mo_sc, mo_acq, s_dev);
  if (atomic_load(y) == 0 && atomic_compare_exchange_strong_explicit_remote(x, y, 1,
        memory_order_acq_rel, memory_order_relaxed, memory_scope_device) == 1) { })"));
    EXPECT_EQ(show(t.threads[0].body),
              "int r; r = load(x, sc, dev); r = load(x, acq, dev); r = load_remote(x, acq, all); "
              "r = load_remote(x, sc, dev); store(x, (r + 1), sc, dev); store(x, 1, rlx, wg); "
              "store_remote(x, 1, rel, wi); r = fetch_add(x, 2, sc, dev); r = fetch_add(x, 2, ar, dev); "
              "r = fetch_sub_remote(x, 2, sc, sg); r = exchange(y, 5, sc, dev); r = exchange(y, r, ar, all); "
              "r = cas(x, &y, 1, sc/sc, dev); r = cas(x, &y, 1, ar/rlx, dev); r = cas_remote(x, &y, 1, "
              "sc/acq, dev); "
              "if ((load(y, sc, dev) == 0) && (cas_remote(x, &y, 1, ar/rlx, dev) == 1)) { }");
}

TEST(LitmusParser, Conditions) {
    const std::string threads = "OpenCL T\n{ [x]=0; [y]=0; }\n"
                                "P0 (global atomic_int* x, global atomic_int* y) { int r0 = *x; }\n"
                                "P1 (global atomic_int* x, global atomic_int* y) { *y = 1; }\n";
    auto cond_of = [&](const std::string& c) { return parse_text(threads + c); };
    {
        const lt::test t = cond_of("~exists (0:r0=1 /\\ [y]=-2 \\/ ~x=3 /\\ P1:r9 = 4)");
        EXPECT_EQ(t.q, lt::quantifier::not_exists);
        EXPECT_EQ(show(*t.condition), "((0:r0=1 /\\ y=-2) \\/ (~x=3 /\\ 1:r9=4))");
        // A register named only by the condition is recorded in its thread.
        EXPECT_EQ(t.threads[1].registers, strings{"r9"});
        EXPECT_EQ(t.threads[0].registers, strings{"r0"});
        EXPECT_EQ(t.condition_text, "~exists (0:r0=1 /\\ [y]=-2 \\/ ~x=3 /\\ P1:r9 = 4)");
    }
    {
        const lt::test t = cond_of("forall\n  (0:r0 == 1 /\\ 0:r0 != 2 /\\ ~ ~(x=1 \\/ y=1))\n;\n");
        EXPECT_EQ(t.q, lt::quantifier::forall);
        EXPECT_EQ(show(*t.condition), "((0:r0=1 /\\ ~0:r0=2) /\\ ~~(x=1 \\/ y=1))");
        EXPECT_EQ(t.condition_text, "forall (0:r0 == 1 /\\ 0:r0 != 2 /\\ ~ ~(x=1 \\/ y=1))");
    }
    {
        const lt::test t = cond_of("exists ()");
        EXPECT_EQ(t.condition->k, lt::cond::kind::true_);
    }
    {
        const lt::test t = cond_of("not exists (true /\\ false)");
        EXPECT_EQ(t.q, lt::quantifier::not_exists);
        EXPECT_EQ(show(*t.condition), "(true /\\ ~true)");
    }
    {
        const lt::test t = cond_of("exists x=1 /\\ y=1 => 0:r0=0 \\/ x=2");
        EXPECT_EQ(show(*t.condition), "((x=1 /\\ (~y=1 \\/ 0:r0=0)) \\/ x=2)");
    }
}

TEST(LitmusParser, ScopeTrees) {
    const std::string threads = "OpenCL T\n{ [x]=0; }\nP0 (global int* x) { }\nP1 (global int* x) { }\n"
                                "P2 (global int* x) { }\nP3 (global int* x) { }\n";
    auto tree_of = [&](const std::string& tree) {
        return parse_text(threads + tree + "\nexists (x=0)\n").tree.devices;
    };
    EXPECT_EQ(tree_of(""), tree_t{});
    EXPECT_EQ(tree_of("scopeTree\n(device\n  (work_group P0 P1)\n  (work_group P2 P3))"),
              (tree_t{{{0, 1}, {2, 3}}}));
    EXPECT_EQ(tree_of("scopeTree (device (work_group (sub_group P0 P1) (sub_group P2)) (work_group P3))"),
              (tree_t{{{0, 1, 2}, {3}}}));
    EXPECT_EQ(tree_of("ScopeTree ((device (work_group P3)) (device (work_group P1 P0) (work_group P2)))"),
              (tree_t{{{3}}, {{1, 0}, {2}}}));
    EXPECT_EQ(tree_of("scopeTree (device P0 P1 (cta P2) (sub_group P3))"), (tree_t{{{0}, {1}, {2}, {3}}}));
    EXPECT_EQ(tree_of("scopeTree (device (kernel (work_group P0 P1)) (kernel (block P2 (warp P3))))"),
              (tree_t{{{0, 1}, {2, 3}}}));
}

TEST(LitmusParser, ThreadsAreSortedById) {
    const lt::test t =
        parse_text("OpenCL T\n{ }\nP1 (global int* b) { }\nP0 (global int* a) { }\nexists (a=0)\n");
    ASSERT_EQ(t.threads.size(), 2u);
    EXPECT_EQ(t.threads[0].id, 0u);
    EXPECT_EQ(t.threads[0].params[0].name, "a");
    EXPECT_EQ(t.threads[1].id, 1u);
    EXPECT_EQ(t.threads[1].pos.line, 3u);
    EXPECT_EQ(init_names(t), (strings{"b", "a"})); // first appearance in the text
}

// ------------------------------------------------------------------------------------------ errors

TEST(LitmusParser, ErrorMissingSemicolonIsReportedAfterThePreviousToken) {
    expect_error(one_thread("  atomic_store(x, 1)\n  atomic_store(x, 2);"), 4, 21, "expected ';'");
    expect_error(one_thread("  int r0 = 1\n  atomic_store(x, 2);"), 4, 13, "expected ';'");
    expect_error(one_thread("  *x = 1"), 4, 9, "expected ';'");
    expect_error("OpenCL T\n{ [x]=0 [y]=0; }\nP0 (global int* x) { }\nexists (x=0)", 2, 8,
                 "expected ';' or '}'");
}

TEST(LitmusParser, ErrorUnknownOrderAndScope) {
    expect_error(one_thread("  atomic_store_explicit(x, 1, memory_order_relax);"), 4, 31,
                 "unknown memory order 'memory_order_relax'");
    expect_error(one_thread("  atomic_store_explicit(x, 1, memory_order_release, memory_scope_galaxy);"), 4,
                 53, "unknown memory scope");
    expect_error(one_thread("  atomic_store_explicit(x, 1, memory_scope_device);"), 4, 31,
                 "expected a memory order");
    expect_error(one_thread("  fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire);"), 4, 51, "expected ','");
    expect_error(one_thread("  fence(CLK_GLOBL_MEM_FENCE, memory_order_acquire, memory_scope_device);"), 4, 9,
                 "unknown fence flag");
}

TEST(LitmusParser, ErrorUnbalancedBraces) {
    // The body of P0 is not closed: the next thread is where '}' was expected.
    expect_error(
        "OpenCL T\n{ [x]=0; }\nP0 (global int* x) {\n  *x = 1;\n\nP1 (global int* x) { }\nexists (x=0)\n", 6,
        1, "expected '}' to close the body of P0 opened at 3:20");
    // An inner block is not closed: the thread's '}' closes it, then P1 is reported.
    expect_error(
        "OpenCL T\n{ [x]=0; }\nP0 (global int* x) {\n  if (1) {\n    *x = 1;\n}\nP1 (global int* x) { }\n"
        "exists (x=0)\n",
        7, 1, "expected '}'");
    // Missing '}' at the end of the file.
    expect_error("OpenCL T\n{ [x]=0; }\nP0 (global int* x) {\n  *x = 1;\n", 5, 1, "found end of file");
    // Missing '}' before the condition.
    expect_error("OpenCL T\n{ [x]=0; }\nP0 (global int* x) {\n  *x = 1;\nexists (x=0)\n", 5, 1,
                 "expected '}'");
    // One '}' too many.
    expect_error("OpenCL T\n{ [x]=0; }\nP0 (global int* x) {\n  *x = 1;\n}\n}\nexists (x=0)\n", 6, 1,
                 "unbalanced '}'");
    // The init block is not closed.
    expect_error("OpenCL T\n{ [x]=0;\nP0 (global int* x) { }\nexists (x=0)\n", 3, 1, "initial state block");
}

TEST(LitmusParser, ErrorBadCondition) {
    const std::string head = "OpenCL T\n{ [x]=0; }\nP0 (global int* x) { int r0 = 1; }\n";
    expect_error(head + "exists (0:r0=1 /\\ )", 4, 19, "expected a condition atom");
    expect_error(head + "exists (0:r0 1)", 4, 14, "expected '='");
    expect_error(head + "exists (0:r0=1", 4, 15, "expected ')'");
    expect_error(head + "exists (3:r0=1)", 4, 9, "thread 3");
    expect_error(head + "exists (q=1)", 4, 9, "unknown location 'q'");
    expect_error(head + "exists (x=1) junk", 4, 14, "after the final condition");
    expect_error(head + "exits (x=1)", 4, 1, "expected scopeTree or the final condition");
    expect_error(head, 4, 1, "found end of file");
    expect_error(head + "exists (x=99999999999999999999)", 4, 11, "out of range");
}

TEST(LitmusParser, ErrorThreadNumbering) {
    expect_error("OpenCL T\n{ }\nP0 (global int* x) { }\nP2 (global int* x) { }\nexists (x=0)\n", 4, 1,
                 "P1 is missing");
    expect_error("OpenCL T\n{ }\nP1 (global int* x) { }\nexists (x=0)\n", 3, 1, "P0 is missing");
    expect_error("OpenCL T\n{ }\nP0 (global int* x) { }\nP0 (global int* x) { }\nexists (x=0)\n", 4, 1,
                 "duplicate thread P0");
    expect_error("OpenCL T\n{ }\nexists (x=0)\n", 3, 1, "expected a thread");
    expect_error("OpenCL T\n{ }\nP99999999 (global int* x) { }\nexists (x=0)\n", 3, 1, "too large");
}

TEST(LitmusParser, ErrorUnknownLocationInAtomicCall) {
    expect_error(one_thread("  atomic_store(q, 1);"), 4, 16, "unknown location 'q'");
    expect_error(one_thread("  int r = atomic_compare_exchange_strong(x, nope, 1);"), 4, 45,
                 "unknown location 'nope'");
    expect_error(one_thread("  *q = 1;"), 4, 4, "unknown location 'q'");
    expect_error(one_thread("  int r = 0;\n  int s = atomic_load(r);"), 5, 23, "'r' is a register");
    expect_error(one_thread("  int s = atomic_load(1);"), 4, 23, "expected a location");
}

TEST(LitmusParser, ErrorScopeTree) {
    const std::string head = "OpenCL T\n{ }\nP0 (global int* x) { }\nP1 (global int* x) { }\n";
    expect_error(head + "scopeTree (device (work_group P0))\nexists (x=0)", 5, 1,
                 "P1 is missing from the scopeTree");
    expect_error(head + "scopeTree (device (work_group P0 P1 P2))\nexists (x=0)", 5, 37, "P2");
    expect_error(head + "scopeTree (device (work_group P0 P0 P1))\nexists (x=0)", 5, 34, "twice");
    expect_error(head + "scopeTree (work_group P0 P1)\nexists (x=0)", 5, 12, "expected '(device ...)'");
    expect_error(head + "scopeTree (device (work_group P0 P1)\nexists (x=0)", 6, 1, "expected");
    expect_error(head + "scopeTree (device (work_group))\nexists (x=0)", 5, 19, "empty work_group");
    expect_error(head + "scopeTree\nexists (x=0)", 6, 1, "expected '(device ...)'");
}

TEST(LitmusParser, ErrorMiscellaneous) {
    expect_error("", 1, 1, "empty input");
    expect_error("   \n  // only a comment\n", 3, 1, "empty input");
    expect_error("OpenCL\n{ }", 1, 7, "missing test name");
    expect_error("Foo T\n{ }", 1, 1, "expected the header line");
    expect_error("OpenCL T\n\"doc\nP0 (global int* x) { }", 2, 1, "unterminated string");
    expect_error("OpenCL T\nP0 (global int* x) { }\nexists (x=0)", 2, 1, "expected the initial state block");
    expect_error("OpenCL T\n{ [x]=0; }\nP0 (global int* x) { /* never closed\n", 3, 22,
                 "unterminated comment");
    expect_error(one_thread("  *x = 1 @ 2;"), 4, 10, "unexpected character '@'");
    expect_error(one_thread("  *x = 12ab;"), 4, 8, "invalid number");
    expect_error(one_thread("  int r = s;"), 4, 11, "undeclared register 's'");
    expect_error(one_thread("  int r;\n  int r;"), 5, 7, "redeclaration");
    expect_error(one_thread("  int x = 1;"), 4, 7, "pointer parameter");
    expect_error(one_thread("  atomic_store(x);"), 4, 17, "expected ','");
    expect_error(one_thread("  atomic_load_explicit(x, memory_order_relaxed, memory_scope_device, 1);"), 4,
                 68, "too many arguments");
    expect_error(
        one_thread("  int r = atomic_compare_exchange_strong_explicit(x, y, 1, memory_order_relaxed);"), 4,
        80, "failure order");
    expect_error(one_thread("  int r = atomic_load_remote_explicit(x);"), 4, 11,
                 "'_remote' goes after '_explicit'");
    expect_error(one_thread("  else *x = 1;"), 4, 3, "'else' without");
    expect_error(one_thread("  L1:\n"), 6, 1, "expected a statement");
    expect_error(one_thread("  int r = barrier(CLK_GLOBAL_MEM_FENCE);"), 4, 11, "is a statement");
    expect_error("OpenCL T\n{ [x]=0; [x]=1; }\nP0 (global int* x) { }\nexists (x=0)", 2, 11,
                 "initialised twice");
    expect_error("OpenCL T\n{ }\nP0 (global int* x, local int* x) { }\nexists (x=0)", 3, 31,
                 "duplicate parameter");
    expect_error("OpenCL T\n{ }\nP0 (global int* y) { }\nP1 (local int* y) { }\nexists (y=0)", 4, 16,
                 "__local here but global in P0");
    expect_error("OpenCL T\n{ }\nP0 (global foo* x) { }\nexists (x=0)", 3, 12, "expected a parameter type");
}

TEST(LitmusParser, ErrorNestingAndSizeLimitsDoNotCrash) {
    expect_error(one_thread("  int r = " + std::string(5000, '(') + "1" + std::string(5000, ')') + ";"), 4, 0,
                 "nesting");
    expect_error(one_thread(std::string(5000, '{') + std::string(5000, '}')), 4, 0, "nesting");
    std::string sum = "  int r = 1";
    for (int i = 0; i < 5000; ++i)
        sum += " + 1";
    expect_error(one_thread(sum + ";"), 4, 0, "expression too large");
    std::string big = "exists (x=0";
    for (int i = 0; i < 5000; ++i)
        big += " /\\ x=0";
    expect_error(one_thread("", big + ")"), 6, 0, "condition too large");
    expect_error(one_thread("", "exists " + std::string(5000, '~') + "x=0"), 6, 0, "nesting");
}

TEST(LitmusParser, UnsupportedConstructs) {
    expect_unsupported(one_thread("  int r = 0;\n  while (r) { r = 0; }"), 5, 3, "'while' loop");
    expect_unsupported(one_thread("  for (;;) { }"), 4, 3, "'for' loop");
    expect_unsupported(one_thread("  foo(x);"), 4, 3, "call to unknown function 'foo'");
    expect_unsupported(one_thread("  int r = bar(1);"), 4, 11, "call to unknown function 'bar'");
    expect_unsupported(one_thread("  atomic_fetch_or_explicit(x, 1, memory_order_relaxed);"), 4, 3,
                       "atomic operation 'atomic_fetch_or_explicit'");
    expect_unsupported(one_thread("  int r = atomic_compare_exchange_weak(x, y, 1);"), 4, 11,
                       "atomic_compare_exchange_weak");
    expect_unsupported(one_thread("  atomic_store(&x, 1);"), 4, 16, "address-of");
    expect_unsupported(one_thread("  *(x + 1) = 1;"), 4, 3, "pointer arithmetic");
    expect_unsupported(one_thread("  atomic_store(x + 1, 1);"), 4, 18, "pointer arithmetic");
    expect_unsupported(one_thread("  int r = 0;\n  r++;"), 5, 4, "'++'");
    expect_unsupported(one_thread("  int r = 0;\n  r += 1;"), 5, 5, "compound assignment");
    expect_unsupported(one_thread("  int r = 6 / 2;"), 4, 13, "operator '/'");
    expect_unsupported(one_thread("  int r = 6 & 2;"), 4, 13, "operator '&'");
    expect_unsupported(one_thread("  int r = x;"), 4, 11, "the pointer 'x' used as a value");
    expect_unsupported(one_thread("  x = 1;"), 4, 3, "assignment to the pointer parameter");
    expect_unsupported(one_thread("  long r = 1;"), 4, 3, "declaration of type 'long'");
    expect_unsupported(one_thread("  int r = 1;\n  r == 1;"), 5, 3, "not an atomic call");
    expect_unsupported(one_thread("  int r = 1;\n  { int r = 2; }"), 5, 9, "shadows");
    expect_unsupported(one_thread("  return;"), 4, 3, "'return' statement");
    expect_unsupported(one_thread("  fence(CLK_IMAGE_MEM_FENCE, memory_order_acquire, memory_scope_device);"),
                       4, 9, "CLK_IMAGE_MEM_FENCE");
    expect_unsupported("C T\n{ }\nP0(int* x) { }\nexists (x=0)", 1, 1, "litmus architecture 'C'");
    expect_unsupported("OpenCL T\n{ 0:r0=1; }\nP0 (global int* x) { }\nexists (x=0)", 2, 3,
                       "register initialisation");
    expect_unsupported("OpenCL T\n{ [x]=y; }\nP0 (global int* x) { }\nexists (x=0)", 2, 7,
                       "location (address)");
    expect_unsupported("OpenCL T\n{ }\nP0 (global int x) { }\nexists (x=0)", 3, 16, "non-pointer parameter");
    expect_unsupported("OpenCL T\n{ }\nP0 (global unsigned* x) { }\nexists (x=0)", 3, 12,
                       "parameter type 'unsigned'");
    expect_unsupported("OpenCL T\n{ }\nP0 (global int* x) { }\nlocations [x;]\nexists (x=0)", 4, 1,
                       "'locations'");
    expect_unsupported("OpenCL T\n{ }\nP0 (global int* x) { }\nexists (0:x=0)", 4, 11, "pointer parameter");
}

TEST(LitmusParser, ParseFileReportsUnreadableFiles) {
    try {
        (void)lt::parse_file("/nonexistent/dir/file.litmus");
        ADD_FAILURE() << "no exception";
    } catch (const lt::parse_error&) {
        ADD_FAILURE() << "a missing file is not a parse_error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("cannot read /nonexistent/dir/file.litmus: ", 0), 0u)
            << e.what();
    }
    const fs::path dir = fs::temp_directory_path();
    EXPECT_THROW((void)lt::parse_file(dir.string()), std::runtime_error);
    const fs::path file = dir / "canopy_litmus_parser_test.litmus";
    {
        std::ofstream out(file);
        out << "OpenCL F\n{ [x]=0; }\nP0 (global int* x) { *x = 1; }\nexists (x=1)\n";
    }
    const lt::test t = lt::parse_file(file.string());
    EXPECT_EQ(t.name, "F");
    EXPECT_EQ(t.file, file.string());
    fs::remove(file);
}

// ------------------------------------------------------------------------------------- robustness

namespace {

// Parsing must either succeed or throw parse_error / unsupported_error — nothing else, never crash.
void parse_must_not_crash(const std::string& text) {
    try {
        (void)lt::parse(text, "fuzz.litmus");
    } catch (const lt::parse_error&) {
    } catch (const lt::unsupported_error&) {
    } catch (const std::exception& e) {
        ADD_FAILURE() << "unexpected exception " << e.what() << " for:\n" << text;
    }
}

const char* const sample = R"(OpenCL Sample
"doc" 
{ [x]=0; y=1; }
P0 (global atomic_int* x, __local int* y, int* z) {
  int r0 = atomic_load_explicit_remote(x, memory_order_acquire, memory_scope_device);
  int r1;
  B1: barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (r0 == 1 && !(r1 < -2)) { *z = r0 * 2 - 1; } else r1 = *y;
  r1 = atomic_compare_exchange_strong_explicit(x, z, 1, memory_order_acq_rel, memory_order_relaxed);
  fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_work_group); // c
}
P1 (global atomic_int* x, __local int* y, int* z) { /* c */ atomic_fetch_add(x, 1); }
scopeTree (device (work_group (sub_group P0) P1))
~exists (0:r0=1 /\ ~(x=2 \/ [y]=-1) /\ ())
)";

} // namespace

TEST(LitmusParser, RobustToEveryTruncation) {
    const std::string s = sample;
    EXPECT_NO_THROW((void)lt::parse(s, "sample.litmus"));
    for (std::size_t n = 0; n < s.size(); ++n)
        parse_must_not_crash(s.substr(0, n));
}

TEST(LitmusParser, RobustToRandomDamage) {
    const std::string s = sample;
    std::mt19937 rng(12345);
    const std::string alphabet = "(){}[];,:*=<>+-!~&|^/%.?\"'\\@# \n\t0123456789abcxyzPr_\x01\xff";
    for (int round = 0; round < 4000; ++round) {
        std::string t = s;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            const std::size_t pos = rng() % t.size();
            switch (rng() % 3) {
            case 0: t[pos] = alphabet[rng() % alphabet.size()]; break;
            case 1: t.erase(pos, 1 + rng() % 8); break;
            default: t.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
            }
            if (t.empty())
                t = "x";
        }
        parse_must_not_crash(t);
    }
}

TEST(LitmusParser, RobustOnCorpusTruncations) {
    REQUIRE_CORPUS();
    for (const char* rel : {"rsp/WSQ2.litmus", "opencl/CT_wsq2.litmus", "rsp/RSP_Test8.litmus"}) {
        std::ifstream in(fs::path(herd_dir()) / rel, std::ios::binary);
        std::stringstream buf;
        buf << in.rdbuf();
        const std::string s = buf.str();
        ASSERT_FALSE(s.empty()) << rel;
        for (std::size_t n = 0; n < s.size(); n += 3)
            parse_must_not_crash(s.substr(0, n));
    }
}
