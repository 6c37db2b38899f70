// The litmus runner: interprets a test's threads inside an emulated kernel on the scoped-cache model.
#include "canopy/litmus/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
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

using emu::state_caching_dfs;
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

/// Sequentially consistent memory for the race exploration: every access reads and writes memory
/// itself, at once, in the deterministic scheduler's order; no cache, no environment transition, no
/// choice. HRF and RSP define races over SC candidate executions (notes §1.3, §3.3), and under this
/// model the schedule is one: the set of runs is exactly the set of the test's SC executions. Scopes,
/// orders, fences and barriers order nothing here (SC already orders everything); they reach the race
/// detector, which is where they mean something.
class coherent_model final : public emu::memory_model {
  public:
    std::uint64_t load(emu::work_item& w, const emu::mm_access& a) override {
        const std::uint64_t v = read(a.address, a.size);
        emu::observe(w, v); // the value reaches the work-item's locals: part of its state
        return v;
    }
    void store(emu::work_item& w, const emu::mm_access& a, std::uint64_t v) override {
        write(a.address, a.size, v);
        emu::note_progress(w);
    }
    std::uint64_t rmw(emu::work_item& w, const emu::mm_access& a, emu::mm_rmw op, std::uint64_t operand,
                      std::uint64_t desired, bool* cas_ok) override {
        const std::uint64_t old = read(a.address, a.size);
        const std::uint64_t mask = a.size >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * a.size)) - 1;
        std::uint64_t next = old;
        bool ok = true;
        switch (op) {
        case emu::mm_rmw::add: next = old + operand; break;
        case emu::mm_rmw::sub: next = old - operand; break;
        case emu::mm_rmw::and_: next = old & operand; break;
        case emu::mm_rmw::or_: next = old | operand; break;
        case emu::mm_rmw::xor_: next = old ^ operand; break;
        case emu::mm_rmw::min:
        case emu::mm_rmw::max: {
            // The litmus interpreter issues neither; kept total for the interface (32-bit signed).
            const auto x = static_cast<std::int32_t>(old), y = static_cast<std::int32_t>(operand);
            next = static_cast<std::uint32_t>(op == emu::mm_rmw::min ? std::min(x, y) : std::max(x, y));
            break;
        }
        case emu::mm_rmw::exchange: next = operand; break;
        case emu::mm_rmw::cas:
            ok = (old & mask) == (operand & mask);
            next = ok ? desired : old;
            break;
        }
        if (cas_ok != nullptr) {
            *cas_ok = ok;
        }
        if (ok) {
            write(a.address, a.size, next & mask);
            emu::note_progress(w);
        }
        emu::observe(w, old);
        emu::observe(w, ok ? 1 : 0);
        return old;
    }
    void fence(emu::work_item&, canopy::scope, std::memory_order) override {}
    std::uint64_t plain_load(emu::work_item& w, const void* p, unsigned size) override {
        const std::uint64_t v = read(p, size);
        emu::observe(w, v);
        return v;
    }
    void plain_store(emu::work_item& w, void* p, unsigned size, std::uint64_t v) override {
        write(p, size, v);
        emu::note_progress(w);
    }
    void barrier(unsigned) override {}
    void kernel_end() override {}

  private:
    static std::uint64_t read(const void* p, unsigned size) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, size); // little-endian: the low `size` bytes, as memory_model's values travel
        return v;
    }
    static void write(void* p, unsigned size, std::uint64_t v) { std::memcpy(p, &v, size); }
};

