// tests/fuzz/fuzz_litmus.cpp — fuzz target canopy_fuzz_litmus: herd's OpenCL litmus dialect
// (canopy/litmus/parser.hpp). The input is a litmus file. Oracles: a rejection is parse_error or
// unsupported_error, positioned (1-based line and column, what() prefixed with the file name) and
// nothing else; an accepted test keeps the AST's promises (threads sorted with ids 0..n-1, registers and
// initial locations named once, a condition, a scopeTree naming every thread exactly once); and a second
// parse of the same text gives the same test (no dependence on uninitialised state).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "canopy/litmus/parser.hpp"
#include "fuzz_check.hpp"

namespace litmus = canopy::litmus;

namespace {

constexpr const char* file_name = "fuzz.litmus";

template <class E> void check_error(const E& e, const std::string& detail) {
    const std::string what = e.what();
    CANOPY_FUZZ_CHECK(what.rfind(std::string(file_name) + ":", 0) == 0,
                      "an error's what() does not start FILE:");
    CANOPY_FUZZ_CHECK(e.file == file_name, "an error names another file");
    CANOPY_FUZZ_CHECK(e.line >= 1 && e.column >= 1, "an error's line or column is not 1-based");
    CANOPY_FUZZ_CHECK(!detail.empty(), "an error without a message");
}

std::size_t cond_atoms(const litmus::cond* c, int depth) {
    CANOPY_FUZZ_CHECK(c != nullptr, "a condition node is null");
    CANOPY_FUZZ_CHECK(depth < 10000, "the condition is deeper than its node limit allows");
    switch (c->k) {
    case litmus::cond::kind::atom:
        CANOPY_FUZZ_CHECK(!c->name.empty(), "a condition atom without a name");
        return 1;
    case litmus::cond::kind::true_: return 0;
    case litmus::cond::kind::not_: return cond_atoms(c->lhs.get(), depth + 1);
    case litmus::cond::kind::and_:
    case litmus::cond::kind::or_:
        return cond_atoms(c->lhs.get(), depth + 1) + cond_atoms(c->rhs.get(), depth + 1);
    }
    CANOPY_FUZZ_CHECK(false, "a condition node of no known kind");
    return 0;
}

void check_test(const litmus::test& t) {
    CANOPY_FUZZ_CHECK(!t.name.empty(), "an accepted test without a name");
    CANOPY_FUZZ_CHECK(t.file == file_name, "test::file is not the file name given");
    CANOPY_FUZZ_CHECK(!t.threads.empty(), "an accepted test without threads");
    for (std::size_t i = 0; i < t.threads.size(); ++i) {
        CANOPY_FUZZ_CHECK(t.threads[i].id == i, "thread ids are not 0..n-1 in order");
        const auto& regs = t.threads[i].registers;
        CANOPY_FUZZ_CHECK(std::set<std::string>(regs.begin(), regs.end()).size() == regs.size(),
                          "a thread lists a register twice");
        std::set<std::string> params;
        for (const auto& p : t.threads[i].params) {
            CANOPY_FUZZ_CHECK(params.insert(p.name).second, "a thread has two parameters of one name");
        }
    }
    std::set<std::string> locations;
    for (const auto& [name, value] : t.init) {
        CANOPY_FUZZ_CHECK(!name.empty() && locations.insert(name).second,
                          "an initial location twice or unnamed");
    }
    CANOPY_FUZZ_CHECK(t.condition != nullptr, "an accepted test without a condition");
    cond_atoms(t.condition.get(), 0);
    if (!t.tree.devices.empty()) {
        std::vector<int> seen(t.threads.size(), 0);
        for (const auto& device : t.tree.devices) {
            for (const auto& group : device) {
                for (unsigned id : group) {
                    CANOPY_FUZZ_CHECK(id < seen.size(), "the scopeTree names a thread that does not exist");
                    ++seen[id];
                }
            }
        }
        for (int n : seen) {
            CANOPY_FUZZ_CHECK(n == 1, "the scopeTree does not name every thread exactly once");
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    CANOPY_FUZZ_PLANTED_CHECK(size);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> warnings;
    litmus::test t;
    try {
        t = litmus::parse(text, file_name, &warnings);
    } catch (const litmus::parse_error& e) {
        check_error(e, e.message);
        return 0;
    } catch (const litmus::unsupported_error& e) {
        check_error(e, e.construct);
        return 0;
    }
    check_test(t);
    for (const std::string& w : warnings) {
        CANOPY_FUZZ_CHECK(w.rfind(std::string(file_name) + ":", 0) == 0, "a warning does not start FILE:");
    }
    std::vector<std::string> warnings2;
    const litmus::test again = litmus::parse(text, file_name, &warnings2);
    CANOPY_FUZZ_CHECK(again.name == t.name && again.condition_text == t.condition_text &&
                          again.threads.size() == t.threads.size() && again.init == t.init &&
                          again.tree.devices == t.tree.devices && warnings2 == warnings,
                      "a second parse of the same text differs");
    return 0;
}
