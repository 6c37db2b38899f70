// The litmus runner: interprets a test's threads inside an emulated kernel on the scoped-cache model.
#include "canopy/litmus/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "canopy/emulator/chooser.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/memory_model.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/race_detector.hpp"
#include "canopy/emulator/work_item.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"

namespace canopy::litmus {

namespace {

using value = std::int64_t;
using location_word = std::int32_t; // atomic_int / int

std::memory_order to_std(order o) {
    switch (o) {
    case order::relaxed: return std::memory_order_relaxed;
    case order::acquire: return std::memory_order_acquire;
    case order::release: return std::memory_order_release;
    case order::acq_rel: return std::memory_order_acq_rel;
    case order::seq_cst: return std::memory_order_seq_cst;
    }
    return std::memory_order_seq_cst;
}

canopy::scope to_canopy(scope s) {
    switch (s) {
    case scope::work_item: // one work-item: no wider than its sub-group's view (the L1)
    case scope::sub_group: return canopy::scope::subgroup;
    case scope::work_group: return canopy::scope::workgroup;
    case scope::device: return canopy::scope::device;
    case scope::all_svm_devices: return canopy::scope::system;
    }
    return canopy::scope::device;
}

/// What a test needs at run time: locations → indices, threads → (work-group, work-item).
struct layout {
    std::vector<std::string> locations;
    std::vector<value> initial;
    std::vector<unsigned> group_of, index_in_group; // by thread id
    std::vector<std::vector<unsigned>> groups;      // work-group → thread ids
    std::vector<unsigned> device_of_group;          // the scopeTree's device of each work-group
    unsigned block = 1;
    // Locations that several threads name as a compare-exchange's `expected`: each thread gets a
    // private copy (see private_expected in make_layout).
    std::vector<bool> private_expected;
    // Non-empty: why the SCM cannot run the test (it can still run on SC memory for a race check).
    std::string scm_unsupported;

