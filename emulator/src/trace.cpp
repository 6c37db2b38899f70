// The timeline's session: tracks kept per host thread, and the Chrome trace-event writer.
#include "canopy/emulator/trace.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "canopy/emulator/options.hpp"
#include "canopy/vocabulary/error.hpp"

namespace canopy::emu {

struct trace_session {
    std::string path;
    std::uint64_t max_events = default_trace_events;
    std::FILE* file = nullptr; // opened by trace_open, so that a bad path fails before any launch
    bool timed = false;
    std::string scheduler;
    std::string device;
    unsigned compute_units = 0;
    std::uint64_t launches = 0;
    std::uint64_t now = 0; // where the next launch starts on the time axis
    // Tracks by (slot, sub-group); a deque keeps their addresses while new ones are added.
    std::deque<trace_track> tracks;
    std::map<std::pair<unsigned, unsigned>, trace_track*> by_slot;
    std::vector<trace_track*> launch_tracks; // this launch's, indexed slot * subgroups + sub-group
    unsigned launch_subgroups = 0;
};

namespace {

thread_local std::unique_ptr<trace_session> session_;

// A track's thread id in its CU's process: unique per (slot, sub-group); sub-groups per work-group are
// at most 1,024 / 32.
constexpr unsigned tid_of(const trace_track& t) { return t.slot * 64 + t.subgroup; }

std::string track_name(const trace_track& t) {
    if (t.first_block == t.last_block) {
        return fmt::format("wg {} sg {}", t.first_block, t.subgroup);
    }
    return fmt::format("slot {} sg {} (wg {}..{})", t.slot, t.subgroup, t.first_block, t.last_block);
}

std::string counter_name(const trace_track& t, const trace_counter_record& c) {
    switch (c.kind) {
    case trace_counter::outstanding: return to_string(c.kind);
    case trace_counter::private_queue: return fmt::format("private queue, {}", track_name(t));
    case trace_counter::workgroup_queue: return fmt::format("work-group queue {}", c.index);
    case trace_counter::device_queue: return fmt::format("device queue {}", c.index);
    }
    return "?";
}

// Device-wide counters go to the "device" process, the others to the track's CU.
bool device_wide(trace_counter k) {
    return k == trace_counter::outstanding || k == trace_counter::device_queue;
}

class writer {
  public:
    explicit writer(std::FILE* f) : f_(f) {}
    void event(const std::string& body) {
        buf_ += first_ ? "\n" : ",\n";
        first_ = false;
        buf_ += body;
        ++events_;
        if (buf_.size() > (1u << 20)) {
            flush();
        }
    }
    void raw(const std::string& s) { buf_ += s; }
    void flush() {
        if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
            ok_ = false;
        }
        buf_.clear();
    }
    bool ok() const { return ok_; }
    std::uint64_t events() const { return events_; }

  private:
    std::FILE* f_;
    std::string buf_;
    bool first_ = true, ok_ = true;
    std::uint64_t events_ = 0;
};

/// `n`: an aggregated span's count of the spans it stands for -- 0 too, for the time a span that
/// began in an earlier window spent in this one (absent, a reader would count it as one more span);
/// nullopt: a span as recorded.
std::string span_event(unsigned pid, unsigned tid, trace_kind k, std::uint64_t ts, std::uint64_t dur,
                       std::uint64_t arg, std::optional<std::uint64_t> n) {
    std::string args;
    if (const char* a = arg_name(k)) {
        args = fmt::format("\"{}\":{}", a, arg);
    }
    if (n) {
        args += fmt::format("{}\"n\":{}", args.empty() ? "" : ",", *n);
    }
    return fmt::format(
        R"({{"name":"{}","cat":"canopy","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
        to_string(k), pid, tid, ts, dur, args);
}

std::string counter_event(unsigned pid, const std::string& name, std::uint64_t ts, std::uint64_t v) {
    return fmt::format(R"({{"name":"{}","cat":"canopy","ph":"C","pid":{},"ts":{},"args":{{"value":{}}}}})",
                       name, pid, ts, v);
}

// Aggregation (past max_events): per track and window of `width` time units, the time spent in each
// kind (exclusive of nested spans: a barrier inside a pick is barrier time), how many spans began in
// the window and the sum of their arguments; each window becomes one span per kind, laid end to end.
// The fractions per window -- what plot_timeline.py draws -- and the sums of spans and arguments are
// kept; the order of spans inside a window is not.
struct window_kind {
    std::uint64_t time = 0, n = 0, arg = 0;
};
using window_row = std::array<window_kind, trace_kinds>;

void aggregate_track(const trace_track& t, std::uint64_t width, std::map<std::uint64_t, window_row>& rows) {
    std::vector<trace_span_record> s = t.spans;
    std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; // parents before their children
    });
    auto attribute = [&](std::uint64_t a, std::uint64_t b, trace_kind k) {
        while (a < b) {
            const std::uint64_t w = a / width;
            const std::uint64_t e = std::min(b, (w + 1) * width);
            rows[w][static_cast<unsigned>(k)].time += e - a;
            a = e;
        }
    };
    std::vector<const trace_span_record*> stack;
    std::uint64_t cursor = 0;
    auto pop_until = [&](std::uint64_t until) {
        while (!stack.empty() && stack.back()->end <= until) {
            attribute(cursor, stack.back()->end, stack.back()->kind);
            cursor = std::max(cursor, stack.back()->end);
            stack.pop_back();
        }
    };
    for (const auto& x : s) {
        pop_until(x.begin);
        if (!stack.empty()) {
            attribute(cursor, x.begin, stack.back()->kind);
        }
        cursor = x.begin;
        stack.push_back(&x);
        auto& cell = rows[x.begin / width][static_cast<unsigned>(x.kind)];
        ++cell.n;
        cell.arg += x.arg;
    }
    pop_until(~std::uint64_t{0});
}

} // namespace

