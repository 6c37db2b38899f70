// The litmus runner: interprets a test's threads inside an emulated kernel on the scoped-cache model.
#include "canopy/litmus/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "canopy/emulator/chooser.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/memory_model.hpp"
#include "canopy/emulator/options.hpp"
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
    unsigned block = 1;

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
        throw unsupported_test("unsupported: device-scope operations in a test of several devices (the SCM "
                               "models one device; RSP's compilation schemes are single-device)");
    }
    std::set<unsigned> seen;
    for (const auto& dev : t.tree.devices) {
        for (const auto& wg : dev) {
            l.groups.push_back(wg);
        }
    }
    if (l.groups.empty()) { // no scopeTree: every thread its own work-group
        for (unsigned i = 0; i < n; ++i) {
            l.groups.push_back({i});
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
        : t_(t), l_(l), th_(th), mem_(mem), regs_out_(regs_out), regs_(th.registers.size(), 0) {}

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
        switch (c.op) {
        case atomic_op::load: return from_bits(m.load(w, access(p, c)));
        case atomic_op::store: {
            const value v = eval(*c.operand);
            emu::yield(w);
            m.store(w, access(p, c), bits(v));
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
            return from_bits(m.rmw(w, access(p, c), op, bits(v), 0, nullptr));
        }
        case atomic_op::compare_exchange: {
            // OpenCL: `expected` is a plain object; on failure it receives the current value.
            location_word* e = addr(c.expected, c.pos);
            const value expected = from_bits(m.plain_load(w, e, sizeof(location_word)));
            const value desired = eval(*c.operand);
            emu::yield(w);
            bool ok = false;
            const value old =
                from_bits(m.rmw(w, access(p, c), emu::mm_rmw::cas, bits(expected), bits(desired), &ok));
            if (!ok) {
                emu::yield(w);
                m.plain_store(w, e, sizeof(location_word), bits(old));
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
            emu::work_item& w = emu::self();
            emu::yield(w);
            return from_bits(w.model->plain_load(w, addr(e.name, e.pos), sizeof(location_word)));
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
            emu::work_item& w = emu::self();
            emu::yield(w);
            w.model->plain_store(w, addr(s.name, s.pos), sizeof(location_word), bits(v));
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
            }
            break;
        case stmt::kind::barrier:
            // barrier(CLK_GLOBAL_MEM_FENCE): a work-group barrier with a work-group-scope acq_rel fence,
            // which the work-group's shared L1 already provides.
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

result run(const test& t, const run_options& o) {
    const layout l = make_layout(t);
    const unsigned groups = static_cast<unsigned>(l.groups.size());
    const unsigned nthreads = static_cast<unsigned>(t.threads.size());

    // A virtual device with one compute unit per work-group of the test.
    emu::options opt;
    opt.device = emu::virtual_device{"litmus", groups, 1, 64, 32, 64, 1024, 1024, "one CU per work-group"};
    opt.scheduler = emu::scheduler_kind::deterministic;
    opt.stack_bytes = 64 * 1024;
    opt.watchdog_steps = 200000;

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
    r.scheme = emu::to_string(o.scheme);
    r.condition = t.condition_text;
    std::uint64_t satisfied = 0;

    const auto once = [&](emu::chooser& choices) {
        std::vector<location_word> init(l.initial.begin(), l.initial.end());
        mem.upload(init);
        regs.fill_zero();
        emu::scoped_cache_model model(groups, choices, o.scheme);
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
            once(dfs);
            more = dfs.next();
        }
        if (!more) {
            r.exhaustive = true;
            done = true;
        } else {
            r = saved; // too large: discard the partial enumeration, sample instead
            satisfied = saved_sat;
        }
    }
    if (!done) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::uint64_t seed = 1; seed <= o.seeds; ++seed) {
            emu::random_chooser rc(seed);
            once(rc);
            if (o.time_budget_seconds > 0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
                    o.time_budget_seconds) {
                break;
            }
        }
    }
    // Does the condition's body hold in some run / in every run?
    const bool some = satisfied > 0, every = satisfied == r.runs;
    r.verdict = every ? "Always" : some ? "Sometimes" : "Never";
    r.observed = t.q == quantifier::forall ? every : some;
    return r;
}

} // namespace canopy::litmus