    int location(const std::string& name) const {
        auto it = std::find(locations.begin(), locations.end(), name);
        return it == locations.end() ? -1 : static_cast<int>(it - locations.begin());
    }
};

void visit_stmts(const std::vector<stmt_ptr>& body, const std::function<void(const stmt&)>& f);
void visit_expr(const expr* e, const std::function<void(const expr&)>& f) {
    if (!e) {
        return;
    }
    f(*e);
    visit_expr(e->lhs.get(), f);
    visit_expr(e->rhs.get(), f);
    if (e->call) {
        visit_expr(e->call->operand.get(), f);
    }
}
void visit_stmts(const std::vector<stmt_ptr>& body, const std::function<void(const stmt&)>& f) {
    for (const auto& s : body) {
        if (!s) {
            continue;
        }
        f(*s);
        visit_stmts(s->body, f);
    }
}

layout make_layout(const test& t) {
    layout l;
    for (const auto& [name, v] : t.init) {
        l.locations.push_back(name);
        l.initial.push_back(v);
    }
    const unsigned n = static_cast<unsigned>(t.threads.size());
    l.group_of.assign(n, 0);
    l.index_in_group.assign(n, 0);
    // Devices are flattened into one: sound only while no operation uses device scope (an L2 per
    // device would be needed to keep device scope from reaching the other device).
    bool device_scope_used = false, barrier_used = false;
    for (const auto& th : t.threads) {
        for (const auto& p : th.params) {
            if (!p.global) {
                throw unsupported_test(
                    fmt::format("unsupported: local memory ({} of P{}): the SCM models global "
                                "memory only",
                                p.name, th.id));
            }
        }
        visit_stmts(th.body, [&](const stmt& s) {
            barrier_used = barrier_used || s.k == stmt::kind::barrier;
            if (s.k == stmt::kind::fence && s.global_fence && s.fence_scope == scope::device) {
                device_scope_used = true;
            }
            visit_expr(s.value.get(), [&](const expr& e) {
                if (e.call && e.call->scope_ == scope::device) {
                    device_scope_used = true;
                }
            });
        });
    }
    if (t.tree.devices.size() > 1 && device_scope_used) {
        l.scm_unsupported = "unsupported: device-scope operations in a test of several devices (the SCM "
                            "models one device; RSP's compilation schemes are single-device)";
    }
    // herd leaves out the write-back of a failed compare-exchange into *expected, and the RSP tests pass
    // one `zero` location to every thread's CAS (herd/HERD7-OUTCOMES.md). Done in shared memory, the
    // write-back runs another program: a failed CAS stores 1 into `zero`, the next thread's CAS then
    // "expects" 1 and takes a held lock, and the write-back races with every other thread's read of
    // `zero`. As notes/scopes-hrf-rsp.md §5 P13 prescribes (and its verdicts assume), such a location is
    // private to each thread: a copy of its initial value that only that thread reads and writes.
    l.private_expected.assign(l.locations.size(), false);
    {
        std::map<std::string, std::set<unsigned>> users;
        for (const auto& th : t.threads) {
            visit_stmts(th.body, [&](const stmt& s) {
                visit_expr(s.value.get(), [&](const expr& e) {
                    if (e.call && e.call->op == atomic_op::compare_exchange) {
                        users[e.call->expected].insert(th.id);
                    }
                });
            });
        }
        for (const auto& [name, ids] : users) {
            if (const int i = l.location(name); i >= 0 && ids.size() > 1) {
                l.private_expected[static_cast<std::size_t>(i)] = true;
            }
        }
    }
    std::set<unsigned> seen;
    for (unsigned d = 0; d < t.tree.devices.size(); ++d) {
        for (const auto& wg : t.tree.devices[d]) {
            l.groups.push_back(wg);
            l.device_of_group.push_back(d);
        }
    }
    if (l.groups.empty()) { // no scopeTree: every thread its own work-group
        for (unsigned i = 0; i < n; ++i) {
            l.groups.push_back({i});
            l.device_of_group.push_back(0);
        }
    }
    for (unsigned g = 0; g < l.groups.size(); ++g) {
        for (unsigned k = 0; k < l.groups[g].size(); ++k) {
            const unsigned id = l.groups[g][k];
            if (id >= n || !seen.insert(id).second) {
                throw unsupported_test(
                    fmt::format("unsupported: scopeTree names P{} twice or a thread that does "
                                "not exist",
                                id));
            }
            l.group_of[id] = g;
            l.index_in_group[id] = k;
        }
        l.block = std::max<unsigned>(l.block, static_cast<unsigned>(l.groups[g].size()));
    }
    if (seen.size() != n) {
        throw unsupported_test("unsupported: a thread missing from the scopeTree");
    }
    if (barrier_used) {
        for (const auto& g : l.groups) {
            if (g.size() != l.block) {
                throw unsupported_test("unsupported: barriers in work-groups of different sizes");
            }
        }
    }
    return l;
}

/// One thread's interpreter, running on its work-item's fiber.
class interpreter {
  public:
    interpreter(const test& t, const layout& l, const thread& th, location_word* mem, value* regs_out)
        : t_(t), l_(l), th_(th), mem_(mem), regs_out_(regs_out), regs_(th.registers.size(), 0),
          private_(l.initial) {}

    void run() {
        exec(th_.body);
        for (std::size_t i = 0; i < regs_.size(); ++i) {
            regs_out_[i] = regs_[i];
        }
    }

  private:
    location_word* addr(const std::string& name, const position& pos) const {
        const int i = l_.location(name);
        if (i < 0) {
            throw std::runtime_error(
                fmt::format("{}:{}:{}: '{}' is not a location", t_.file, pos.line, pos.column, name));
        }
        return &mem_[i];
    }
    std::size_t reg(const std::string& name) const {
        auto it = std::find(th_.registers.begin(), th_.registers.end(), name);
        if (it == th_.registers.end()) {
            throw std::runtime_error(
                fmt::format("{}: P{} uses register '{}' it never declares", t_.file, th_.id, name));
        }
        return static_cast<std::size_t>(it - th_.registers.begin());
    }