void trace_open(const std::string& path, std::uint64_t max_events) {
    if (session_) {
        throw canopy::error(fmt::format("emulator: a trace is already being recorded to '{}' on this thread",
                                        session_->path));
    }
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        throw canopy::error(fmt::format("cannot write the trace to '{}': {} (give a path in an existing, "
                                        "writable directory)",
                                        path, std::strerror(errno)));
    }
    session_ = std::make_unique<trace_session>();
    session_->path = path;
    session_->max_events = max_events == 0 ? default_trace_events : max_events;
    session_->file = f;
}

bool trace_is_open() { return session_ != nullptr; }

trace_session* trace_launch_begin(const options& opt, unsigned slots, unsigned subgroups) {
    trace_session* s = session_.get();
    if (s == nullptr) {
        return nullptr;
    }
    if (s->launches == 0) {
        s->timed = opt.timed && opt.scheduler == scheduler_kind::deterministic;
        s->scheduler = to_string(opt.scheduler);
        s->device = opt.device.name;
    }
    s->compute_units = std::max(s->compute_units, opt.device.compute_units);
    s->launch_subgroups = subgroups;
    s->launch_tracks.assign(std::size_t{slots} * subgroups, nullptr);
    const std::size_t limit = std::max<std::size_t>(
        1u << 16, 16 * s->max_events / std::max<std::size_t>(1, s->launch_tracks.size()));
    for (unsigned slot = 0; slot < slots; ++slot) {
        for (unsigned g = 0; g < subgroups; ++g) {
            trace_track*& t = s->by_slot[{slot, g}];
            if (t == nullptr) {
                t = &s->tracks.emplace_back();
                t->slot = slot;
                t->subgroup = g;
                t->cu = slot % opt.device.compute_units; // as the engine deals slots
            }
            t->timed = s->timed;
            t->base = s->now;
            t->limit = std::max(t->limit, limit);
            s->launch_tracks[std::size_t{slot} * subgroups + g] = t;
        }
    }
    return s;
}

trace_track* trace_track_for(trace_session* s, unsigned slot, unsigned subgroup, unsigned cu, unsigned block,
                             const std::uint64_t* steps) {
    if (s == nullptr) {
        return nullptr;
    }
    trace_track* t = s->launch_tracks[std::size_t{slot} * s->launch_subgroups + subgroup];
    if (t->steps != steps || t->last_block != block || t->blocks == 0) {
        t->cu = cu;
        t->steps = steps;
        t->first_block = std::min(t->first_block, block);
        t->last_block = std::max(t->last_block, block);
        ++t->blocks;
    }
    return t;
}

void trace_launch_end(trace_session* s, std::uint64_t cycles, std::uint64_t steps) {
    if (s == nullptr) {
        return;
    }
    ++s->launches;
    s->now += s->timed ? cycles : steps;
    for (trace_track* t : s->launch_tracks) {
        t->steps = nullptr; // the worker's counter dies with the launch
    }
    s->launch_tracks.clear();
}

