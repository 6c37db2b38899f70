#include "canopy/emulator/options.hpp"

#include <cstdlib>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "canopy/vocabulary/error.hpp"

namespace canopy::emu {

namespace {
/// The one of `choices` whose to_string is `s`; otherwise an error that names them all.
template <class E> E parse_named(const std::string& s, std::initializer_list<E> choices, const char* what) {
    std::string names;
    for (E k : choices) {
        if (s == to_string(k)) {
            return k;
        }
        names += (names.empty() ? "" : ", ") + std::string(to_string(k));
    }
    throw canopy::error(fmt::format("unknown {} '{}' (use one of: {})", what, s, names));
}
} // namespace

const char* to_string(scheduler_kind k) {
    return k == scheduler_kind::deterministic ? "deterministic" : "parallel";
}

scheduler_kind parse_scheduler(const std::string& s) {
    return parse_named(s, {scheduler_kind::deterministic, scheduler_kind::parallel}, "scheduler");
}

const char* to_string(memory_model_kind k) {
    return k == memory_model_kind::coherent ? "coherent" : "scoped";
}

memory_model_kind parse_memory_model(const std::string& s) {
    return parse_named(s, {memory_model_kind::coherent, memory_model_kind::scoped}, "memory model");
}

const char* to_string(race_check_kind k) {
    switch (k) {
    case race_check_kind::none: return "none";
    case race_check_kind::hrf_direct: return "hrf-direct";
    case race_check_kind::hrf_indirect: return "hrf-indirect";
    case race_check_kind::rsp: return "rsp";
    }
    return "?";
}

race_check_kind parse_race_check(const std::string& s) {
    return parse_named(s,
                       {race_check_kind::none, race_check_kind::hrf_direct, race_check_kind::hrf_indirect,
                        race_check_kind::rsp},
                       "race check");
}

namespace {

unsigned long long env_number(const char* name, unsigned long long fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) {
        return fallback;
    }
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 0);
    if (*end != '\0') {
        throw canopy::error(fmt::format("{}='{}' is not a number", name, v));
    }
    return n;
}

} // namespace

options options_from_environment() {
    options o;
    const char* dev = std::getenv("CANOPY_EMU_DEVICE");
    o.device = preset(dev && *dev ? dev : "tiny");
    if (const char* sg = std::getenv("CANOPY_EMU_SUBGROUP"); sg && *sg) {
        o.device = with_subgroup_size(o.device, static_cast<unsigned>(env_number("CANOPY_EMU_SUBGROUP", 0)));
    }
    if (const char* s = std::getenv("CANOPY_EMU_SCHEDULER"); s && *s) {
        o.scheduler = parse_scheduler(s);
    }
    if (const char* m = std::getenv("CANOPY_EMU_MEMORY_MODEL"); m && *m) {
        o.memory_model = parse_memory_model(m);
    }
    if (const char* r = std::getenv("CANOPY_EMU_RACE_CHECK"); r && *r) {
        o.race_check = parse_race_check(r);
    }
    o.site_profile = env_number("CANOPY_EMU_SITE_PROFILE", 0) != 0;
    o.seed = env_number("CANOPY_EMU_SEED", o.seed);
    o.timed = env_number("CANOPY_EMU_TIMED", 0) != 0;
    o.pct_depth = static_cast<unsigned>(env_number("CANOPY_EMU_PCT_DEPTH", o.pct_depth));
    o.pct_steps = env_number("CANOPY_EMU_PCT_STEPS", o.pct_steps);
    o.watchdog_steps = env_number("CANOPY_EMU_WATCHDOG_STEPS", o.watchdog_steps);
    o.spin_limit = env_number("CANOPY_EMU_SPIN_LIMIT", o.spin_limit);
    o.threads = static_cast<unsigned>(env_number("CANOPY_EMU_THREADS", o.threads));
    o.devices = static_cast<unsigned>(env_number("CANOPY_EMU_DEVICES", o.devices));
    o.stack_bytes = static_cast<std::size_t>(env_number("CANOPY_EMU_STACK_KIB", o.stack_bytes / 1024) * 1024);
    return o;
}

options& current_options() {
    static options o = options_from_environment();
    return o;
}

scoped_options::scoped_options(options o) : saved_(current_options()) { current_options() = std::move(o); }

scoped_options::~scoped_options() { current_options() = saved_; }

} // namespace canopy::emu