    bool is_private(const std::string& name) const {
        const int i = l_.location(name);
        return i >= 0 && l_.private_expected[static_cast<std::size_t>(i)];
    }
    value& private_copy(const std::string& name) {
        return private_[static_cast<std::size_t>(l_.location(name))];
    }

    /// Where an access is, for race reports: the test file and the construct's line (a site pairs
    /// file:line, and the reports deduplicate by the pair). A construct without a line (a test built
    /// in memory) is named by its thread and its ordinal among the thread's accesses, which is stable
    /// for one path through the thread.
    canopy::site site_of(const position& pos) {
        ++accesses_;
        if (pos.line > 0) {
            return canopy::site(t_.file.empty() ? "<litmus>" : t_.file.c_str(), pos.line);
        }
        return canopy::site(th_label_.c_str(), accesses_);
    }
    /// Tells the launch's race detector (when there is one) about an access the model just performed.
    void note(emu::work_item& w, const void* p, emu::race_op op, const position& pos,
              canopy::scope s = canopy::scope::device, std::memory_order o = std::memory_order_relaxed,
              bool remote = false) {
        if (w.race == nullptr) {
            return;
        }
        emu::race_event e;
        e.address = p;
        e.size = sizeof(location_word);
        e.op = op;
        e.scope = s;
        e.order = o;
        e.remote = remote;
        e.where = site_of(pos);
        emu::race_on_access(w, e);
    }

    static emu::mm_access access(location_word* p, const atomic_call& c) {
        emu::mm_access a;
        a.address = p;
        a.size = sizeof(location_word);
        a.scope = to_canopy(c.scope_);
        a.order = to_std(c.success);
        a.failure_order = to_std(c.failure);
        a.is_signed = true;
        a.remote = c.remote;
        return a;
    }
    static std::uint64_t bits(value v) { return static_cast<std::uint32_t>(static_cast<location_word>(v)); }
    static value from_bits(std::uint64_t b) {
        return static_cast<location_word>(static_cast<std::uint32_t>(b));
    }

    value call(const atomic_call& c) {
        emu::work_item& w = emu::self();
        emu::memory_model& m = *w.model;
        location_word* p = addr(c.location, c.pos);
        emu::yield(w); // every access is a scheduling point
        const canopy::scope sc = to_canopy(c.scope_);
        const std::memory_order mo = to_std(c.success);
        switch (c.op) {
        case atomic_op::load: {
            const value v = from_bits(m.load(w, access(p, c)));
            note(w, p, emu::race_op::load, c.pos, sc, mo, c.remote);
            return v;
        }
        case atomic_op::store: {
            const value v = eval(*c.operand);
            emu::yield(w);
            m.store(w, access(p, c), bits(v));
            note(w, p, emu::race_op::store, c.pos, sc, mo, c.remote);
            return 0;
        }
        case atomic_op::fetch_add:
        case atomic_op::fetch_sub:
        case atomic_op::exchange: {
            const value v = eval(*c.operand);
            emu::yield(w);
            const auto op = c.op == atomic_op::fetch_add   ? emu::mm_rmw::add
                            : c.op == atomic_op::fetch_sub ? emu::mm_rmw::sub
                                                           : emu::mm_rmw::exchange;
            const value old = from_bits(m.rmw(w, access(p, c), op, bits(v), 0, nullptr));
            note(w, p, emu::race_op::rmw, c.pos, sc, mo, c.remote);
            return old;
        }
        case atomic_op::compare_exchange: {
            // OpenCL: `expected` is a plain object; on failure it receives the current value.
            location_word* e = addr(c.expected, c.pos);
            const bool priv = is_private(c.expected);
            value expected = 0;
            if (priv) {
                expected = private_copy(c.expected);
            } else {
                expected = from_bits(m.plain_load(w, e, sizeof(location_word)));
                note(w, e, emu::race_op::plain_load, c.pos);
            }
            const value desired = eval(*c.operand);
            emu::yield(w);
            bool ok = false;
            const value old =
                from_bits(m.rmw(w, access(p, c), emu::mm_rmw::cas, bits(expected), bits(desired), &ok));
            // A failed CAS is an atomic load with the failure order.
            note(w, p, ok ? emu::race_op::rmw : emu::race_op::rmw_failed, c.pos, sc,
                 ok ? mo : to_std(c.failure), c.remote);
            if (!ok) {
                if (priv) {
                    private_copy(c.expected) = old;
                } else {
                    emu::yield(w);
                    m.plain_store(w, e, sizeof(location_word), bits(old));
                    note(w, e, emu::race_op::plain_store, c.pos);
                }
            }
            return ok ? 1 : 0;
        }
        }
        return 0;
    }