/// What a test needs at run time: locations → indices, threads → (work-group, work-item).
struct layout {
    std::vector<std::string> locations;
    std::vector<value> initial;
    std::vector<unsigned> group_of, index_in_group; // by thread id
    std::vector<std::vector<unsigned>> groups;      // work-group → thread ids
    std::vector<unsigned> device_of_group;          // the scopeTree's device of each work-group
    unsigned block = 1;
    // OpenCL local memory: a location some thread takes as a __local pointer lives in each work-group's
    // scratchpad, one copy per work-group (local_slot: its index there; -1: global memory).
    std::vector<int> local_slot;
    unsigned locals = 0;
    // The work-group whose copy a local location's final value is read from (the first, in thread
    // order, that names it), and every work-group that names it.
    std::vector<unsigned> local_home;
    std::vector<std::set<unsigned>> local_groups;
    // Locations that several threads name as a compare-exchange's `expected`: each thread gets a
    // private copy (see private_expected in make_layout).
    std::vector<bool> private_expected;

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
    bool barrier_used = false;
    l.local_slot.assign(l.locations.size(), -1);
    for (const auto& th : t.threads) {
        for (const auto& p : th.params) {
            if (const int i = l.location(p.name);
                !p.global && i >= 0 && l.local_slot[static_cast<std::size_t>(i)] < 0) {
                l.local_slot[static_cast<std::size_t>(i)] = static_cast<int>(l.locals++);
            }
        }
        visit_stmts(th.body,
                    [&](const stmt& s) { barrier_used = barrier_used || s.k == stmt::kind::barrier; });
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
    l.local_home.assign(l.locations.size(), 0);
    l.local_groups.assign(l.locations.size(), {});
    for (const auto& th : t.threads) { // threads are sorted by id
        for (const auto& p : th.params) {
            if (const int i = l.location(p.name); i >= 0 && l.local_slot[static_cast<std::size_t>(i)] >= 0) {
                auto& groups = l.local_groups[static_cast<std::size_t>(i)];
                if (groups.empty()) {
                    l.local_home[static_cast<std::size_t>(i)] = l.group_of[th.id];
                }
                groups.insert(l.group_of[th.id]);
            }
        }
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
    // local_mem: this thread's work-group's scratchpad (its copies of the local locations).
    // merge_local_steps: the race exploration's runs (see point()).
    interpreter(const test& t, const layout& l, const thread& th, location_word* mem,
                location_word* local_mem, value* regs_out, const emu::chooser* choices,
                bool merge_local_steps)
        : t_(t), l_(l), th_(th), mem_(mem), local_mem_(local_mem), regs_out_(regs_out), choices_(choices),
          merge_local_(merge_local_steps), regs_(th.registers.size(), 0), private_(l.initial) {}

    void run() {
        exec(th_.body);
        for (std::size_t i = 0; i < regs_.size(); ++i) {
            regs_out_[i] = regs_[i];
        }
    }

  private:
    /// The scheduling point before a shared operation (an access, a fence). In the race exploration
    /// (SC memory), a step that has not yet performed a shared operation - the thread's start, a
    /// store's operand - runs on into the next one instead of yielding: what it did so far is local to
    /// the thread and commutes with every other thread's steps, so a yield there would only add
    /// interleavings with the same sequence of shared operations, the same SC execution (and the same
    /// detector input). A step still holds at most one shared operation, so no order of those is lost.
    /// The SCM's runs yield at every point: there an environment transition may fire at each.
    void point(emu::work_item& w) {
        if (merge_local_ && !shared_in_step_) {
            return;
        }
        emu::yield(w);
        shared_in_step_ = false;
    }

    location_word* addr(const std::string& name, const position& pos) const {
        const int i = l_.location(name);
        if (i < 0) {
            throw std::runtime_error(
                fmt::format("{}:{}:{}: '{}' is not a location", t_.file, pos.line, pos.column, name));
        }
        const int slot = l_.local_slot[static_cast<std::size_t>(i)];
        return slot >= 0 ? &local_mem_[slot] : &mem_[i];
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
        shared_in_step_ = true; // after every shared operation (point())
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
        point(w); // every access is a scheduling point
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
            point(w);
            m.store(w, access(p, c), bits(v));
            note(w, p, emu::race_op::store, c.pos, sc, mo, c.remote);
            return 0;
        }
        case atomic_op::fetch_add:
        case atomic_op::fetch_sub:
        case atomic_op::exchange: {
            const value v = eval(*c.operand);
            point(w);
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
            point(w);
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
                    point(w);
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
            point(w);
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
        // A run the exhaustive exploration cut at a visited state ends as fast as it can: only the
        // barriers still run (the others of the work-group wait at them).
        if (s.k != stmt::kind::barrier && s.k != stmt::kind::block && choices_->settled()) {
            return;
        }
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
            point(w);
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
            // A fence with only CLK_LOCAL_MEM_FENCE orders local memory: the scratchpad performs every
            // access at once and in order, so there is nothing left for it to do.
            if (s.global_fence) {
                emu::work_item& w = emu::self();
                point(w);
                w.model->fence(w, to_canopy(s.fence_scope), to_std(s.fence_order));
                shared_in_step_ = true;
                if (w.race != nullptr) {
                    emu::race_on_fence(w, to_canopy(s.fence_scope), to_std(s.fence_order), site_of(s.pos));
                }
            }
            break;
        case stmt::kind::barrier:
            // barrier(flags): a work-group barrier with a work-group-scope acq_rel fence on the flagged
            // memories, which the work-group's shared L1 (global) and its scratchpad (local) already
            // provide. (The engine tells the race detector.)
            emu::observe(emu::self(), 0xba77); // at the barrier: a position of its own
            canopy::block_barrier();
            // The barrier's completion is shared (it joins the work-group's clocks) and may have run in
            // this step (the last to arrive does not block): the next operation gets a step of its own.
            shared_in_step_ = true;
            break;
        }
    }

    const test& t_;
    const layout& l_;
    const thread& th_;
    location_word* mem_;
    location_word* local_mem_;
    value* regs_out_;
    const emu::chooser* choices_; // the run's: settled() once the exploration has cut the run
    bool merge_local_ = false;    // point(): merge local steps into the next shared operation's
    bool shared_in_step_ = false; // a shared operation since the last yield
    std::vector<value> regs_;
    std::vector<value> private_; // per location: this thread's copy (used for private_expected ones)
    std::string th_label_ = fmt::format("{}:P{}", t_.name, th_.id);
    unsigned accesses_ = 0;
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

/// Two independent 64-bit hashes of a state's canonical bytes (FNV-1a, and a multiply-rotate hash).
emu::state_key digest(const std::string& bytes) {
    std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x243f6a8885a308d3ULL;
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        a = (a ^ c) * 0x100000001b3ULL;
        b = ((b ^ c) * 0x9e3779b97f4a7c15ULL);
        b = (b << 29) | (b >> 35);
    }
    return emu::state_key{a, b};
}

/// Where herd's front end reads the test differently from canopy (herd/HERD7-OUTCOMES.md, and OpenCL's
/// local memory): one warning per location and reason, naming it.
std::vector<front_end_warning> front_end_warnings(const test& t, const layout& l) {
    std::vector<front_end_warning> out;
    // A location a thread uses without taking it as a parameter: herd makes it a register of the thread.
    for (const auto& th : t.threads) {
        std::set<std::string> params, used;
        for (const auto& p : th.params) {
            params.insert(p.name);
        }
        const auto use = [&](const std::string& name) {
            if (!name.empty() && l.location(name) >= 0 && params.count(name) == 0) {
                used.insert(name);
            }
        };
        visit_stmts(th.body, [&](const stmt& s) {
            if (s.k == stmt::kind::store_plain) {
                use(s.name);
            }
            visit_expr(s.value.get(), [&](const expr& e) {
                if (e.k == expr::kind::deref) {
                    use(e.name);
                }
                if (e.call) {
                    use(e.call->location);
                    use(e.call->expected);
                }
            });
        });
        for (const auto& name : used) {
            out.push_back({name, fmt::format("P{} uses {} without taking it as a parameter: herd reads it as "
                                             "a register of P{}, canopy as the shared location",
                                             th.id, name, th.id)});
        }
    }
    for (std::size_t i = 0; i < l.locations.size(); ++i) {
        if (l.private_expected[i]) {
            std::set<unsigned> users;
            for (const auto& th : t.threads) {
                visit_stmts(th.body, [&](const stmt& s) {
                    visit_expr(s.value.get(), [&](const expr& e) {
                        if (e.call && e.call->op == atomic_op::compare_exchange &&
                            e.call->expected == l.locations[i]) {
                            users.insert(th.id);
                        }
                    });
                });
            }
            std::string who;
            for (const unsigned id : users) {
                who += fmt::format("{}P{}", who.empty() ? "" : ", ", id);
            }
            out.push_back({l.locations[i],
                           fmt::format("{} is the `expected` of compare_exchange in {}: herd leaves out a "
                                       "failed compare_exchange's write-back into it; canopy does it into a "
                                       "private copy per thread (its final value is the initial one)",
                                       l.locations[i], who)});
        }
        if (l.local_slot[i] >= 0 && l.local_groups[i].size() > 1) {
            std::string groups;
            for (const unsigned g : l.local_groups[i]) {
                groups += fmt::format("{}{}", groups.empty() ? "" : ", ", g);
            }
            out.push_back({l.locations[i],
                           fmt::format("{} is __local and named by work-groups {}: OpenCL gives each "
                                       "work-group its own copy (canopy prints the first as {}, the others "
                                       "as {}@wgN); herd reads one location shared by all",
                                       l.locations[i], groups, l.locations[i], l.locations[i])});
        }
    }
    return out;
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
    const bool several_devices = t.tree.devices.size() > 1;
    if (several_devices) {
        // Device scope must not reach the other device, while system (all_svm_devices) scope reaches
        // both: the detector and the SCM (one L2 per device) get the scopeTree's devices.
        opt.race_block_device = l.device_of_group;
    }

    device_buffer<location_word> mem(l.locations.size());
    // Local memory: one scratchpad per work-group, each with a copy of every local location.
    device_buffer<location_word> local_mem(std::max<std::size_t>(1, std::size_t{groups} * l.locals));
    location_word* pl = local_mem.data();
    std::vector<location_word> local_init(local_mem.size(), 0);
    for (std::size_t i = 0; i < l.locations.size(); ++i) {
        if (const int slot = l.local_slot[i]; slot >= 0) {
            for (unsigned g = 0; g < groups; ++g) {
                local_init[std::size_t{g} * l.locals + static_cast<std::size_t>(slot)] =
                    static_cast<location_word>(l.initial[i]);
            }
        }
    }
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
    r.scheme = emu::to_string(o.scheme);
    r.condition = t.condition_text;
    r.race_check = o.race_check;
    r.warnings = front_end_warnings(t, l);
    for (const auto& w : r.warnings) {
        r.incomparable.insert(w.location);
    }
    std::uint64_t satisfied = 0, counted = 0;
    // The run's state, for state_caching_dfs: every work-item of the launch, by block * block size +
    // thread (a work-group smaller than the largest has idle work-items that only start and finish,
    // and their finishing is a step too: left out, it would look like no step at all), its work-item
    // while it runs (unstarted: none; finished: its last trace), and the model of the run in progress.
    const std::size_t items = std::size_t{groups} * l.block;
    std::vector<const emu::work_item*> live(items, nullptr);
    std::vector<std::uint64_t> final_trace(items, 0);
    std::vector<std::uint8_t> phase(items, 0); // 0 unstarted, 1 running, 2 finished
    const emu::scoped_cache_model* current_scm = nullptr;
    std::string state_buffer;
    const auto put = [&](std::uint64_t v) {
        state_buffer.append(reinterpret_cast<const char*>(&v), sizeof v);
    };
    // Memory (global, and every work-group's scratchpad copy) and every work-item's phase and trace.
    const auto put_memory_and_items = [&]() {
        for (std::size_t i = 0; i < l.locations.size(); ++i) {
            put(static_cast<std::uint32_t>(pm[i]));
        }
        for (std::size_t i = 0; i < local_mem.size(); ++i) {
            put(static_cast<std::uint32_t>(pl[i]));
        }
        for (std::size_t i = 0; i < items; ++i) {
            put(phase[i]);
            if (phase[i] == 1) {
                put(live[i]->trace);
                put(static_cast<std::uint64_t>(live[i]->state));
            } else if (phase[i] == 2) {
                put(final_trace[i]);
            }
        }
    };
    const auto state_of = [&]() {
        state_buffer.clear();
        current_scm->append_state(state_buffer);
        put_memory_and_items();
        return digest(state_buffer);
    };
    // The race exploration's state: memory (global and local), every work-item's phase and trace (as above;
    // there are no caches), and the race detector's state (race_detector::append_state: clocks, release sets,
    // fences, the shadow), which is what makes a cut exact for the race verdict: two prefixes that reach one
    // digest have the same future accesses *and* the same races in them (docs/race-detector.md, "Exact
    // verdicts"). Before the first work-item starts the detector is the launch's fresh one: every run's
    // is the same, so "none yet" stands for it.
    const emu::race_detector* current_detector = nullptr;
    std::size_t reports_at_key = 0; // the detector's reports when the last state was keyed
    const auto race_state_of = [&]() {
        state_buffer.clear();
        put_memory_and_items();
        put(current_detector != nullptr ? 1 : 0);
        if (current_detector != nullptr) {
            current_detector->append_state(state_buffer);
            reports_at_key = current_detector->reports().size();
        } else {
            reports_at_key = 0;
        }
        return digest(state_buffer);
    };
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

    // Runs once under `choices`. An outcome run (race_run false) runs on the SCM without the detector
    // and counts its outcome unless the exploration cut it at a visited state (then its outcome is one
    // already recorded). A race run runs on SC memory with the detector and records its races; of a cut
    // run, only those found before the cut (the rest of a cut run is not an execution: its threads skip
    // to their end).
    const auto once = [&](emu::chooser& choices, const state_caching_dfs* cut, bool race_run) {
        std::vector<location_word> init(l.initial.begin(), l.initial.end());
        mem.upload(init);
        local_mem.upload(local_init);
        regs.fill_zero();
        std::fill(live.begin(), live.end(), nullptr);
        std::fill(phase.begin(), phase.end(), std::uint8_t{0});
        current_detector = nullptr;
        reports_at_key = 0;
        std::optional<emu::scoped_cache_model> scm;
        coherent_model sc;
        emu::memory_model* model = &sc;
        if (!race_run) {
            scm.emplace(groups, choices, o.scheme);
            scm->set_effective_environment(cut != nullptr); // exhaustive with reduction
            if (l.locals > 0) {
                scm->add_scratchpad(pl, local_mem.size() * sizeof(location_word));
            }
            if (several_devices) {
                scm->set_devices(l.device_of_group); // compute unit = work-group
            }
            current_scm = &*scm;
            model = &*scm;
        }
        opt.race_check = race_run ? o.race_check : emu::race_check_kind::none;
        opt.choices = &choices;
        emu::scoped_options scoped(opt);
        const test* tp = &t;
        const layout* lp = &l;
        const emu::work_item** live_p = live.data();
        std::uint64_t* final_p = final_trace.data();
        std::uint8_t* phase_p = phase.data();
        const unsigned locals = l.locals;
        const emu::chooser* chooser_p = &choices;
        const unsigned block = l.block;
        const emu::race_detector** detector_p = &current_detector;
        auto kernel = [=] {
            const unsigned g = canopy::block_id(), k = canopy::thread_id();
            const std::size_t item = std::size_t{g} * block + k;
            if (k >= lp->groups[g].size()) {
                phase_p[item] = 2;
                return;
            }
            const unsigned id = lp->groups[g][k];
            emu::work_item& self = emu::self();
            *detector_p = self.race; // the launch's detector (null without a race check)
            live_p[item] = &self;
            phase_p[item] = 1;
            interpreter(*tp, *lp, tp->threads[id], pm, pl + std::size_t{g} * locals, pr + id * max_regs,
                        chooser_p, race_run)
                .run();
            final_p[item] = self.trace;
            phase_p[item] = 2;
            live_p[item] = nullptr;
        };
        emu::run(
            groups, l.block, 0, [](const void* p) { (*static_cast<const decltype(kernel)*>(p))(); }, &kernel,
            model);
        // (the engine ran model->kernel_end(): every L1 is written back)
        current_scm = nullptr;
        current_detector = nullptr;
        if (race_run) {
            const auto& rep = emu::last_report();
            std::size_t found = rep.races.size();
            if (cut != nullptr && cut->pruned()) {
                found = std::min(found, reports_at_key); // those reported before the cut
            }
            if (found > 0) {
                ++r.racy_runs;
            }
            for (std::size_t i = 0; i < found; ++i) {
                const emu::race_report& race = rep.races[i];
                const std::string k = pair_key(race);
                auto [it, fresh] = race_index.emplace(k, r.races.size());
                if (fresh) {
                    r.races.push_back(race_finding{k, named(emu::to_string(race)), 0, 0});
                    first_found.push_back(run_label);
                }
                ++r.races[it->second].runs;
                r.races[it->second].occurrences += race.occurrences;
            }
            return;
        }
        if (cut != nullptr && cut->pruned()) {
            ++r.runs;
            return;
        }
        // the outcome
        const auto hm = mem.to_vector();
        const auto hl = local_mem.to_vector();
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
            const int slot = l.local_slot[i];
            if (slot >= 0) { // local: the first work-group's copy that names it, then the others'
                lv[i] = hl[std::size_t{l.local_home[i]} * l.locals + static_cast<std::size_t>(slot)];
            }
            key += fmt::format("{}={}; ", l.locations[i], lv[i]);
            if (slot >= 0) {
                for (const unsigned g : l.local_groups[i]) {
                    if (g != l.local_home[i]) {
                        key += fmt::format("{}@wg{}={}; ", l.locations[i], g,
                                           hl[std::size_t{g} * l.locals + static_cast<std::size_t>(slot)]);
                    }
                }
            }
        }
        if (!key.empty()) {
            key.pop_back();
        }
        const bool sat = !t.condition || holds(*t.condition, t, rv, lv, l);
        ++r.outcomes[key];
        satisfied += sat ? 1 : 0;
        ++counted;
        ++r.runs;
    };

