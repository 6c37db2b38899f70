#include "herd_oracle.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace canopy::litmus {

herd_outcomes load_herd_outcomes(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        throw std::runtime_error(fmt::format("{}: cannot read herd's outcomes", path));
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(fmt::format("{}: not JSON: {}", path, e.what()));
    }
    if (!j.is_object()) {
        throw std::runtime_error(fmt::format("{}: expected an object of tests", path));
    }
    herd_outcomes out;
    for (const auto& [key, v] : j.items()) {
        try {
            herd_test t;
            t.key = key;
            t.condition_reachable = v.at("condition_reachable").get<bool>();
            t.racy_executions = v.at("racy_executions").get<std::uint64_t>();
            t.allowed_final_states = v.at("allowed_final_states").get<std::vector<std::string>>();
            for (const auto& s : v.at("cas_expected_shared_between_threads")) {
                t.cas_expected_shared.insert(s.get<std::string>());
            }
            for (const auto& [thread, locs] : v.at("locations_used_but_not_parameters").items()) {
                t.used_not_params[thread] = locs.get<std::vector<std::string>>();
            }
            out.emplace(key, std::move(t));
        } catch (const nlohmann::json::exception& e) {
            throw std::runtime_error(fmt::format("{}: test '{}': {}", path, key, e.what()));
        }
    }
    return out;
}

const herd_test* find_herd_test(const herd_outcomes& h, const std::string& file) {
    const std::filesystem::path p(file);
    const std::string key = (p.parent_path().filename() / p.filename()).generic_string();
    auto it = h.find(key);
    return it == h.end() ? nullptr : &it->second;
}

std::map<std::string, std::string> parse_final_state(const std::string& state) {
    std::map<std::string, std::string> out;
    std::size_t at = 0;
    while (at < state.size()) {
        std::size_t end = state.find(';', at);
        if (end == std::string::npos) {
            end = state.size();
        }
        std::string item = state.substr(at, end - at);
        item.erase(std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }),
                   item.end());
        if (const auto eq = item.find('='); eq != std::string::npos) {
            out[item.substr(0, eq)] = item.substr(eq + 1);
        }
        at = end + 1;
    }
    return out;
}

namespace {

bool is_number(const std::string& v) {
    std::size_t i = v.size() > 1 && v[0] == '-' ? 1 : 0;
    return i < v.size() && std::all_of(v.begin() + static_cast<std::ptrdiff_t>(i), v.end(),
                                       [](unsigned char c) { return std::isdigit(c); });
}

/// The name a state's key refers to: "x" for "x", "r0" for "0:r0" (a register of that name).
std::string name_of(const std::string& key) {
    const auto colon = key.find(':');
    return colon == std::string::npos ? key : key.substr(colon + 1);
}

std::string project(const std::map<std::string, std::string>& state, const std::set<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) {
        auto it = state.find(k);
        out += fmt::format("{}={}; ", k, it == state.end() ? "?" : it->second);
    }
    if (!out.empty()) {
        out.pop_back();
    }
    return out;
}

} // namespace

herd_comparison compare_with_herd(const result& r, const herd_test& h) {
    herd_comparison c;
    if (h.racy_executions > 0) {
        c.k = herd_comparison::kind::racy;
        return c;
    }
    if (!h.used_not_params.empty()) {
        c.k = herd_comparison::kind::front_end;
        return c;
    }
    if (h.allowed_final_states.empty()) {
        c.k = herd_comparison::kind::no_states;
        return c;
    }
    std::vector<std::map<std::string, std::string>> herd;
    for (const auto& s : h.allowed_final_states) {
        herd.push_back(parse_final_state(s));
        for (const auto& [k, v] : herd.back()) {
            // Left out: what herd's front end reads differently, by location (or register) name.
            if (r.incomparable.count(name_of(k)) == 0) {
                c.compared.insert(k);
            }
        }
    }
    // herd's states, projected and distinct; a state of ours matches one when they agree on every
    // compared name (a symbolic herd value matching anything).
    std::map<std::string, std::map<std::string, std::string>> herd_projected;
    for (const auto& s : herd) {
        herd_projected.emplace(project(s, c.compared), s);
    }
    c.herd_states = herd_projected.size();
    const auto matches = [&](const std::map<std::string, std::string>& hs,
                             const std::map<std::string, std::string>& mine) {
        for (const auto& k : c.compared) {
            auto a = hs.find(k);
            auto b = mine.find(k);
            if (a == hs.end() || b == mine.end()) {
                return false;
            }
            if (is_number(a->second) &&
                (!is_number(b->second) || std::stoll(a->second) != std::stoll(b->second))) {
                return false;
            }
        }
        return true;
    };
    std::set<std::string> ours;
    std::set<std::string> shown; // herd's projected states some state of ours matched
    for (const auto& [state, n] : r.outcomes) {
        const auto mine = parse_final_state(state);
        const std::string projected = project(mine, c.compared);
        if (!ours.insert(projected).second) {
            continue;
        }
        bool allowed = false;
        for (const auto& [key, hs] : herd_projected) {
            if (matches(hs, mine)) {
                allowed = true;
                shown.insert(key);
            }
        }
        if (!allowed) {
            c.outside.push_back(projected);
        }
    }
    for (const auto& [key, hs] : herd_projected) {
        if (shown.count(key) == 0) {
            c.never_shown.push_back(key);
        }
    }
    return c;
}

} // namespace canopy::litmus