    value eval(const expr& e) {
        switch (e.k) {
        case expr::kind::constant: return e.value;
        case expr::kind::reg: return regs_[reg(e.name)];
        case expr::kind::deref: {
            location_word* p = addr(e.name, e.pos);
            if (is_private(e.name)) {
                return private_copy(e.name);
            }
            emu::work_item& w = emu::self();
            emu::yield(w);
            const value v = from_bits(w.model->plain_load(w, p, sizeof(location_word)));
            note(w, p, emu::race_op::plain_load, e.pos);
            return v;
        }
        case expr::kind::unary_not: return eval(*e.lhs) == 0 ? 1 : 0;
        case expr::kind::call: return call(*e.call);
        case expr::kind::binary: {
            if (e.op == "&&") {
                return eval(*e.lhs) != 0 && eval(*e.rhs) != 0 ? 1 : 0;
            }
            if (e.op == "||") {
                return eval(*e.lhs) != 0 || eval(*e.rhs) != 0 ? 1 : 0;
            }
            const value a = eval(*e.lhs), b = eval(*e.rhs);
            if (e.op == "==")
                return a == b;
            if (e.op == "!=")
                return a != b;
            if (e.op == "<")
                return a < b;
            if (e.op == "<=")
                return a <= b;
            if (e.op == ">")
                return a > b;
            if (e.op == ">=")
                return a >= b;
            if (e.op == "+")
                return a + b;
            if (e.op == "-")
                return a - b;
            if (e.op == "*")
                return a * b;
            throw std::runtime_error(fmt::format("{}: unknown operator '{}'", t_.file, e.op));
        }
        }
        return 0;
    }

    void exec(const std::vector<stmt_ptr>& body) {
        for (const auto& s : body) {
            if (s) {
                exec(*s);
            }
        }
    }

    void exec(const stmt& s) {
        switch (s.k) {
        case stmt::kind::declare: regs_[reg(s.name)] = 0; break;
        case stmt::kind::assign: regs_[reg(s.name)] = eval(*s.value); break;
        case stmt::kind::store_plain: {
            const value v = eval(*s.value);
            location_word* p = addr(s.name, s.pos);
            if (is_private(s.name)) {
                private_copy(s.name) = v;
                break;
            }
            emu::work_item& w = emu::self();
            emu::yield(w);
            w.model->plain_store(w, p, sizeof(location_word), bits(v));
            note(w, p, emu::race_op::plain_store, s.pos);
            break;
        }
        case stmt::kind::eval: (void)eval(*s.value); break;
        case stmt::kind::if_:
            if (eval(*s.value) != 0) {
                if (!s.body.empty() && s.body[0]) {
                    exec(*s.body[0]);
                }
            } else if (s.body.size() > 1 && s.body[1]) {
                exec(*s.body[1]);
            }
            break;
        case stmt::kind::block: exec(s.body); break;
        case stmt::kind::fence:
            // A fence with only CLK_LOCAL_MEM_FENCE orders local memory, which holds none of the test's
            // (global) locations: nothing to do for the SCM.
            if (s.global_fence) {
                emu::work_item& w = emu::self();
                emu::yield(w);
                w.model->fence(w, to_canopy(s.fence_scope), to_std(s.fence_order));
                if (w.race != nullptr) {
                    emu::race_on_fence(w, to_canopy(s.fence_scope), to_std(s.fence_order), site_of(s.pos));
                }
            }
            break;
        case stmt::kind::barrier:
            // barrier(CLK_GLOBAL_MEM_FENCE): a work-group barrier with a work-group-scope acq_rel fence,
            // which the work-group's shared L1 already provides. (The engine tells the race detector.)
            canopy::block_barrier();
            break;
        }
    }