    // Outcomes, on the SCM. Exhaustive first: every choice sequence, within the limit on runs; state
    // caching cuts a run at any state already explored (or, when asked, plain depth-first enumeration).
    bool done = false;
    if (o.exhaustive_limit > 0) {
        result saved = r;
        const std::uint64_t saved_sat = satisfied, saved_counted = counted;
        std::uint64_t states_tried = 0;
        bool more = true;
        if (o.reduction) {
            state_caching_dfs dfs(state_of);
            while (more && r.runs < o.exhaustive_limit) {
                run_label = fmt::format("exhaustive execution {}", r.runs + 1);
                once(dfs, &dfs, false);
                more = dfs.next();
            }
            r.states = dfs.states();
            states_tried = dfs.states();
        } else {
            emu::dfs_chooser dfs;
            while (more && r.runs < o.exhaustive_limit) {
                run_label = fmt::format("exhaustive execution {}", r.runs + 1);
                once(dfs, nullptr, false);
                more = dfs.next();
            }
        }
        if (!more) {
            r.exhaustive = true;
            done = true;
        } else {
            const std::uint64_t tried = r.runs;
            r = saved; // too large: discard the partial enumeration, sample instead
            r.exhaustive_runs_tried = tried;
            r.exhaustive_states_tried = states_tried;
            satisfied = saved_sat;
            counted = saved_counted;
        }
    }
    const auto out_of_time = [&](std::chrono::steady_clock::time_point t0) {
        return o.time_budget_seconds > 0 &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
                   o.time_budget_seconds;
    };
    if (!done) {
        const auto t0 = std::chrono::steady_clock::now();
        std::uint64_t steps = 0; // the longest run seen: PCT's range of change points
        for (std::uint64_t seed = 1; seed <= o.seeds; ++seed) {
            const unsigned depth =
                steps == 0 ? 0u : static_cast<unsigned>((seed - 1) % (std::uint64_t{o.seeds_pct_depth} + 1));
            emu::random_chooser rc(seed);
            run_label = depth == 0 ? fmt::format("the random run with seed {}", seed)
                                   : fmt::format("the random run with seed {} (PCT depth {})", seed, depth);
            opt.pct_depth = depth;
            opt.pct_steps = std::max<std::uint64_t>(steps, 1);
            once(rc, nullptr, false);
            opt.pct_depth = 0;
            steps = std::max(steps, emu::last_report().steps);
            if (out_of_time(t0)) {
                break;
            }
        }
    }

