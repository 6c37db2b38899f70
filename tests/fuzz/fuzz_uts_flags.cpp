// tests/fuzz/fuzz_uts_flags.cpp — fuzz target canopy_fuzz_uts_flags: the UTS reference's raw flags
// (canopy/workloads/uts/params.hpp). The input is a flag line: NUL-separated tokens when it holds a NUL
// (argv as the CLI gets it: a token may hold spaces), else the line as parse_flags(string_view) splits it.
// Oracles: a rejection is bad_params and nothing else; an accepted set is in every flag's documented
// range; and it round-trips: to_flags() of it parses back to the same set, bit for bit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "canopy/workloads/uts/params.hpp"
#include "fuzz_check.hpp"

namespace uts = canopy::workloads::uts;

namespace {

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same(const uts::params& a, const uts::params& b) {
    return a.type == b.type && a.shape == b.shape && a.gen_mx == b.gen_mx && same_double(a.b0, b.b0) &&
           a.root_seed == b.root_seed && same_double(a.q, b.q) && a.m == b.m &&
           same_double(a.shift_depth, b.shift_depth) && a.granularity == b.granularity;
}

void check_ranges(const uts::params& p) {
    const int t = static_cast<int>(p.type), a = static_cast<int>(p.shape);
    CANOPY_FUZZ_CHECK(t >= 0 && t <= 3, "-t out of 0..3 accepted");
    CANOPY_FUZZ_CHECK(a >= 0 && a <= 3, "-a out of 0..3 accepted");
    CANOPY_FUZZ_CHECK(p.gen_mx >= 1 && p.gen_mx <= 1000000, "-d out of 1..1000000 accepted");
    CANOPY_FUZZ_CHECK(std::isfinite(p.b0) && p.b0 >= 0 && p.b0 <= 1e9, "-b out of [0, 1e9] accepted");
    CANOPY_FUZZ_CHECK(std::isfinite(p.q) && p.q >= 0 && p.q <= 1, "-q out of [0, 1] accepted");
    CANOPY_FUZZ_CHECK(p.m >= 0 && p.m <= uts::max_children, "-m out of 0..max_children accepted");
    CANOPY_FUZZ_CHECK(std::isfinite(p.shift_depth) && p.shift_depth >= 0 && p.shift_depth <= 1e6,
                      "-f out of [0, 1e6] accepted");
    CANOPY_FUZZ_CHECK(p.granularity >= 1 && p.granularity <= 1000000, "-g out of 1..1000000 accepted");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    CANOPY_FUZZ_PLANTED_CHECK(size);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    uts::params p;
    try {
        if (text.find('\0') != std::string_view::npos) {
            std::vector<std::string> tokens;
            std::size_t begin = 0;
            for (;;) {
                const std::size_t nul = text.find('\0', begin);
                tokens.emplace_back(text.substr(begin, nul == std::string_view::npos ? nul : nul - begin));
                if (nul == std::string_view::npos) {
                    break;
                }
                begin = nul + 1;
            }
            p = uts::parse_flags(tokens);
        } else {
            p = uts::parse_flags(text);
        }
    } catch (const uts::bad_params&) {
        return 0; // the documented rejection
    }
    check_ranges(p);
    const std::string flags = uts::to_flags(p);
    uts::params back;
    try {
        back = uts::parse_flags(flags);
    } catch (const uts::bad_params&) {
        CANOPY_FUZZ_CHECK(false, "to_flags() of an accepted parameter set does not parse back");
    }
    CANOPY_FUZZ_CHECK(same(p, back), "to_flags() of an accepted parameter set parses back to another set");
    CANOPY_FUZZ_CHECK(uts::to_flags(back) == flags, "to_flags() is not stable under a round trip");
    return 0;
}