    const test& t_;
    const layout& l_;
    const thread& th_;
    location_word* mem_;
    value* regs_out_;
    std::vector<value> regs_;
    std::vector<value> private_; // per location: this thread's copy (used for private_expected ones)
    std::string th_label_ = fmt::format("{}:P{}", t_.name, th_.id);
    unsigned accesses_ = 0;
};

/// Sequentially consistent memory: every access goes straight to memory. For a race check of a test
/// the SCM cannot run (several devices with device scope): the detector's verdict is about SC
/// executions anyway (HRF's definition, docs/race-detector.md), which the deterministic scheduler's
/// interleavings enumerate.
class sc_memory final : public emu::memory_model {
  public:
    std::uint64_t load(emu::work_item&, const emu::mm_access& a) override { return read(a.address); }
    void store(emu::work_item& w, const emu::mm_access& a, std::uint64_t v) override {
        write(a.address, v);
        emu::note_progress(w);
    }
    std::uint64_t rmw(emu::work_item& w, const emu::mm_access& a, emu::mm_rmw op, std::uint64_t operand,
                      std::uint64_t desired, bool* cas_ok) override {
        const std::uint64_t old = read(a.address);
        std::uint64_t v = 0; // every case below sets it (the default throws)
        bool ok = true;
        switch (op) {
        case emu::mm_rmw::add: v = old + operand; break;
        case emu::mm_rmw::sub: v = old - operand; break;
        case emu::mm_rmw::exchange: v = operand; break;
        case emu::mm_rmw::cas:
            ok = static_cast<std::uint32_t>(old) == static_cast<std::uint32_t>(operand);
            v = ok ? desired : old;
            break;
        default: throw std::logic_error("litmus: an RMW the interpreter never issues");
        }
        if (cas_ok != nullptr) {
            *cas_ok = ok;
        }
        if (ok) {
            write(a.address, v);
            emu::note_progress(w);
        }
        return old;
    }
    void fence(emu::work_item&, canopy::scope, std::memory_order) override {}
    std::uint64_t plain_load(emu::work_item&, const void* p, unsigned) override { return read(p); }
    void plain_store(emu::work_item& w, void* p, unsigned, std::uint64_t v) override {
        write(p, v);
        emu::note_progress(w);
    }
    void barrier(unsigned) override {}
    void kernel_end() override {}

