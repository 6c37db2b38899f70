// The heterogeneous-race detector (docs/race-detector.md has the design and the proofs in words).
//
// Threads are the launch's work-items, by global index. Vector clocks are dense uint32 rows:
//   hrf-indirect, rsp: one clock per work-item; happens-before is (po ∪ sw)+.
//   hrf-direct:        one clock per work-item per scope level (sub-group, work-group, device) plus a
//                      union clock that only serves the reports. A synchronization at level S joins
//                      only the S clocks; program order bumps the own entry of every clock; an earlier
//                      access of t at clock c is ordered before u's current point iff c <= C_u^S[t] for
//                      some S, which is exactly ∪_S (po ∪ so_S)+.
// Every access is stamped with its work-item's own clock, which ticks after each release (release
// store/RMW/fence, barrier, collective), so that what a release publishes is what came before it.
#include "canopy/emulator/race_detector.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "canopy/emulator/address_map.hpp"
#include "canopy/emulator/allocations.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/vocabulary/error.hpp"
#include "site_format.hpp"

namespace canopy::emu {

namespace {

/// A site's file name as a pointer that stays valid for the process: sites usually point at string
/// literals (std::source_location), but the litmus runner's point into its test's file name, and a
/// report outlives the launch in emu::accumulated_races(). Only kept reports are interned (few names).
const char* intern_file(const char* f) {
    if (f == nullptr) {
        return nullptr;
    }
    static std::mutex m;
    static std::set<std::string> names; // node-based: c_str() stays put
    std::lock_guard lock(m);
    return names.insert(f).first->c_str();
}

// Scope levels: sub-group 0, work-group 1, device 2, and system 3 when the launch stands for several
// devices (options::race_block_device). On one device system scope *is* device scope (level 2), which
// keeps single-device pairing unchanged: under HRF a system-scope release pairs with a device-scope
// acquire there, since both name the same instance.
constexpr unsigned system_level = 3;

const char* level_name(unsigned l) {
    return l == 0 ? "sub-group" : l == 1 ? "work-group" : l == 2 ? "device" : "system";
}

bool is_acquire(std::memory_order o) {
    return o == std::memory_order_acquire || o == std::memory_order_consume ||
           o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
bool is_release(std::memory_order o) {
    return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
bool is_atomic(race_op op) { return op != race_op::plain_load && op != race_op::plain_store; }
bool is_write(race_op op) { return op == race_op::plain_store || op == race_op::store || op == race_op::rmw; }

const char* order_name(std::memory_order o) {
    switch (o) {
    case std::memory_order_relaxed: return "relaxed";
    case std::memory_order_consume: return "consume";
    case std::memory_order_acquire: return "acquire";
    case std::memory_order_release: return "release";
    case std::memory_order_acq_rel: return "acq_rel";
    case std::memory_order_seq_cst: return "seq_cst";
    }
    return "?";
}

const char* op_name(race_op op) {
    switch (op) {
    case race_op::plain_load: return "plain read";
    case race_op::plain_store: return "plain write";
    case race_op::load: return "atomic load";
    case race_op::store: return "atomic store";
    case race_op::rmw: return "atomic read-modify-write";
    case race_op::rmw_failed: return "atomic failed compare-exchange";
    }
    return "?";
}

} // namespace

std::string to_string(const race_access& a) {
    std::string s =
        fmt::format("{} of {} bytes at {} ({}; block {} work-item {}, sub-group {} lane {})", op_name(a.op),
                    a.size, a.address, format_site(a.where), a.block, a.thread, a.subgroup, a.lane);
    if (a.atomic()) {
        s += fmt::format(", {} scope, {}{}", to_string(a.scope), order_name(a.order),
                         a.remote ? ", remote" : "");
    }
    if (!a.buffer.empty()) {
        s += " in " + a.buffer;
    }
    return s;
}

std::string to_string(const race_report& r) {
    const std::string replay =
        !r.replay.empty()
            ? r.replay
            : fmt::format("CANOPY_EMU_SEED={} CANOPY_EMU_RACE_CHECK={} (deterministic scheduler)", r.seed,
                          to_string(r.model));
    return fmt::format(
        "heterogeneous race ({}):\n  first:  {}\n  second: {}\n  reason: {}\n  seen {} time(s); "
        "replay: {}",
        to_string(r.model), to_string(r.first), to_string(r.second), r.reason, r.occurrences, replay);
}

struct race_detector::impl {
    // What a release published: the releaser's clock at its scope level, with what pairing needs.
    struct rel {
        std::uint8_t level = 2;
        bool remote = false;
        bool mixed = false; // merged from several work-items' releases (tid: the latest)
        unsigned block = 0, subgroup = 0, tid = 0;
        std::vector<std::uint32_t> vc;  // the clock of that level (hrf-direct) or the clock
        std::vector<std::uint32_t> all; // hrf-direct: the union clock (reports only)
    };
    // An acquire that could not pair with a release it read (kept for the reason of a later report).
    struct miss {
        rel r;
        std::uint8_t acq_level = 2;
        bool acq_remote = false;
    };
    // One access in a location's shadow.
    struct rec {
        unsigned tid = 0;
        std::uint32_t clock = 0;
        race_op op = race_op::plain_load;
        std::uint8_t level = 2;
        bool remote = false;       // remote as the model sees it (hrf-*: never)
        bool asked_remote = false; // remote as the program asked (for reports)
        std::memory_order order = std::memory_order_relaxed;
        site where;
        const void* address = nullptr;
        unsigned size = 0;
        std::uint8_t bytes = 0xF; // which bytes of the shadowed word it touched
    };
    struct cell {
        std::vector<rec> recs; // per (work-item, kind): the latest access not yet known to be superseded
        std::vector<rel> rels; // the release set of the last write (its release sequence)
    };

    race_check_kind model;
    unsigned grid, block, sgsize, n;
    std::uint64_t seed;
    unsigned limit;
    std::vector<unsigned> device; // per work-group (empty: one device)
    bool direct;
    unsigned n_levels; // scope levels with their own instance: 3, or 4 with several devices (system)
    unsigned nvc;      // clocks per work-item
    std::vector<std::uint32_t> clocks;
    std::vector<std::uint32_t> own;
    std::vector<std::vector<rel>> fences;  // per work-item: its release fences (one per level)
    std::vector<std::vector<rel>> pending; // per work-item: releases its relaxed loads read
    std::vector<std::vector<miss>> misses; // per work-item
    address_map index;
    std::vector<cell> cells;
    std::vector<std::uintptr_t> cell_word; // the word each cell shadows

    std::vector<race_report> reports;
    std::map<std::tuple<std::string, unsigned, std::string, unsigned>, std::size_t> seen; // -> report or npos
    std::uint64_t distinct = 0;

    impl(race_check_kind m, unsigned g, unsigned b, unsigned sg, std::uint64_t s, unsigned lim,
         std::vector<unsigned> dev)
        : model(m), grid(g), block(b), sgsize(sg), n(g * b), seed(s), limit(lim), device(std::move(dev)),
          direct(m == race_check_kind::hrf_direct), n_levels(device.empty() ? 3u : 4u),
          nvc(direct ? n_levels + 1 : 1) {
        clocks.assign(static_cast<std::size_t>(nvc) * n * n, 0);
        own.assign(n, 1);
        for (unsigned t = 0; t < n; ++t) {
            for (unsigned k = 0; k < nvc; ++k) {
                vc(k, t)[t] = 1;
            }
        }
        fences.resize(n);
        pending.resize(n);
        misses.resize(n);
    }

    std::uint32_t* vc(unsigned k, unsigned t) { return &clocks[(static_cast<std::size_t>(k) * n + t) * n]; }
    unsigned comp(unsigned level) const { return direct ? level : 0; }
    unsigned union_comp() const { return direct ? n_levels : 0; }

    unsigned block_of(unsigned t) const { return t / block; }
    unsigned sg_of(unsigned t) const { return (t % block) / sgsize; }
    unsigned device_of(unsigned blk) const { return device.empty() ? 0u : device[blk]; }

    unsigned level_of(scope s) const {
        return s == scope::subgroup                            ? 0u
               : s == scope::workgroup                         ? 1u
               : s == scope::system && n_levels > system_level ? system_level
                                                               : 2u;
    }

    /// Is `u` in the instance of scope level `level` that a work-item of (blk, sg) belongs to?
    bool reaches(unsigned level, unsigned blk, unsigned sg, unsigned u) const {
        if (level >= 2) {
            return level == system_level || device_of(blk) == device_of(block_of(u));
        }
        return blk == block_of(u) && (level == 1 || sg == sg_of(u));
    }
    std::string instance(unsigned level, unsigned blk, unsigned sg) const {
        return level == 0   ? fmt::format("sub-group {} of block {}", sg, blk)
               : level == 1 ? fmt::format("work-group {}", blk)
               : level == 2
                   ? (device.empty() ? std::string("the device") : fmt::format("device {}", device_of(blk)))
                   : std::string("the system");
    }

    /// Pairing (and atomic inclusion): does (level a, remote ra) of a work-item at (blk, sg) include
    /// work-item u acting at (level b, remote rb)? hrf-*: one scope, one instance; rsp: RSP's incl.
    bool inclusive(unsigned la, bool ra, unsigned blk, unsigned sg, unsigned lb, bool rb, unsigned u) const {
        const bool a_reaches_u = reaches(la, blk, sg, u);
        if (model != race_check_kind::rsp) {
            return la == lb && a_reaches_u;
        }
        // Instances are symmetric: u is in t's instance of level l iff t is in u's.
        const bool u_reaches_t = reaches(lb, blk, sg, u);
        return (a_reaches_u && u_reaches_t) || (a_reaches_u && ra) || (u_reaches_t && rb);
    }

    std::string why_not(unsigned la, bool ra, unsigned blk, unsigned sg, unsigned lb, bool rb,
                        unsigned u) const {
        const bool a_reaches_u = reaches(la, blk, sg, u);
        const bool u_reaches_t = reaches(lb, blk, sg, u);
        std::vector<std::string> parts;
        if (model != race_check_kind::rsp && la != lb) {
            parts.push_back(fmt::format("{} pairs synchronization only at one scope ({} vs {})",
                                        to_string(model), level_name(la), level_name(lb)));
        }
        if (!a_reaches_u) {
            parts.push_back(
                fmt::format("{}'s scope does not include block {}", instance(la, blk, sg), block_of(u)));
        }
        if (!u_reaches_t && (la != lb || model == race_check_kind::rsp)) {
            parts.push_back(fmt::format("{}'s scope does not include block {}",
                                        instance(lb, block_of(u), sg_of(u)), blk));
        }
        if (model == race_check_kind::rsp) {
            if ((a_reaches_u && !u_reaches_t && !ra) || (u_reaches_t && !a_reaches_u && !rb)) {
                parts.emplace_back("the side whose scope reaches the other is not remote, so no promotion");
            } else if (!a_reaches_u && !u_reaches_t && (ra || rb)) {
                parts.emplace_back("a remote operation's own scope must still reach the other party (RSP "
                                   "footnote 3)");
            }
        } else if (ra || rb) {
            parts.push_back(fmt::format("{} has no remote-scope promotion", to_string(model)));
        }
        std::string s;
        for (const auto& p : parts) {
            s += s.empty() ? p : "; " + p;
        }
        return s;
    }

    void tick(unsigned t) {
        ++own[t];
        for (unsigned k = 0; k < nvc; ++k) {
            vc(k, t)[t] = own[t];
        }
    }

    void join(std::uint32_t* into, const std::vector<std::uint32_t>& from) const {
        for (unsigned i = 0; i < n; ++i) {
            into[i] = std::max(into[i], from[i]);
        }
    }

    rel make_rel(unsigned t, unsigned level, bool remote) {
        rel r;
        r.level = static_cast<std::uint8_t>(level);
        r.remote = remote;
        r.block = block_of(t);
        r.subgroup = sg_of(t);
        r.tid = t;
        const std::uint32_t* c = vc(comp(level), t);
        r.vc.assign(c, c + n);
        if (direct) {
            const std::uint32_t* a = vc(union_comp(), t);
            r.all.assign(a, a + n);
        }
        return r;
    }

    static bool same_key(const rel& a, const rel& b) {
        return a.level == b.level && a.remote == b.remote && a.block == b.block && a.subgroup == b.subgroup;
    }

    /// Adds a release to a set; one with the same pairing key is joined (pairing depends only on it).
    void merge(std::vector<rel>& set, const rel& r) const {
        for (auto& e : set) {
            if (same_key(e, r)) {
                for (unsigned i = 0; i < n; ++i) {
                    e.vc[i] = std::max(e.vc[i], r.vc[i]);
                }
                for (std::size_t i = 0; i < e.all.size(); ++i) {
                    e.all[i] = std::max(e.all[i], r.all[i]);
                }
                e.mixed = e.mixed || r.mixed || e.tid != r.tid;
                e.tid = r.tid;
                return;
            }
        }
        set.push_back(r);
    }

    /// `asked_remote`: the acquire's remote flag as the program gave it (hrf-* ignore it: reports only).
    void acquire(const std::vector<rel>& set, unsigned u, unsigned level, bool remote, bool asked_remote) {
        for (const auto& r : set) {
            if (r.tid == u && !r.mixed) {
                continue; // its own release: program order already has it
            }
            if (inclusive(r.level, r.remote, r.block, r.subgroup, level, remote, u)) {
                join(vc(comp(level), u), r.vc);
                if (direct) {
                    join(vc(union_comp(), u), r.all);
                }
                continue;
            }
            auto& ms = misses[u];
            auto it = std::find_if(ms.begin(), ms.end(), [&](const miss& m) {
                return same_key(m.r, r) && m.acq_level == level && m.acq_remote == asked_remote;
            });
            if (it != ms.end()) {
                it->r = r;
            } else if (ms.size() < 8) {
                ms.push_back(miss{r, static_cast<std::uint8_t>(level), asked_remote});
            }
        }
    }

    cell& cell_at(std::uintptr_t word) {
        const std::size_t i = index.find(word);
        if (i != address_map::npos) {
            return cells[i];
        }
        index.set(word, cells.size());
        cells.emplace_back();
        cell_word.push_back(word);
        return cells.back();
    }

    /// Memory that is being reused for something new (a work-group's shared memory, a fiber stack):
    /// what earlier owners did there is no longer related to what the new owner will do.
    void forget(std::uintptr_t lo, std::uintptr_t hi) {
        lo &= ~std::uintptr_t{3};
        auto clear = [&](std::size_t i) {
            cells[i].recs.clear();
            cells[i].rels.clear();
        };
        if ((hi - lo) / 4 > cells.size()) {
            for (std::size_t i = 0; i < cells.size(); ++i) {
                if (cell_word[i] >= lo && cell_word[i] < hi) {
                    clear(i);
                }
            }
            return;
        }
        for (std::uintptr_t word = lo; word < hi; word += 4) {
            if (const std::size_t i = index.find(word); i != address_map::npos) {
                clear(i);
            }
        }
    }

    bool ordered(const rec& p, unsigned u) {
        for (unsigned k = 0; k < (direct ? n_levels : 1u); ++k) {
            if (p.clock <= vc(k, u)[p.tid]) {
                return true;
            }
        }
        return false;
    }
    bool ordered_in_every_scope(const rec& p, unsigned u) {
        for (unsigned k = 0; k < (direct ? n_levels : 1u); ++k) {
            if (p.clock > vc(k, u)[p.tid]) {
                return false;
            }
        }
        return true;
    }

    race_access describe(const rec& r) const {
        race_access a;
        a.where = r.where;
        a.where.file = intern_file(r.where.file); // reports outlive the launch (and a litmus test's name)
        a.block = block_of(r.tid);
        a.thread = r.tid % block;
        a.subgroup = sg_of(r.tid);
        a.lane = a.thread % sgsize;
        a.address = r.address;
        a.size = r.size;
        a.op = r.op;
        a.scope = r.level == 0   ? scope::subgroup
                  : r.level == 1 ? scope::workgroup
                  : r.level == 2 ? scope::device
                                 : scope::system;
        a.order = r.order;
        a.remote = r.asked_remote;
        a.buffer = describe_allocation(r.address); // only for kept reports: a map lookup under a lock
        return a;
    }

    std::string reason(const rec& p, const rec& c, unsigned u) {
        const unsigned t = p.tid;
        if (is_atomic(p.op) && is_atomic(c.op)) {
            return fmt::format(
                "conflicting atomics whose scopes are not inclusive, and unordered: {}-scope{} {} in "
                "block {} and {}-scope{} {} in block {}: {}",
                level_name(p.level), p.asked_remote ? " remote" : "", op_name(p.op), block_of(t),
                level_name(c.level), c.asked_remote ? " remote" : "", op_name(c.op), block_of(u),
                why_not(p.level, p.asked_remote, block_of(t), sg_of(t), c.level, c.asked_remote, u));
        }
        for (const auto& m : misses[u]) {
            const auto& cover = direct ? m.r.all : m.r.vc;
            if (p.clock <= cover[t]) {
                return fmt::format(
                    "released at {} scope{} in block {} (work-item {}), acquired at {} scope{} in "
                    "block {} (work-item {}): {}",
                    level_name(m.r.level), m.r.remote ? " (remote)" : "", m.r.block, m.r.tid % block,
                    level_name(m.acq_level), m.acq_remote ? " (remote)" : "", block_of(u), u % block,
                    why_not(m.r.level, m.r.remote, m.r.block, m.r.subgroup, m.acq_level, m.acq_remote, u));
            }
        }
        if (direct && p.clock <= vc(union_comp(), u)[t]) {
            return "ordered only by a chain of synchronizations at different scopes: hrf-direct composes "
                   "only "
                   "synchronization of one scope (the pair is ordered under hrf-indirect)";
        }
        return fmt::format(
            "no synchronization orders them: nothing work-item {} of block {} released after the "
            "first access was acquired by work-item {} of block {} before the second",
            t % block, block_of(t), u % block, block_of(u));
    }

    void report(const rec& p, const rec& c, unsigned u) {
        std::string fa = p.where.file ? p.where.file : "?", fb = c.where.file ? c.where.file : "?";
        unsigned la = p.where.line, lb = c.where.line;
        if (std::tie(fb, lb) < std::tie(fa, la)) {
            std::swap(fa, fb);
            std::swap(la, lb);
        }
        auto key = std::make_tuple(fa, la, fb, lb);
        auto it = seen.find(key);
        if (it != seen.end()) {
            if (it->second != static_cast<std::size_t>(-1)) {
                ++reports[it->second].occurrences;
            }
            return;
        }
        ++distinct;
        if (reports.size() >= limit) {
            seen.emplace(key, static_cast<std::size_t>(-1));
            return;
        }
        seen.emplace(key, reports.size());
        race_report r;
        r.first = describe(p);
        r.second = describe(c);
        r.model = model;
        r.reason = reason(p, c, u);
        r.seed = seed;
        reports.push_back(std::move(r));
    }

    void check_and_record(cell& cl, const rec& c, unsigned u) {
        const bool cw = is_write(c.op), ca = is_atomic(c.op);
        for (const auto& p : cl.recs) {
            if (p.tid == u || (!cw && !is_write(p.op)) || (p.bytes & c.bytes) == 0) {
                continue;
            }
            if (ca && is_atomic(p.op) &&
                inclusive(p.level, p.remote, block_of(p.tid), sg_of(p.tid), c.level, c.remote, u)) {
                continue;
            }
            if (!ordered(p, u)) {
                report(p, c, u);
            }
        }
        if (cw && !ca) {
            // A plain write: anything ordered before it in every scope is ordered (in that scope)
            // before whatever this write is ordered before, and whatever it is not ordered before
            // races with this write itself. (Sound for hrf-direct too, unlike dropping on one scope.)
            // Only accesses to bytes this write covers are superseded.
            std::erase_if(cl.recs, [&](const rec& p) {
                return (p.bytes & ~c.bytes) == 0 && ordered_in_every_scope(p, u);
            });
        }
        for (auto& p : cl.recs) {
            if (p.tid == u && is_write(p.op) == cw && is_atomic(p.op) == ca && p.level == c.level &&
                p.remote == c.remote && p.bytes == c.bytes) {
                p = c; // program order: the newer access of the same kind supersedes it
                return;
            }
        }
        cl.recs.push_back(c);
    }

    void access(const work_item& w, const race_event& e) {
        const unsigned u = w.global_id;
        const bool atomic = is_atomic(e.op);
        const unsigned level = atomic ? level_of(e.scope) : 2u;
        const bool remote = atomic && e.remote && model == race_check_kind::rsp;
        const auto a = reinterpret_cast<std::uintptr_t>(e.address);
        const std::uintptr_t first = a & ~std::uintptr_t{3};
        const std::uintptr_t last = (a + std::max(e.size, 1u) - 1) & ~std::uintptr_t{3};

        if (atomic) {
            cell& sync = cell_at(first);
            if (e.op == race_op::load || e.op == race_op::rmw_failed || e.op == race_op::rmw) {
                if (is_acquire(e.order)) {
                    acquire(sync.rels, u, level, remote, atomic && e.remote);
                } else {
                    for (const auto& r : sync.rels) {
                        merge(pending[u], r); // for a later acquire fence of this work-item
                    }
                }
            }
        }
        rec c;
        c.tid = u;
        c.clock = own[u];
        c.op = e.op;
        c.level = static_cast<std::uint8_t>(level);
        c.remote = remote;
        c.asked_remote = atomic && e.remote;
        c.order = e.order;
        c.where = e.where;
        c.address = e.address;
        c.size = e.size;
        const std::uintptr_t end = a + std::max(e.size, 1u);
        for (std::uintptr_t word = first; word <= last; word += 4) {
            c.bytes = 0;
            for (unsigned i = 0; i < 4; ++i) {
                if (word + i >= a && word + i < end) {
                    c.bytes = static_cast<std::uint8_t>(c.bytes | 1u << i);
                }
            }
            check_and_record(cell_at(word), c, u);
        }
        if (!atomic || e.op == race_op::load || e.op == race_op::rmw_failed) {
            return;
        }
        // The write side of an atomic store or RMW: its location's release set.
        cell& sync = cell_at(first);
        const bool releases = is_release(e.order);
        if (e.op == race_op::store) {
            if (releases) {
                sync.rels.clear();
            } else {
                // A relaxed store continues only its own work-item's release sequence (C11's rs, as
                // the RSP model has it); someone else's ends.
                const bool own_only = std::all_of(sync.rels.begin(), sync.rels.end(),
                                                  [&](const rel& r) { return r.tid == u && !r.mixed; });
                if (!own_only) {
                    sync.rels.clear();
                }
            }
        }
        if (releases) {
            merge(sync.rels, make_rel(u, level, remote));
        }
        for (const auto& f : fences[u]) {
            merge(sync.rels, f); // a release fence followed by this atomic write
        }
        if (releases) {
            tick(u);
        }
    }

    void fence(const work_item& w, scope s, std::memory_order o) {
        const unsigned u = w.global_id;
        const unsigned level = level_of(s);
        if (is_acquire(o)) {
            acquire(pending[u], u, level, false, false);
        }
        if (is_release(o)) {
            rel r = make_rel(u, level, false);
            auto& fs = fences[u];
            auto it = std::find_if(fs.begin(), fs.end(), [&](const rel& f) { return same_key(f, r); });
            if (it != fs.end()) {
                *it = std::move(r); // the newer fence of the same scope publishes more
            } else {
                fs.push_back(std::move(r));
            }
            tick(u);
        }
    }

    /// acq_rel among `members` at scope `level`: everyone gets the join of everyone's clock.
    ///
    /// A barrier is also the atomic that fence-fence synchronization needs (C11 [atomics.fences]: a
    /// release fence, an atomic write, a read of it, an acquire fence): every member's release fences
    /// become pending for every other member, and a later acquire fence at a scope whose instance
    /// includes both synchronizes at that scope. That is OpenCL 2.0's work_group_barrier(flags, scope)
    /// (a release fence, the barrier, an acquire fence, all at `scope`), and it is how a sub-group hands
    /// memory over at device scope under HRF-direct: fence DV release; subgroup_barrier; fence DV
    /// acquire. Without the fences the barrier orders only at its own scope.
    template <class Members> void rendezvous(unsigned level, const Members& members) {
        // One joined set (members of one barrier share their instances, so it has at most one entry
        // per level), then one merge per member: O(members x n), not O(members^2 x n). A member's own
        // fences in it are harmless: joining a clock a work-item already has changes nothing.
        std::vector<rel> carried;
        for (unsigned t : members) {
            for (const auto& f : fences[t]) {
                merge(carried, f);
            }
        }
        for (const auto& f : carried) {
            for (unsigned u : members) {
                merge(pending[u], f);
            }
        }
        std::vector<std::uint32_t> j(n, 0);
        for (unsigned k : {comp(level), union_comp()}) {
            std::fill(j.begin(), j.end(), 0);
            for (unsigned t : members) {
                const std::uint32_t* c = vc(k, t);
                for (unsigned i = 0; i < n; ++i) {
                    j[i] = std::max(j[i], c[i]);
                }
            }
            for (unsigned t : members) {
                std::copy(j.begin(), j.end(), vc(k, t));
            }
            if (!direct) {
                break;
            }
        }
        for (unsigned t : members) {
            tick(t);
        }
    }
};

race_detector::race_detector(race_check_kind model, unsigned grid, unsigned block, unsigned subgroup_size,
                             std::uint64_t seed, unsigned report_limit, std::vector<unsigned> block_device) {
    const std::uint64_t n = static_cast<std::uint64_t>(grid) * block;
    const std::uint64_t levels = block_device.empty() ? 3 : 4; // impl::n_levels
    const std::uint64_t clocks = model == race_check_kind::hrf_direct ? levels + 1 : 1;
    const std::uint64_t bytes = clocks * n * n * sizeof(std::uint32_t);
    if (bytes > race_detector_max_clock_bytes) {
        throw canopy::error(fmt::format(
            "emulator: the race detector ({}) keeps {} vector clock(s) of one entry per work-item for each "
            "work-item; this launch has {} x {} = {} work-items, {:.1f} GiB of clocks, above the {} GiB "
            "limit: check it on a smaller grid or block, or a smaller virtual device (CANOPY_EMU_DEVICE)",
            to_string(model), clocks, grid, block, n, static_cast<double>(bytes) / (1u << 30),
            race_detector_max_clock_bytes >> 30));
    }
    if (!block_device.empty() && block_device.size() != grid) {
        throw canopy::error(fmt::format("emulator: the race detector was given the device of {} work-groups "
                                        "for a launch of {} (options::race_block_device)",
                                        block_device.size(), grid));
    }
    p_ = std::make_unique<impl>(model, grid, block, subgroup_size, seed, report_limit,
                                std::move(block_device));
}

race_detector::~race_detector() = default;

void race_detector::access(const work_item& w, const race_event& e) { p_->access(w, e); }

void race_detector::fence(const work_item& w, scope s, std::memory_order o, site) { p_->fence(w, s, o); }

void race_detector::barrier(unsigned block) {
    std::vector<unsigned> members(p_->block);
    for (unsigned t = 0; t < p_->block; ++t) {
        members[t] = block * p_->block + t;
    }
    p_->rendezvous(1, members);
}

void race_detector::collective(unsigned block, unsigned subgroup, lane_mask lanes, collective_kind kind) {
    if (kind != collective_kind::barrier) {
        // broadcast, shuffle, ballot, any/all, scan move values only: in the PTX model shfl.sync,
        // vote.sync and redux.sync are not memory operations and order no memory between lanes, so
        // they create no happens-before here either (the strictest GPU decides; docs/scopes.md).
        return;
    }
    std::vector<unsigned> members;
    for (unsigned l = 0; l < max_subgroup_size; ++l) {
        if (lanes >> l & 1) {
            members.push_back(block * p_->block + subgroup * p_->sgsize + l);
        }
    }
    p_->rendezvous(0, members);
}

void race_detector::forget(const void* p, std::size_t bytes) {
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    p_->forget(lo, lo + bytes);
}

namespace {

// Fixed-width, canonical serialization for race_detector::append_state.
template <class T> void put(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

using rel_bytes = std::string;

} // namespace

void race_detector::append_state(std::string& out) const {
    const impl& d = *p_;
    // A release entry: everything pairing and joining read (mixed and tid decide whether an acquire
    // skips it as its own, or whether a relaxed store continues the sequence). `all` is the union clock
    // of hrf-direct, which decides the reason only, but it is a function of the same history: kept, so
    // that equal bytes mean an equal entry.
    const auto rel_of = [&](const impl::rel& r) {
        rel_bytes b;
        put(b, r.level);
        put(b, static_cast<std::uint8_t>(r.remote));
        put(b, static_cast<std::uint8_t>(r.mixed));
        put(b, r.block);
        put(b, r.subgroup);
        put(b, r.tid);
        b.append(reinterpret_cast<const char*>(r.vc.data()), r.vc.size() * sizeof(std::uint32_t));
        b.append(reinterpret_cast<const char*>(r.all.data()), r.all.size() * sizeof(std::uint32_t));
        return b;
    };
    // A set's order is the order releases arrived in, which two schedules of the same releases need
    // not share, and nothing reads it but as a set: sorted.
    const auto set_of = [&](const std::vector<impl::rel>& set) {
        std::vector<rel_bytes> v;
        v.reserve(set.size());
        for (const auto& r : set) {
            v.push_back(rel_of(r));
        }
        std::sort(v.begin(), v.end());
        put(out, static_cast<std::uint32_t>(v.size()));
        for (const auto& b : v) {
            put(out, static_cast<std::uint32_t>(b.size()));
            out += b;
        }
    };
    out.append(reinterpret_cast<const char*>(d.clocks.data()), d.clocks.size() * sizeof(std::uint32_t));
    out.append(reinterpret_cast<const char*>(d.own.data()), d.own.size() * sizeof(std::uint32_t));
    for (unsigned t = 0; t < d.n; ++t) {
        set_of(d.fences[t]);
        set_of(d.pending[t]);
    }
    // Cells by the word they shadow (their index order is first touch, a property of the schedule); an
    // empty cell is the same as none.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < d.cells.size(); ++i) {
        if (!d.cells[i].recs.empty() || !d.cells[i].rels.empty()) {
            order.push_back(i);
        }
    }
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return d.cell_word[a] < d.cell_word[b]; });
    for (const std::size_t i : order) {
        const impl::cell& c = d.cells[i];
        put(out, d.cell_word[i]);
        set_of(c.rels);
        std::vector<rel_bytes> recs;
        recs.reserve(c.recs.size());
        for (const auto& r : c.recs) {
            // The site too: the pair of sites is what a race is reported (and deduplicated) by.
            rel_bytes b;
            put(b, r.tid);
            put(b, r.clock);
            put(b, r.op);
            put(b, r.level);
            put(b, static_cast<std::uint8_t>(r.remote));
            put(b, static_cast<std::uint8_t>(r.asked_remote));
            put(b, r.order);
            // The file by its text: a site's pointer may be to a copy made per run (the litmus
            // interpreter's thread labels), which would make equal states look different.
            const std::string_view file = r.where.file != nullptr ? r.where.file : "";
            put(b, static_cast<std::uint32_t>(file.size()));
            b += file;
            put(b, r.where.line);
            put(b, reinterpret_cast<std::uintptr_t>(r.address));
            put(b, r.size);
            put(b, r.bytes);
            recs.push_back(std::move(b));
        }
        std::sort(recs.begin(), recs.end());
        put(out, static_cast<std::uint32_t>(recs.size()));
        for (const auto& b : recs) {
            out += b;
        }
    }
}

const std::vector<race_report>& race_detector::reports() const { return p_->reports; }

std::uint64_t race_detector::distinct_races() const { return p_->distinct; }

// ---- hooks called by platform/detail/cpu ----

void race_on_access(work_item& w, const race_event& e) { w.race->access(w, e); }

void race_on_fence(work_item& w, scope s, std::memory_order o, site where) { w.race->fence(w, s, o, where); }

} // namespace canopy::emu
