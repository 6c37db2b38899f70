// The site profile's accumulator (site_profile.hpp), and its report at exit when the environment
// asked for it (CANOPY_EMU_SITE_PROFILE).
#include "canopy/emulator/site_profile.hpp"

#include "canopy/emulator/options.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

namespace canopy::emu {

const char* to_string(site_op op) {
    switch (op) {
    case site_op::load: return "atomic load";
    case site_op::store: return "atomic store";
    case site_op::rmw: return "atomic rmw";
    case site_op::fence: return "fence";
    case site_op::plain_load: return "ld";
    case site_op::plain_store: return "st";
    case site_op::collective: return "collective";
    }
    return "?";
}

class site_profile {
  public:
    struct key {
        const char* file; // a string literal: equal files of different translation units may differ
        unsigned line;
        unsigned op;
        bool operator==(const key& o) const { return file == o.file && line == o.line && op == o.op; }
    };
    struct key_hash {
        std::size_t operator()(const key& k) const {
            return std::hash<const void*>()(k.file) ^
                   (std::size_t{k.line} << 3 | k.op) * 0x9e3779b97f4a7c15ULL;
        }
    };
    struct cost {
        std::uint64_t count = 0, cycles = 0;
    };
    std::mutex m;
    std::unordered_map<key, cost, key_hash> rows;

    ~site_profile() {
        // The environment's request, read as the options read it: the table on stderr at exit (a
        // library caller that set options::site_profile itself reads site_profile_rows() instead).
        try {
            if (!rows.empty() && site_profile_requested()) {
                std::fputs(format_site_profile(collect(), 40).c_str(), stderr);
            }
        } catch (...) { // a malformed environment was reported when it was first read; never throw at exit
        }
    }

    std::vector<site_cost> collect() {
        std::map<std::tuple<std::string, unsigned, unsigned>, cost> merged;
        {
            std::lock_guard<std::mutex> g(m);
            for (const auto& [k, c] : rows) {
                cost& t = merged[{k.file, k.line, k.op}];
                t.count += c.count;
                t.cycles += c.cycles;
            }
        }
        std::vector<site_cost> out;
        out.reserve(merged.size());
        for (const auto& [k, c] : merged) {
            out.push_back(
                {std::get<0>(k), std::get<1>(k), static_cast<site_op>(std::get<2>(k)), c.count, c.cycles});
        }
        std::sort(out.begin(), out.end(), [](const site_cost& a, const site_cost& b) {
            return std::tie(b.cycles, b.count, a.file, a.line) < std::tie(a.cycles, a.count, b.file, b.line);
        });
        return out;
    }
};

void site_profile_note(site_profile& p, const site& where, site_op op, std::uint64_t cycles) {
    std::lock_guard<std::mutex> g(p.m);
    site_profile::cost& c = p.rows[{where.file, where.line, static_cast<unsigned>(op)}];
    ++c.count;
    c.cycles += cycles;
}

bool site_profile_requested() {
    static const bool on = [] {
        try {
            return options_from_environment().site_profile;
        } catch (...) { // reported where the options are read for a launch
            return false;
        }
    }();
    return on;
}

site_profile& process_site_profile() {
    static site_profile p;
    return p;
}

std::vector<site_cost> site_profile_rows() { return process_site_profile().collect(); }

void reset_site_profile() {
    site_profile& p = process_site_profile();
    std::lock_guard<std::mutex> g(p.m);
    p.rows.clear();
}

std::string format_site_profile(const std::vector<site_cost>& rows, std::size_t limit) {
    std::uint64_t total = 0, calls = 0;
    for (const site_cost& r : rows) {
        total += r.cycles;
        calls += r.count;
    }
    std::string s = fmt::format("site profile (CANOPY_EMU_SITE_PROFILE): {} accesses, {} work-item cycles at "
                                "{} sites; costliest first\n",
                                calls, total, rows.size());
    s += fmt::format("{:>7} {:>14} {:>12} {:>9}  {:<12} {}\n", "share", "cycles", "count", "cyc/call", "kind",
                     "site");
    const std::size_t n = limit == 0 || limit > rows.size() ? rows.size() : limit;
    for (std::size_t i = 0; i < n; ++i) {
        const site_cost& r = rows[i];
        const double share =
            total == 0 ? 0.0 : 100.0 * static_cast<double>(r.cycles) / static_cast<double>(total);
        const double per = r.count == 0 ? 0.0 : static_cast<double>(r.cycles) / static_cast<double>(r.count);
        s += fmt::format("{:>6.2f}% {:>14} {:>12} {:>9.1f}  {:<12} {}:{}\n", share, r.cycles, r.count, per,
                         to_string(r.op), r.file, r.line);
    }
    if (n < rows.size()) {
        s += fmt::format("({} more sites)\n", rows.size() - n);
    }
    return s;
}

} // namespace canopy::emu