  private:
    static std::uint64_t read(const void* p) {
        std::uint32_t v = 0;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void write(void* p, std::uint64_t v) {
        const auto w = static_cast<std::uint32_t>(v);
        std::memcpy(p, &w, sizeof w);
    }
};

bool holds(const cond& c, const test& t, const std::vector<std::vector<value>>& regs,
           const std::vector<value>& locs, const layout& l) {
    switch (c.k) {
    case cond::kind::true_: return true;
    case cond::kind::not_: return !holds(*c.lhs, t, regs, locs, l);
    case cond::kind::and_: return holds(*c.lhs, t, regs, locs, l) && holds(*c.rhs, t, regs, locs, l);
    case cond::kind::or_: return holds(*c.lhs, t, regs, locs, l) || holds(*c.rhs, t, regs, locs, l);
    case cond::kind::atom:
        if (c.thread) {
            const unsigned id = *c.thread;
            if (id >= t.threads.size()) {
                return false;
            }
            const auto& names = t.threads[id].registers;
            auto it = std::find(names.begin(), names.end(), c.name);
            const value v = it == names.end() ? 0 : regs[id][static_cast<std::size_t>(it - names.begin())];
            return v == c.value;
        } else {
            const int i = l.location(c.name);
            return i >= 0 && locs[static_cast<std::size_t>(i)] == c.value;
        }
    }
    return false;
}

} // namespace

namespace {

/// "file:line" of one side of a race, and the unordered pair of both (the per-test deduplication key).
/// The file's name only, as the detector's reports print it: a test's sites are all in one file.
std::string site_text(const canopy::site& s) {
    return fmt::format("{}:{}", std::filesystem::path(s.file).filename().string(), s.line);
}
std::string pair_key(const emu::race_report& r) {
    std::string a = site_text(r.first.where), b = site_text(r.second.where);
    return a < b ? a + " | " + b : b + " | " + a;
}

} // namespace

result run(const test& t, const run_options& o) {
    const layout l = make_layout(t);
    if (!l.scm_unsupported.empty() && o.race_check == emu::race_check_kind::none) {
        throw unsupported_test(l.scm_unsupported);
    }
    const bool sc_only = !l.scm_unsupported.empty();
    const unsigned groups = static_cast<unsigned>(l.groups.size());
    const unsigned nthreads = static_cast<unsigned>(t.threads.size());

    // A virtual device with one compute unit per work-group of the test.
    emu::options opt;
    opt.device = emu::virtual_device{"litmus", groups, 1, 64, 32, 64, 1024, 1024, "one CU per work-group"};
    opt.scheduler = emu::scheduler_kind::deterministic;
    opt.stack_bytes = std::size_t{64} * 1024;
    opt.watchdog_steps = 200000;
    opt.race_check = o.race_check;
    // Every distinct site pair of a run: a test has a handful of accesses, so none is dropped.
    opt.race_report_limit = 1000;
    if (t.tree.devices.size() > 1) {
        // The detector's device scope must not reach the other device, while system (all_svm_devices)
        // scope reaches both: it gets the scopeTree's devices (the SCM runs them flattened, which is
        // sound only without device scope, hence scm_unsupported above).
        opt.race_block_device = l.device_of_group;
    }

    device_buffer<location_word> mem(l.locations.size());
    std::size_t max_regs = 1;
    for (const auto& th : t.threads) {
        max_regs = std::max(max_regs, th.registers.size());
    }
    device_buffer<value> regs(nthreads * max_regs);
    location_word* pm = mem.data();
    value* pr = regs.data();

    result r;
    r.test = t.name;
    r.file = t.file;
    r.scheme = sc_only ? "sequentially consistent memory" : emu::to_string(o.scheme);
    r.condition = t.condition_text;
    r.outcomes_unsupported = l.scm_unsupported;
    r.race_check = o.race_check;
    std::uint64_t satisfied = 0;
    // The test's races over all its runs, by site pair, in the order found.
    std::map<std::string, std::size_t> race_index;
    std::vector<std::string> first_found; // by finding: the run that found it first
    std::string run_label;                // the run in progress, as a reader can replay it
    // Reports print addresses; the test's locations have names ("at 0x... (x)").
    std::vector<std::pair<std::string, std::string>> location_names;
    for (std::size_t i = 0; i < l.locations.size(); ++i) {
        location_names.emplace_back(
            fmt::format("at {} (", static_cast<const void*>(pm + i)),
            fmt::format("at {} = {} (", l.locations[i], static_cast<const void*>(pm + i)));
    }
    const auto named = [&](std::string text) {
        for (const auto& [from, to] : location_names) {
            for (std::size_t at = text.find(from); at != std::string::npos;
                 at = text.find(from, at + to.size())) {
                text.replace(at, from.size(), to);
            }
        }
        return text;
    };

    const auto once = [&](emu::chooser& choices) {
        std::vector<location_word> init(l.initial.begin(), l.initial.end());
        mem.upload(init);
        regs.fill_zero();
        emu::scoped_cache_model scm(groups, choices, o.scheme);
        sc_memory sc;
        emu::memory_model& model = sc_only ? static_cast<emu::memory_model&>(sc) : scm;
        opt.choices = &choices;
        emu::scoped_options scoped(opt);
        const test* tp = &t;
        const layout* lp = &l;
        auto kernel = [=] {
            const unsigned g = canopy::block_id(), k = canopy::thread_id();
            if (k >= lp->groups[g].size()) {
                return;
            }
            const unsigned id = lp->groups[g][k];
            interpreter(*tp, *lp, tp->threads[id], pm, pr + id * max_regs).run();
        };
        emu::run(
            groups, l.block, 0, [](const void* p) { (*static_cast<const decltype(kernel)*>(p))(); }, &kernel,
            &model);
        // (the engine ran model.kernel_end(): every L1 is written back)
        // the outcome
        const auto hm = mem.to_vector();
        const auto hr = regs.to_vector();
        std::vector<std::vector<value>> rv(nthreads);
        std::string key;
        for (unsigned i = 0; i < nthreads; ++i) {
            const auto& names = t.threads[i].registers;
            for (std::size_t k = 0; k < names.size(); ++k) {
                rv[i].push_back(hr[i * max_regs + k]);
                key += fmt::format("{}:{}={}; ", i, names[k], rv[i].back());
            }
        }
        std::vector<value> lv(hm.begin(), hm.end());
        for (std::size_t i = 0; i < l.locations.size(); ++i) {
            key += fmt::format("{}={}; ", l.locations[i], lv[i]);
        }
        if (!key.empty()) {
            key.pop_back();
        }
        const bool sat = !t.condition || holds(*t.condition, t, rv, lv, l);
        const auto& rep = emu::last_report();
        if (!rep.races.empty()) {
            ++r.racy_runs;
        }
        for (const emu::race_report& race : rep.races) {
            const std::string k = pair_key(race);
            auto [it, fresh] = race_index.emplace(k, r.races.size());
            if (fresh) {
                r.races.push_back(race_finding{k, named(emu::to_string(race)), 0, 0});
                first_found.push_back(run_label);
            }
            ++r.races[it->second].runs;
            r.races[it->second].occurrences += race.occurrences;
        }
        ++r.outcomes[key];
        satisfied += sat ? 1 : 0;
        ++r.runs;
    };

    // Exhaustive first: enumerate every choice sequence while the tree stays within the limit.
    bool done = false;
    if (o.exhaustive_limit > 0) {
        emu::dfs_chooser dfs;
        result saved = r;
        const std::uint64_t saved_sat = satisfied;
        bool more = true;
        while (more && r.runs < o.exhaustive_limit) {
            run_label = fmt::format("exhaustive execution {}", r.runs + 1);
            once(dfs);
            more = dfs.next();
        }
        if (!more) {
            r.exhaustive = true;
            done = true;
        } else {
            r = saved; // too large: discard the partial enumeration, sample instead
            satisfied = saved_sat;
            race_index.clear();
            first_found.clear();
        }
    }
    if (!done) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::uint64_t seed = 1; seed <= o.seeds; ++seed) {
            emu::random_chooser rc(seed);
            run_label = fmt::format("the random run with seed {}", seed);
            once(rc);
            if (o.time_budget_seconds > 0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
                    o.time_budget_seconds) {
                break;
            }
        }
    }
    // The detector's replay line names the engine's seed, which a litmus run does not use (its choices
    // come from the runner's chooser): say which of the runner's runs found the race instead.
    for (std::size_t i = 0; i < r.races.size(); ++i) {
        auto& f = r.races[i];
        if (const auto cut = f.text.find("\n  seen "); cut != std::string::npos) {
            f.text.resize(cut);
        }
        f.text += fmt::format("\n  raced in {} of {} run(s); first in {}", f.runs, r.runs, first_found[i]);
    }
    // Does the condition's body hold in some run / in every run?
    const bool some = satisfied > 0, every = satisfied == r.runs;
    r.verdict = every ? "Always" : some ? "Sometimes" : "Never";
    r.observed = t.q == quantifier::forall ? every : some;
    return r;
}

} // namespace canopy::litmus
