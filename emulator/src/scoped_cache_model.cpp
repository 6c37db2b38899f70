#include "canopy/emulator/scoped_cache_model.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "canopy/emulator/work_item.hpp"
#include "canopy/vocabulary/error.hpp"

namespace canopy::emu {

const char* to_string(rsp_scheme s) { return s == rsp_scheme::proposed ? "proposed" : "original"; }

rsp_scheme parse_scheme(const std::string& s) {
    if (s == "proposed") {
        return rsp_scheme::proposed;
    }
    if (s == "original") {
        return rsp_scheme::original;
    }
    throw canopy::error(fmt::format("unknown RSP scheme '{}' (use proposed or original)", s));
}

namespace {

std::uint64_t mask_of(unsigned size) { return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1; }

std::int64_t as_signed(std::uint64_t v, unsigned size) {
    if (size >= 8) {
        return static_cast<std::int64_t>(v);
    }
    const unsigned shift = 64 - 8 * size;
    return static_cast<std::int64_t>(v << shift) >> shift;
}

std::uint64_t apply(mm_rmw op, std::uint64_t old, std::uint64_t v, unsigned size, bool is_signed) {
    const std::uint64_t m = mask_of(size);
    switch (op) {
    case mm_rmw::add: return (old + v) & m;
    case mm_rmw::sub: return (old - v) & m;
    case mm_rmw::and_: return old & v;
    case mm_rmw::or_: return old | v;
    case mm_rmw::xor_: return old ^ v;
    case mm_rmw::min:
        if (is_signed) {
            return as_signed(v, size) < as_signed(old, size) ? v : old;
        }
        return (v & m) < (old & m) ? v : old;
    case mm_rmw::max:
        if (is_signed) {
            return as_signed(v, size) > as_signed(old, size) ? v : old;
        }
        return (v & m) > (old & m) ? v : old;
    case mm_rmw::exchange: return v;
    case mm_rmw::cas: return old; // decided by the caller
    }
    return old;
}

std::size_t order_index(std::memory_order o) { return static_cast<std::size_t>(o); }

/// One row of the RSP tables: its steps in order, with `between` after each but the last. Every step
/// is its own transition of the RSP machine, so other work-items and the environment may act between
/// any two of them (scoped_cache_model::between), never inside one.
template <class Between, class First, class... Rest>
void in_turn(Between&& between, First&& first, Rest&&... rest) {
    first();
    ((between(), rest()), ...);
}

} // namespace

// ---- cost table and counters --------------------------------------------------------------------

bool cost_table::set(const std::string& name, std::uint64_t cycles) {
    bool found = false;
    const auto assign = [&](const char* n, std::uint64_t& field) {
        if (name == n) {
            field = cycles;
            found = true;
        }
    };
    assign("l1_hit", l1_hit);
    assign("local_access", local_access);
    assign("l1_fill", l1_fill);
    assign("l2_access", l2_access);
    assign("flush_base", flush_base);
    assign("line_writeback", line_writeback);
    assign("invalidate", invalidate);
    assign("remote_per_cu", remote_per_cu);
    assign("rmw_lock", rmw_lock);
    assign("system_access", system_access);
    assign("line_bytes", line_bytes);
    assign("l1_lines", l1_lines);
    assign("launch", launch);
    return found;
}

void cost_table::for_each(const std::function<void(const char*, std::uint64_t)>& f) const {
    f("l1_hit", l1_hit);
    f("local_access", local_access);
    f("l1_fill", l1_fill);
    f("l2_access", l2_access);
    f("flush_base", flush_base);
    f("line_writeback", line_writeback);
    f("invalidate", invalidate);
    f("remote_per_cu", remote_per_cu);
    f("rmw_lock", rmw_lock);
    f("system_access", system_access);
    f("line_bytes", line_bytes);
    f("l1_lines", l1_lines);
    f("launch", launch);
}

memory_counters& memory_counters::operator+=(const memory_counters& o) {
    flushes_own += o.flushes_own;
    flushes_remote += o.flushes_remote;
    invalidations_own += o.invalidations_own;
    invalidations_remote += o.invalidations_remote;
    lines_written_back += o.lines_written_back;
    l1_hits += o.l1_hits;
    l1_misses += o.l1_misses;
    l2_accesses += o.l2_accesses;
    remote_ops += o.remote_ops;
    env_flushes += o.env_flushes;
    env_evictions += o.env_evictions;
    env_fetches += o.env_fetches;
    plain_loads += o.plain_loads;
    plain_stores += o.plain_stores;
    for (std::size_t s = 0; s < 4; ++s) {
        for (std::size_t k = 0; k < 6; ++k) {
            atomics[s][k] += o.atomics[s][k];
            fences[s][k] += o.fences[s][k];
        }
    }
    cycles_total += o.cycles_total;
    cycles_max_cu += o.cycles_max_cu;
    cycles_makespan += o.cycles_makespan;
    return *this;
}

void memory_counters::for_each(const std::function<void(const std::string&, std::uint64_t)>& f) const {
    f("flushes_own", flushes_own);
    f("flushes_remote", flushes_remote);
    f("invalidations_own", invalidations_own);
    f("invalidations_remote", invalidations_remote);
    f("lines_written_back", lines_written_back);
    f("l1_hits", l1_hits);
    f("l1_misses", l1_misses);
    f("l2_accesses", l2_accesses);
    f("remote_ops", remote_ops);
    f("env_flushes", env_flushes);
    f("env_evictions", env_evictions);
    f("env_fetches", env_fetches);
    f("plain_loads", plain_loads);
    f("plain_stores", plain_stores);
    static const char* scopes[] = {"subgroup", "workgroup", "device", "system"};
    static const char* orders[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    for (std::size_t s = 0; s < 4; ++s) {
        for (std::size_t k = 0; k < 6; ++k) {
            if (atomics[s][k]) {
                f(fmt::format("atomics.{}.{}", scopes[s], orders[k]), atomics[s][k]);
            }
        }
    }
    for (std::size_t s = 0; s < 4; ++s) {
        for (std::size_t k = 0; k < 6; ++k) {
            if (fences[s][k]) {
                f(fmt::format("fences.{}.{}", scopes[s], orders[k]), fences[s][k]);
            }
        }
    }
    f("cycles_total", cycles_total);
    f("cycles_max_cu", cycles_max_cu);
    f("cycles_makespan", cycles_makespan);
}

// ---- the model ----------------------------------------------------------------------------------

scoped_cache_model::scoped_cache_model(unsigned compute_units, chooser& choices, rsp_scheme scheme,
                                       cost_table costs)
    : l1_(compute_units), choices_(choices), scheme_(scheme), costs_(costs) {}

bool scoped_cache_model::acquires(std::memory_order o) {
    return o == std::memory_order_acquire || o == std::memory_order_consume ||
           o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
bool scoped_cache_model::releases(std::memory_order o) {
    return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
unsigned scoped_cache_model::who(const work_item& w) { return w.block * w.block_dim + w.thread + 1; }

void scoped_cache_model::charge(work_item& w, std::uint64_t cycles) {
    l1_[w.cu].cycles += cycles;
    counters_.cycles_total += cycles;
    w.clock += cycles; // the issuing work-item waits for its own cache actions
}

void scoped_cache_model::stall(work_item& w, const work_item* until) {
    // A retry of an access blocked by a cache lock (RMW or L2 line lock) stalls the issuer for about an
    // L1 round trip, and at least until the holder's present time: the lock cannot be free earlier.
    // Only the clock moves (timed scheduling: the waiter keeps pace with the holder instead of taking
    // one step per cycle); the CU's cycles count work, not waiting.
    w.clock += costs_.l1_hit;
    if (until && until->clock + costs_.l1_hit > w.clock) {
        w.clock = until->clock + costs_.l1_hit;
    }
}

void scoped_cache_model::count_atomic(const mm_access& a) {
    ++counters_.atomics[static_cast<std::size_t>(a.scope)][order_index(a.order)];
    if (a.remote) {
        ++counters_.remote_ops;
    }
}

scoped_cache_model::entry* scoped_cache_model::find(l1_cache& c, std::uintptr_t addr) {
    const std::size_t i = c.index.find(addr);
    return i == address_map::npos ? nullptr : &c.entries[i];
}

void scoped_cache_model::erase(l1_cache& c, std::uintptr_t addr) {
    const std::size_t i = c.index.find(addr);
    if (i == address_map::npos) {
        return;
    }
    c.index.erase(addr);
    // Swap-remove: O(1), and still independent of addresses (the order is a function of the history
    // of accesses alone), which keeps runs replayable.
    if (i + 1 != c.entries.size()) {
        c.entries[i] = c.entries.back();
        c.index.set(c.entries[i].addr, i);
    }
    c.entries.pop_back();
}

std::uint64_t scoped_cache_model::memory_read(std::uintptr_t addr, unsigned size) const {
    std::uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const void*>(addr), size);
    return v;
}

void scoped_cache_model::memory_write(std::uintptr_t addr, unsigned size, std::uint64_t v) const {
    std::memcpy(reinterpret_cast<void*>(addr), &v, size);
}

void scoped_cache_model::write_back(l1_cache& c, entry& e) {
    below_write(static_cast<unsigned>(&c - l1_.data()), e.addr, e.size, e.value);
    e.dirty = false;
    ++counters_.lines_written_back;
}

std::uint64_t scoped_cache_model::below_read(unsigned cu, std::uintptr_t addr, unsigned size) {
    if (l2_.empty()) {
        return memory_read(addr, size);
    }
    // The device's L2 as a cache of memory, with an L1's rules: a valid entry answers; an invalid
    // dirty one is written back before the location is fetched again.
    l1_cache& c = l2_[dev_of_cu_[cu]];
    entry* e = find(c, addr);
    if (e && e->size != size) {
        if (e->dirty) {
            memory_write(e->addr, e->size, e->value);
        }
        erase(c, addr);
        e = nullptr;
    }
    if (e && valid(c, *e)) {
        return e->value;
    }
    if (e && e->dirty) {
        memory_write(e->addr, e->size, e->value);
    }
    const std::uint64_t v = memory_read(addr, size);
    install(c, e, addr, size, v, false);
    return v;
}

void scoped_cache_model::below_write(unsigned cu, std::uintptr_t addr, unsigned size, std::uint64_t v) {
    if (l2_.empty()) {
        memory_write(addr, size, v);
        return;
    }
    l1_cache& c = l2_[dev_of_cu_[cu]];
    entry* e = find(c, addr);
    if (e && e->size != size) {
        if (e->dirty) {
            memory_write(e->addr, e->size, e->value);
        }
        erase(c, addr);
        e = nullptr;
    }
    install(c, e, addr, size, v & mask_of(size), true);
}

std::uint64_t scoped_cache_model::level_read(work_item& w, std::uintptr_t addr, unsigned size, bool memory) {
    if (!memory) {
        return below_read(w.cu, addr, size);
    }
    // System scope: the own L2's dirty copy is older than nothing else this device wrote; write it
    // back so that the access at memory is not overtaken by it (per-location coherence, as prepare_l2).
    l1_cache& c = l2_[dev_of_cu_[w.cu]];
    if (entry* e = find(c, addr); e && e->dirty) {
        memory_write(e->addr, e->size, e->value);
        e->dirty = false;
    }
    return memory_read(addr, size);
}

void scoped_cache_model::level_write(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v,
                                     bool memory) {
    if (!memory) {
        below_write(w.cu, addr, size, v);
        return;
    }
    memory_write(addr, size, v & mask_of(size));
    erase(l2_[dev_of_cu_[w.cu]], addr); // the own L2's copy is stale now (other devices' stay stale)
}

void scoped_cache_model::flush_l2(unsigned cu) {
    if (l2_.empty()) {
        return;
    }
    l1_cache& c = l2_[dev_of_cu_[cu]];
    for (const std::uintptr_t addr : c.dirty) {
        if (entry* e = find(c, addr); e && e->dirty) {
            memory_write(e->addr, e->size, e->value);
            e->dirty = false;
        }
    }
    c.dirty.clear();
}

void scoped_cache_model::invalidate_l2(unsigned cu) {
    if (!l2_.empty()) {
        ++l2_[dev_of_cu_[cu]].epoch;
    }
}

void scoped_cache_model::set_devices(const std::vector<unsigned>& device_of_cu) {
    unsigned devices = 0;
    for (const unsigned d : device_of_cu) {
        devices = std::max(devices, d + 1);
    }
    if (device_of_cu.size() != l1_.size()) {
        throw canopy::error(fmt::format("scoped-cache model: {} device numbers for {} compute units",
                                        device_of_cu.size(), l1_.size()));
    }
    dev_of_cu_ = device_of_cu;
    l2_.clear();
    if (devices > 1) {
        l2_.resize(devices);
    }
}

void scoped_cache_model::add_scratchpad(const void* base, std::size_t bytes) {
    const auto lo = reinterpret_cast<std::uintptr_t>(base);
    scratch_.emplace_back(lo, lo + bytes);
}

bool scoped_cache_model::scratch(std::uintptr_t addr) const {
    for (const auto& [lo, hi] : scratch_) {
        if (addr >= lo && addr < hi) {
            return true;
        }
    }
    return false;
}

std::uint64_t scoped_cache_model::scratch_load(work_item& w, std::uintptr_t addr, unsigned size) {
    charge(w, costs_.local_access);
    const std::uint64_t v = memory_read(addr, size);
    observe(w, v);
    return v;
}

void scoped_cache_model::scratch_store(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v) {
    charge(w, costs_.local_access);
    memory_write(addr, size, v & mask_of(size));
    note_progress(w);
}

void scoped_cache_model::append_state(std::string& out) const {
    const auto put = [&](std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    std::vector<const entry*> sorted;
    const auto cache = [&](const l1_cache& c) {
        // By address: the entries' order is history, not state (every choice over them is offered).
        // An invalid clean entry behaves exactly as no entry (every access misses and fetches; nothing
        // writes it back), so it is left out: states that differ only there are one state.
        sorted.clear();
        for (const auto& e : c.entries) {
            if (e.dirty || valid(c, e)) {
                sorted.push_back(&e);
            }
        }
        std::sort(sorted.begin(), sorted.end(),
                  [](const entry* x, const entry* y) { return x->addr < y->addr; });
        put(sorted.size());
        for (const entry* e : sorted) {
            put(e->addr);
            put(e->value);
            put((std::uint64_t{e->size} << 2) | (e->dirty ? 2U : 0U) | (valid(c, *e) ? 1U : 0U));
        }
        put(c.rmw_holder);
    };
    for (const auto& c : l1_) {
        cache(c);
    }
    for (const auto& c : l2_) {
        cache(c);
    }
    std::vector<std::pair<std::uintptr_t, std::pair<unsigned, unsigned>>> locks(l2_locks_.begin(),
                                                                                l2_locks_.end());
    std::sort(locks.begin(), locks.end());
    put(locks.size());
    for (const auto& [addr, holder] : locks) {
        put(addr);
        put((std::uint64_t{holder.first} << 32) | holder.second);
    }
    std::vector<std::uintptr_t> seen;
    for (const auto& [addr, size] : locations_) {
        seen.push_back(addr);
    }
    std::sort(seen.begin(), seen.end());
    put(seen.size());
    for (const auto a : seen) {
        put(a);
    }
}

void scoped_cache_model::install(l1_cache& c, entry* e, std::uintptr_t addr, unsigned size, std::uint64_t v,
                                 bool dirty) {
    if (dirty && !(e && e->dirty)) {
        c.dirty.push_back(addr);
        if (c.dirty.size() > 2 * c.entries.size() + 64) {
            // Entries cleaned by the environment and dirtied again leave stale duplicates behind:
            // rebuild (amortized O(1) per push; the order stays a function of the history alone).
            c.dirty.clear();
            for (const auto& x : c.entries) {
                if (x.dirty && x.addr != addr) {
                    c.dirty.push_back(x.addr);
                }
            }
            c.dirty.push_back(addr);
        }
    }
    if (e) {
        *e = entry{addr, size, v, dirty, c.epoch};
    } else {
        c.index.set(addr, c.entries.size());
        c.entries.push_back(entry{addr, size, v, dirty, c.epoch});
    }
}

std::uint64_t scoped_cache_model::flush_dirty(l1_cache& c) {
    // Written back: every dirty location (values are per location). Charged: the distinct cache lines
    // they occupy, at most what an L1 of costs_.l1_lines can hold dirty: a real L1 would have written
    // the excess back earlier, in the background, when capacity forced it out (the model keeps such
    // entries, which the environment is allowed to do, but must not bill the flusher for them).
    line_scratch_.clear();
    for (const std::uintptr_t addr : c.dirty) {
        if (entry* e = find(c, addr); e && e->dirty) {
            write_back(c, *e);
            line_scratch_.push_back(addr / (costs_.line_bytes ? costs_.line_bytes : 1));
        }
    }
    c.dirty.clear();
    // Heap sort: it runs on the work-item's fiber, whose stack is small (64 KiB); std::sort's recursive
    // introsort overflowed it under ASan. make_heap/sort_heap iterate.
    std::make_heap(line_scratch_.begin(), line_scratch_.end());
    std::sort_heap(line_scratch_.begin(), line_scratch_.end());
    const auto lines = static_cast<std::uint64_t>(std::unique(line_scratch_.begin(), line_scratch_.end()) -
                                                  line_scratch_.begin());
    return std::min<std::uint64_t>(lines, costs_.l1_lines);
}

void scoped_cache_model::note_location(std::uintptr_t addr, unsigned size) {
    if (location_index_.emplace(addr, locations_.size()) == locations_.size()) {
        locations_.emplace_back(addr, size);
    }
}

std::uint64_t scoped_cache_model::peek_below(unsigned cu, std::uintptr_t addr, unsigned size) const {
    // What below_read would answer, without its side effects (it may install into the L2).
    if (!l2_.empty()) {
        const l1_cache& c = l2_[dev_of_cu_[cu]];
        if (const std::size_t i = c.index.find(addr); i != address_map::npos) {
            const entry& e = c.entries[i];
            if (e.size == size && (valid(c, e) || e.dirty)) {
                return e.value; // an invalid dirty entry is written back, then fetched: its value
            }
        }
    }
    return memory_read(addr, size);
}

void scoped_cache_model::effective_environment() {
    moves_.clear();
    const auto l2_locked_elsewhere = [&](std::uintptr_t addr, unsigned cu) {
        if (l2_locks_.empty()) {
            return false;
        }
        auto it = l2_locks_.find(addr);
        return it != l2_locks_.end() && it->second.second != cu;
    };
    const auto offer = [&](const l1_cache& c, unsigned index, bool l2) {
        const auto k = static_cast<std::uint8_t>(l2 ? 3 : 0);
        for (const auto& [addr, size] : locations_) {
            const std::size_t i = c.index.find(addr);
            const entry* e = i == address_map::npos ? nullptr : &c.entries[i];
            const bool locked = l2 ? !l2_locks_.empty() : l2_locked_elsewhere(addr, index);
            if (e && e->dirty) {
                if (!locked) {
                    moves_.push_back({k, index, addr, size}); // flush
                }
                continue; // a dirty entry is neither evicted nor fetched over
            }
            const bool present = e && valid(c, *e);
            if (present) {
                moves_.push_back({static_cast<std::uint8_t>(k + 1), index, addr, size}); // evict
            }
            if (locked || scratch(addr)) {
                continue;
            }
            const std::uint64_t below = l2 ? memory_read(addr, size) : peek_below(index, addr, size);
            if (!present || e->size != size || e->value != below) {
                moves_.push_back({static_cast<std::uint8_t>(k + 2), index, addr, size}); // fetch
            }
        }
    };
    for (unsigned cu = 0; cu < l1_.size(); ++cu) {
        offer(l1_[cu], cu, false);
    }
    for (unsigned d = 0; d < l2_.size(); ++d) {
        offer(l2_[d], d, true);
    }
    const std::uint64_t choice = choices_.pick(moves_.size() + 1);
    if (choice == 0) {
        return;
    }
    const env_move m = moves_[choice - 1];
    l1_cache& c = m.kind < 3 ? l1_[m.cache] : l2_[m.cache];
    entry* e = find(c, m.addr);
    switch (m.kind) {
    case 0:
        write_back(c, *e);
        ++counters_.env_flushes;
        break;
    case 3:
        memory_write(e->addr, e->size, e->value);
        e->dirty = false;
        ++counters_.env_flushes;
        break;
    case 1:
    case 4:
        erase(c, m.addr);
        ++counters_.env_evictions;
        break;
    case 2:
        install(c, e, m.addr, m.size, below_read(m.cache, m.addr, m.size), false);
        ++counters_.env_fetches;
        break;
    case 5:
        install(c, e, m.addr, m.size, memory_read(m.addr, m.size), false);
        ++counters_.env_fetches;
        break;
    default: break;
    }
}

// Environment transitions (RSP Table 2), at most one before each access: flush a dirty entry, evict a
// clean one, or fetch any location the kernel has touched into any L1 whose copy is not dirty. The
// choice is (whether, kind, CU, which), all from the chooser, so a seed replays it and the DFS
// chooser enumerates it.
void scoped_cache_model::environment(work_item& w) {
    (void)w;
    if (choices_.settled()) {
        return; // a run cut by the exhaustive exploration: only its end matters, not its path
    }
    if (effective_env_) {
        effective_environment();
        return;
    }
    if (choices_.pick(env_rate_) != 0) {
        return;
    }
    // One device: flush, evict or fetch at an L1 (3 kinds, as always: seeds replay). Several: the same
    // three at a device's L2 too.
    const std::uint64_t kind = choices_.pick(l2_.empty() ? 3 : 6);
    if (kind >= 3) {
        l1_cache& c = l2_[choices_.pick(l2_.size())];
        if (kind < 5) {
            if (c.entries.empty()) {
                return;
            }
            entry& e = c.entries[choices_.pick(c.entries.size())];
            if (kind == 3 && e.dirty && l2_locks_.empty()) {
                memory_write(e.addr, e.size, e.value);
                e.dirty = false;
                ++counters_.env_flushes;
            } else if (kind == 4 && !e.dirty) {
                erase(c, e.addr);
                ++counters_.env_evictions;
            }
            return;
        }
        if (locations_.empty()) {
            return;
        }
        const auto [addr, size] = locations_[choices_.pick(locations_.size())];
        entry* e = find(c, addr);
        if ((e && e->dirty) || scratch(addr) || !l2_locks_.empty()) {
            return;
        }
        install(c, e, addr, size, memory_read(addr, size), false);
        ++counters_.env_fetches;
        return;
    }
    const auto cu = static_cast<unsigned>(choices_.pick(l1_.size()));
    l1_cache& c = l1_[cu];
    // Original scheme: a location locked in L2 is frozen for every CU but the holder's.
    const auto l2_locked_elsewhere = [&](std::uintptr_t addr) {
        if (l2_locks_.empty()) {
            return false;
        }
        auto it = l2_locks_.find(addr);
        return it != l2_locks_.end() && it->second.second != cu;
    };
    if (kind == 0 || kind == 1) {
        if (c.entries.empty()) {
            return;
        }
        entry& e = c.entries[choices_.pick(c.entries.size())];
        if (kind == 0 && e.dirty && !l2_locked_elsewhere(e.addr)) {
            write_back(c, e);
            ++counters_.env_flushes;
        } else if (kind == 1 && !e.dirty) {
            erase(c, e.addr);
            ++counters_.env_evictions;
        }
        return;
    }
    if (locations_.empty()) {
        return;
    }
    const auto [addr, size] = locations_[choices_.pick(locations_.size())];
    entry* e = find(c, addr);
    if ((e && e->dirty) || l2_locked_elsewhere(addr) || scratch(addr)) {
        return;
    }
    install(c, e, addr, size, below_read(cu, addr, size), false);
    ++counters_.env_fetches;
}

// Between two instructions of one compiled sequence other work-items and the environment may act,
// as in the RSP machine, where each instruction is a separate transition.
void scoped_cache_model::between(work_item& w) {
    yield(w);
    environment(w);
}

std::uint64_t scoped_cache_model::l1_load(work_item& w, std::uintptr_t addr, unsigned size) {
    l1_cache& c = l1_[w.cu];
    entry* e = find(c, addr);
    if (e && e->size != size) { // one location, one size: re-home it
        if (e->dirty) {
            write_back(c, *e);
        }
        erase(c, addr);
        e = nullptr;
    }
    if (e && valid(c, *e)) {
        ++counters_.l1_hits;
        charge(w, costs_.l1_hit);
        observe(w, e->value); // the value reaches the work-item's locals: part of its state
        return e->value;
    }
    // A miss: a dirty-but-invalidated entry must be written back before the line can be re-fetched
    // (RSP: it blocks FETCH until flushed); then fetch from L2.
    if (e && e->dirty) {
        write_back(c, *e);
    }
    ++counters_.l1_misses;
    charge(w, costs_.l1_fill);
    const std::uint64_t v = below_read(w.cu, addr, size);
    install(c, e, addr, size, v, false);
    observe(w, v);
    return v;
}

void scoped_cache_model::l1_store(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v) {
    l1_cache& c = l1_[w.cu];
    entry* e = find(c, addr);
    if (e && e->size != size) {
        if (e->dirty) {
            write_back(c, *e);
        }
        erase(c, addr);
        e = nullptr;
    }
    charge(w, costs_.l1_hit);
    install(c, e, addr, size, v & mask_of(size), true); // write-allocate, dirty, valid
}

void scoped_cache_model::prepare_l2(work_item& w, std::uintptr_t addr, unsigned) {
    // Per-location coherence: an access performed at L2 must not be overtaken by the accessor's own
    // older store still dirty in its L1 (RSP's INC_L2 blocks on a dirty entry until it is flushed).
    l1_cache& c = l1_[w.cu];
    if (entry* e = find(c, addr); e && e->dirty) {
        write_back(c, *e);
    }
    wait_l2_ready(w, addr);
}

std::uint64_t scoped_cache_model::l2_load(work_item& w, std::uintptr_t addr, unsigned size, bool memory) {
    prepare_l2(w, addr, size);
    ++counters_.l2_accesses;
    charge(w, memory ? costs_.system_access : costs_.l2_access);
    const std::uint64_t v = level_read(w, addr, size, memory);
    observe(w, v);
    return v;
}

void scoped_cache_model::l2_store(work_item& w, std::uintptr_t addr, unsigned size, std::uint64_t v,
                                  bool memory) {
    prepare_l2(w, addr, size);
    ++counters_.l2_accesses;
    charge(w, memory ? costs_.system_access : costs_.l2_access);
    level_write(w, addr, size, v, memory);
    erase(l1_[w.cu], addr); // the own copy is stale now; other CUs' copies stay stale, as on a GPU
}

void scoped_cache_model::flush_own(work_item& w, bool memory) {
    const std::uint64_t lines = flush_dirty(l1_[w.cu]);
    if (memory) {
        flush_l2(w.cu);                  // after the L1's write-backs, which land in it
        charge(w, costs_.system_access); // the L2's write-backs cross the link to memory
    }
    ++counters_.flushes_own;
    charge(w, costs_.flush_base + lines * costs_.line_writeback);
}

void scoped_cache_model::flush_all(work_item& w) {
    std::uint64_t lines = 0, reached = 0; // the CUs of the issuer's device
    for (std::size_t cu = 0; cu < l1_.size(); ++cu) {
        if (device_of(static_cast<unsigned>(cu)) == device_of(w.cu)) {
            lines += flush_dirty(l1_[cu]);
            ++reached;
        }
    }
    ++counters_.flushes_remote;
    charge(w, costs_.flush_base + lines * costs_.line_writeback + costs_.remote_per_cu * reached);
}

void scoped_cache_model::invalidate_own(work_item& w, bool memory) {
    ++l1_[w.cu].epoch; // every entry invalid at once; value and dirtiness are kept (RSP Table 1)
    if (memory) {
        invalidate_l2(w.cu);
    }
    ++counters_.invalidations_own;
    charge(w, costs_.invalidate);
}

void scoped_cache_model::invalidate_all(work_item& w) {
    std::uint64_t reached = 0; // the CUs of the issuer's device
    for (std::size_t cu = 0; cu < l1_.size(); ++cu) {
        if (device_of(static_cast<unsigned>(cu)) == device_of(w.cu)) {
            ++l1_[cu].epoch;
            ++reached;
        }
    }
    ++counters_.invalidations_remote;
    charge(w, costs_.invalidate + costs_.remote_per_cu * reached);
}

// A waiter's trace (work_item::trace) marks it as waiting here once and then stays put: each retry finds
// the waiter in the same local state, so a run that only spins revisits a state (and the exhaustive
// exploration cuts it there) instead of making a new state per retry.
void scoped_cache_model::wait_rmw_ready(work_item& w) {
    bool marked = false;
    std::uint64_t waiting = 0;
    while (l1_[w.cu].rmw_holder != 0 && l1_[w.cu].rmw_holder != who(w)) {
        stall(w, l1_[w.cu].holder);
        if (!marked) {
            observe(w, 0x5741); // waiting here, not past the lock: a position of its own
            waiting = w.trace;
            marked = true;
        }
        w.trace = waiting;
        yield(w); // another work-item holds the device-wide RMW locks (a remote RMW or store)
    }
}

void scoped_cache_model::lock_rmw_all(work_item& w) {
    bool marked = false;
    std::uint64_t waiting = 0;
    for (;;) {
        const work_item* other = nullptr;
        for (std::size_t cu = 0; cu < l1_.size(); ++cu) {
            const l1_cache& c = l1_[cu];
            if (device_of(static_cast<unsigned>(cu)) == device_of(w.cu) && c.rmw_holder != 0 &&
                c.rmw_holder != who(w) && (!other || c.holder->clock > other->clock)) {
                other = c.holder;
            }
        }
        if (!other) {
            break;
        }
        stall(w, other);
        if (!marked) {
            observe(w, 0x4c4b);
            waiting = w.trace;
            marked = true;
        }
        w.trace = waiting;
        yield(w);
    }
    for (std::size_t cu = 0; cu < l1_.size(); ++cu) {
        if (device_of(static_cast<unsigned>(cu)) == device_of(w.cu)) {
            l1_[cu].rmw_holder = who(w);
            l1_[cu].holder = &w;
        }
    }
    charge(w, costs_.rmw_lock);
}

void scoped_cache_model::unlock_rmw_all(work_item& w) {
    for (auto& c : l1_) {
        if (c.rmw_holder == who(w)) {
            c.rmw_holder = 0;
            c.holder = nullptr;
        }
    }
}

void scoped_cache_model::wait_l2_ready(work_item& w, std::uintptr_t addr) {
    bool marked = false;
    std::uint64_t waiting = 0;
    while (!l2_locks_.empty()) { // original scheme only; empty under proposed
        auto it = l2_locks_.find(addr);
        if (it == l2_locks_.end() || it->second.first == who(w)) {
            return;
        }
        stall(w);
        if (!marked) {
            observe(w, 0x4c32);
            waiting = w.trace;
            marked = true;
        }
        w.trace = waiting;
        yield(w);
    }
}

void scoped_cache_model::lock_l2(work_item& w, std::uintptr_t addr) {
    wait_l2_ready(w, addr);
    l2_locks_[addr] = {who(w), w.cu};
}

void scoped_cache_model::unlock_l2(std::uintptr_t addr) { l2_locks_.erase(addr); }

// ---- operations ---------------------------------------------------------------------------------
//
// Row numbers refer to RSP Table 3 (docs/memory-model.md). "Device scope" includes system scope: one
// device, and its L2 stands for memory.

std::uint64_t scoped_cache_model::plain_load(work_item& w, const void* p, unsigned size) {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    if (scratch(addr)) {
        ++counters_.plain_loads;
        return scratch_load(w, addr, size);
    }
    note_location(addr, size);
    environment(w);
    ++counters_.plain_loads;
    return l1_load(w, addr, size); // row 1
}

void scoped_cache_model::plain_store(work_item& w, void* p, unsigned size, std::uint64_t value) {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    if (scratch(addr)) {
        ++counters_.plain_stores;
        scratch_store(w, addr, size, value);
        return;
    }
    note_location(addr, size);
    environment(w);
    ++counters_.plain_stores;
    l1_store(w, addr, size, value); // row 4
}

std::uint64_t scoped_cache_model::load(work_item& w, const mm_access& a) {
    const auto addr = reinterpret_cast<std::uintptr_t>(a.address);
    if (scratch(addr)) {
        count_atomic(a);
        return scratch_load(w, addr, a.size); // local memory: performed at once, at every scope
    }
    note_location(addr, a.size);
    environment(w);
    count_atomic(a);
    if (!device_scope(a.scope)) {
        return l1_load(w, addr, a.size); // row 1: the work-group's L1 is where it agrees
    }
    const bool acq = acquires(a.order);
    const bool mem = at_memory(a.scope); // system scope on several devices: past the device's L2
    if (a.remote) {
        if (scheme_ == rsp_scheme::proposed) { // row 3: LD; FLU_L1 DV; INV_L1 WG
            const std::uint64_t v = l2_load(w, addr, a.size, mem);
            between(w);
            flush_all(w);
            between(w);
            invalidate_own(w, mem);
            return v;
        }
        lock_l2(w, addr); // original row 3: LK_L2 x; FLU_L1 DV; INV_L1 WG; LD; UL_L2 x
        between(w);
        flush_all(w);
        between(w);
        invalidate_own(w, mem);
        between(w);
        const std::uint64_t v = l2_load(w, addr, a.size, mem);
        between(w);
        unlock_l2(addr);
        return v;
    }
    if (acq && scheme_ == rsp_scheme::original) { // original row 2: INV_L1 WG; LD (bug 1)
        invalidate_own(w, mem);
        between(w); // here the environment can re-fetch stale data: RSP Fig. 4
        return l2_load(w, addr, a.size, mem);
    }
    const std::uint64_t v = l2_load(w, addr, a.size, mem); // row 2: LD; then INV_L1 WG (after: RSP §5.5.1)
    between(w);
    if (acq) {
        invalidate_own(w, mem);
    }
    return v;
}

void scoped_cache_model::store(work_item& w, const mm_access& a, std::uint64_t value) {
    const auto addr = reinterpret_cast<std::uintptr_t>(a.address);
    if (scratch(addr)) {
        count_atomic(a);
        scratch_store(w, addr, a.size, value);
        return;
    }
    const bool mem = at_memory(a.scope);
    note_location(addr, a.size);
    environment(w);
    count_atomic(a);
    if (!device_scope(a.scope)) {
        l1_store(w, addr, a.size, value); // row 4
        return;
    }
    if (a.remote) {
        if (scheme_ == rsp_scheme::proposed) {
            // row 6: LK_rmw DV; FLU_L1 DV; INV_L1 DV; ST; FLU_L1 WG; INV_L1 DV; UL_rmw DV
            in_turn([&] { between(w); }, [&] { lock_rmw_all(w); }, [&] { flush_all(w); },
                    [&] { invalidate_all(w); }, [&] { l2_store(w, addr, a.size, value, mem); },
                    [&] { flush_own(w); }, [&] { invalidate_all(w); }, [&] { unlock_rmw_all(w); });
            return;
        }
        // original row 6: LK_L2 x; FLU_L1 WG; ST; INV_L1 DV; UL_L2 x (bug 2: others' dirty increments
        // survive the invalidate and are flushed over the stored value)
        in_turn([&] { between(w); }, [&] { lock_l2(w, addr); }, [&] { flush_own(w, mem); },
                [&] { l2_store(w, addr, a.size, value, mem); }, [&] { invalidate_all(w); },
                [&] { unlock_l2(addr); });
        return;
    }
    if (releases(a.order)) { // row 5: FLU_L1 WG; ST
        flush_own(w, mem);
        between(w);
    }
    l2_store(w, addr, a.size, value, mem);
}

std::uint64_t scoped_cache_model::rmw(work_item& w, const mm_access& a, mm_rmw op, std::uint64_t operand,
                                      std::uint64_t desired, bool* cas_ok) {
    const auto addr = reinterpret_cast<std::uintptr_t>(a.address);
    const std::uint64_t m = mask_of(a.size);
    bool ok = true;
    const auto compute = [&](std::uint64_t old) {
        if (op == mm_rmw::cas) {
            ok = (old & m) == (operand & m);
            return ok ? desired & m : old;
        }
        return apply(op, old, operand, a.size, a.is_signed) & m;
    };
    if (scratch(addr)) { // local memory: one indivisible step at the scratchpad
        count_atomic(a);
        const std::uint64_t old = scratch_load(w, addr, a.size);
        const std::uint64_t nv = compute(old);
        if (op != mm_rmw::cas || ok) {
            scratch_store(w, addr, a.size, nv);
        }
        if (cas_ok) {
            *cas_ok = ok;
        }
        return old;
    }
    const bool mem = at_memory(a.scope);
    note_location(addr, a.size);
    environment(w);
    count_atomic(a);
    std::uint64_t old = 0;
    if (!device_scope(a.scope)) { // row 7: INC_L1, under the work-group's RMW lock
        wait_rmw_ready(w);
        old = l1_load(w, addr, a.size);
        const std::uint64_t nv = compute(old);
        if (op != mm_rmw::cas || ok) {
            l1_store(w, addr, a.size, nv);
        }
    } else {
        const auto at_l2 = [&] { // INC_L2: at L2, after dropping the own (written-back) copy
            prepare_l2(w, addr, a.size);
            if (entry* e = find(l1_[w.cu], addr)) {
                e->epoch = 0; // invalid until re-fetched
            }
            ++counters_.l2_accesses;
            charge(w, mem ? costs_.system_access : costs_.l2_access);
            const std::uint64_t o = level_read(w, addr, a.size, mem);
            observe(w, o);
            const std::uint64_t nv = compute(o);
            if (op != mm_rmw::cas || ok) {
                level_write(w, addr, a.size, nv, mem);
            }
            return o;
        };
        if (a.remote) {
            if (scheme_ == rsp_scheme::proposed) {
                // row 9: LK_rmw DV; FLU_L1 DV; INV_L1 DV; INC_L2; FLU_L1 DV; INV_L1 DV; UL_rmw DV
                in_turn([&] { between(w); }, [&] { lock_rmw_all(w); }, [&] { flush_all(w); },
                        [&] { invalidate_all(w); }, [&] { old = at_l2(); }, [&] { flush_all(w); },
                        [&] { invalidate_all(w); }, [&] { unlock_rmw_all(w); });
            } else {
                // original row 9: LK_rmw DV; LK_L2 x; FLU_L1 DV; INV_L1 WG; INC_L2; INV_L1 DV; UL_L2; UL_rmw
                in_turn([&] { between(w); }, [&] { lock_rmw_all(w); }, [&] { lock_l2(w, addr); },
                        [&] { flush_all(w); }, [&] { invalidate_own(w); }, [&] { old = at_l2(); },
                        [&] { invalidate_all(w); }, [&] { unlock_l2(addr); }, [&] { unlock_rmw_all(w); });
            }
        } else {
            if (releases(a.order)) { // row 8: FLU_L1 WG; INC_L2; INV_L1 WG
                flush_own(w, mem);
                between(w);
            }
            if (scheme_ == rsp_scheme::original && acquires(a.order)) {
                invalidate_own(w, mem); // original row 8: the invalidate precedes the RMW (bug 1 again)
                between(w);
                wait_rmw_ready(w);
                old = at_l2();
            } else {
                wait_rmw_ready(w);
                old = at_l2();
                const bool acq = op == mm_rmw::cas && !ok ? acquires(a.failure_order) : acquires(a.order);
                if (acq) {
                    between(w);
                    invalidate_own(w, mem);
                }
            }
        }
    }
    if (cas_ok) {
        *cas_ok = ok;
    }
    return old;
}

void scoped_cache_model::fence(work_item& w, canopy::scope s, std::memory_order o) {
    environment(w);
    ++counters_.fences[static_cast<std::size_t>(s)][order_index(o)];
    if (!device_scope(s)) {
        return; // the work-group's L1 is shared: nothing to flush or invalidate
    }
    if (releases(o)) {
        flush_own(w, at_memory(s));
    }
    if (acquires(o)) {
        invalidate_own(w, at_memory(s));
    }
}

void scoped_cache_model::barrier(unsigned) {
    // A work-group barrier orders at work-group scope, where the shared L1 already agrees.
}

void scoped_cache_model::kernel_end() {
    // The kernel's end makes everything it wrote visible to the host: write every L1 back.
    for (auto& c : l1_) {
        for (auto& e : c.entries) {
            if (e.dirty) {
                write_back(c, e);
            }
        }
        c.entries.clear();
        c.index.clear();
        c.dirty.clear();
        counters_.cycles_max_cu = std::max(counters_.cycles_max_cu, c.cycles);
        c.cycles = 0;
    }
    for (auto& c : l2_) { // several devices: then every L2 (the L1s' write-backs landed there)
        for (auto& e : c.entries) {
            if (e.dirty) {
                memory_write(e.addr, e.size, e.value);
            }
        }
        c.entries.clear();
        c.index.clear();
        c.dirty.clear();
    }
    l2_locks_.clear();
}

} // namespace canopy::emu