trace_summary trace_close() {
    if (!session_) {
        throw canopy::error("emulator: trace_close() without trace_open()");
    }
    std::unique_ptr<trace_session> s = std::move(session_);
    trace_summary r;
    r.path = s->path;
    r.time_unit = s->timed ? "simulated cycles" : "scheduler steps";
    r.launches = s->launches;
    std::uint64_t end = 0;
    for (const trace_track& t : s->tracks) {
        if (t.blocks == 0) {
            continue;
        }
        ++r.tracks;
        r.spans += t.spans.size();
        r.counters += t.counters.size();
        r.dropped += t.dropped;
        for (const auto& x : t.spans) {
            end = std::max(end, x.end);
        }
    }
    const unsigned device_pid = s->compute_units;
    const std::uint64_t recorded = r.spans + r.counters;
    if (recorded > s->max_events) {
        // Windows such that every track's aggregated spans (one per kind and window) and counters fit.
        const std::uint64_t per_track =
            std::max<std::uint64_t>(1, s->max_events / std::max<std::uint64_t>(1, r.tracks));
        const std::uint64_t windows =
            std::max<std::uint64_t>(1, per_track / (trace_kinds + 5)); // spans, 4 counter series, slack
        r.window = std::max<std::uint64_t>(1, (end + windows - 1) / windows);
    }

    writer out(s->file);
    out.raw(
        fmt::format(R"({{"displayTimeUnit":"ns","otherData":{{"format":"canopy-trace 1","time_unit":"{}",)"
                    R"("scheduler":"{}","device":"{}","launches":{},"spans":{},"counter_samples":{},)"
                    R"("max_events":{},"aggregated_window":{},"dropped":{}}},"traceEvents":[)",
                    r.time_unit, s->scheduler, s->device, r.launches, r.spans, r.counters, s->max_events,
                    r.window, r.dropped));
    for (unsigned cu = 0; cu < s->compute_units; ++cu) {
        out.event(
            fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"CU {}"}}}})", cu, cu));
        out.event(fmt::format(
            R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})", cu, cu));
    }
    out.event(
        fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"device"}}}})", device_pid));
    for (const trace_track& t : s->tracks) {
        if (t.blocks == 0) {
            continue;
        }
        const unsigned tid = tid_of(t);
        out.event(fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                              t.cu, tid, track_name(t)));
        out.event(fmt::format(
            R"({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})", t.cu,
            tid, tid));
        if (r.window == 0) {
            for (const auto& x : t.spans) {
                out.event(span_event(t.cu, tid, x.kind, x.begin, x.end - x.begin, x.arg, std::nullopt));
            }
            for (const auto& c : t.counters) {
                out.event(counter_event(device_wide(c.kind) ? device_pid : t.cu, counter_name(t, c), c.at,
                                        c.value));
            }
            continue;
        }
        std::map<std::uint64_t, window_row> rows;
        aggregate_track(t, r.window, rows);
        for (const auto& [w, row] : rows) {
            std::uint64_t at = w * r.window;
            for (unsigned k = 0; k < trace_kinds; ++k) {
                const window_kind& c = row[k];
                if (c.time == 0 && c.n == 0) {
                    continue;
                }
                out.event(span_event(t.cu, tid, static_cast<trace_kind>(k), at, c.time, c.arg, c.n));
                at += c.time;
            }
        }
        // Counters: the last sample of each series in each window.
        std::map<std::pair<std::string, std::uint64_t>, const trace_counter_record*> last;
        for (const auto& c : t.counters) {
            const trace_counter_record*& l = last[{counter_name(t, c), c.at / r.window}];
            if (l == nullptr || l->at <= c.at) {
                l = &c;
            }
        }
        for (const auto& [key, c] : last) {
            out.event(counter_event(device_wide(c->kind) ? device_pid : t.cu, key.first, c->at, c->value));
        }
    }
    out.raw("\n]}\n");
    out.flush();
    r.events = out.events();
    const bool closed = std::fclose(s->file) == 0;
    if (!out.ok() || !closed) {
        throw canopy::error(fmt::format("cannot write the trace to '{}': {}", r.path, std::strerror(errno)));
    }
    if (r.window != 0) {
        r.note =
            fmt::format("trace: {} spans and {} counter samples exceed the cap of {} events; each track is "
                        "aggregated into windows of {} {} (one span per kind and window, args.n = the spans "
                        "it stands for); raise the cap with --trace-events",
                        r.spans, r.counters, s->max_events, r.window, r.time_unit);
    }
    if (r.dropped != 0) {
        r.note +=
            fmt::format("{}trace: {} spans or samples past the in-memory bound of a track were not kept "
                        "(the trace ends early on those tracks); raise --trace-events",
                        r.note.empty() ? "" : "\n", r.dropped);
    }
    return r;
}

} // namespace canopy::emu
