// bench/table_format.hpp — the numbers in the benches' tables, written one way: thousands separators,
// fixed decimals, and the geometric mean the experiments summarise ratios with.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace canopy::bench {

/// 1234567 -> "1,234,567".
inline std::string fmt_u(std::uint64_t v) {
    const std::string s = std::to_string(v);
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i != 0 && (s.size() - i) % 3 == 0) {
            out += ',';
        }
        out += s[i];
    }
    return out;
}

/// v with `prec` decimals.
inline std::string fmt_f(double v, int prec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

/// The geometric mean of positive ratios (0 for none): the mean a table of speed-ups is summarised by.
inline double geomean(const std::vector<double>& v) {
    if (v.empty()) {
        return 0;
    }
    double s = 0;
    for (const double x : v) {
        s += std::log(x);
    }
    return std::exp(s / static_cast<double>(v.size()));
}

} // namespace canopy::bench