    // The race verdict, on SC memory (docs/race-detector.md, "Exact verdicts"): every SC execution,
    // with state caching over a digest that includes the detector's state (or, when asked, plain
    // depth-first enumeration), within race_check_exhaustive_limit runs. A race found is a race of some
    // SC execution whatever happens next, so the races of an unfinished exploration are kept; only
    // "race-free" needs the exploration to finish, and without that the runs go on sampled.
    if (o.race_check != emu::race_check_kind::none) {
        bool more = true;
        if (o.race_check_exhaustive_limit > 0) {
            const auto explore = [&](auto& dfs, const state_caching_dfs* cut) {
                while (more && r.race_runs < o.race_check_exhaustive_limit) {
                    run_label =
                        fmt::format("SC execution {} of the exhaustive race exploration", r.race_runs + 1);
                    once(dfs, cut, true);
                    ++r.race_runs;
                    more = dfs.next();
                }
            };
            if (o.reduction) {
                state_caching_dfs dfs(race_state_of);
                explore(dfs, &dfs);
                r.race_states = dfs.states();
            } else {
                emu::dfs_chooser dfs;
                explore(dfs, nullptr);
            }
        }
        r.race_complete = !more;
        if (!r.race_complete) {
            // Uniform sampling hardly ever completes a chain of hand-offs: every receiver's acquire is
            // one or two steps into its thread, the sender's release several steps into its own, and a
            // uniform pick over threads that all start together must hold the i-th receiver back for
            // about every step its i predecessors take (issue 26: a three-hop chain completes in 4 of
            // 20,000 uniform SC runs, in none of 20,000 on the SCM, whose operations take more steps).
            // PCT (Burckhardt et al.; the engine's pct_depth) runs the highest-priority thread until it
            // is done or a change point demotes it: a random priority order runs the chain's threads
            // in order with probability 1 / (threads!) at depth 1, and depth d reaches any ordering bug
            // of d constraints with probability >= 1 / (n k^(d-1)). So the seeds cycle through uniform
            // (to keep what it finds) and PCT depths 1..race_pct_depth, with k about a run's steps.
            const auto t0 = std::chrono::steady_clock::now();
            std::uint64_t steps = 0; // the longest run seen: PCT's range of change points
            for (std::uint64_t seed = 1; seed <= o.race_samples; ++seed) {
                const unsigned depth =
                    steps == 0 ? 0u
                               : static_cast<unsigned>((seed - 1) % (std::uint64_t{o.race_pct_depth} + 1));
                emu::random_chooser rc(seed);
                run_label = depth == 0
                                ? fmt::format("the random SC run with seed {}", seed)
                                : fmt::format("the random SC run with seed {} (PCT depth {})", seed, depth);
                opt.pct_depth = depth;
                opt.pct_steps = std::max<std::uint64_t>(steps, 1);
                once(rc, nullptr, true);
                opt.pct_depth = 0;
                steps = std::max(steps, emu::last_report().steps);
                ++r.race_sampled;
                if (out_of_time(t0)) {
                    break;
                }
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
        f.text += fmt::format("\n  raced in {} of {} run(s); first in {}", f.runs,
                              r.race_runs + r.race_sampled, first_found[i]);
    }
    // Does the condition's body hold in some run / in every run?
    const bool some = satisfied > 0, every = satisfied == counted;
    r.verdict = every ? "Always" : some ? "Sometimes" : "Never";
    r.observed = t.q == quantifier::forall ? every : some;
    return r;
}

} // namespace canopy::litmus
