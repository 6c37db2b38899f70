// canopy/workloads/graph/partitioned_bfs.hpp — one part of a BFS over a 1-D block partition of the
// vertices (partition.hpp): the device half of BFS across MPI ranks or emulated devices
// (docs/scale-out.md). The drivers that exchange between parts are the CLI's (under mpirun) and
// compiled::bfs_partitioned (every part in one process).
//
// A part stores its own vertices' out-arcs (rows lo..hi of the CSR, targets kept global) and their
// levels. One BFS level is three steps, the same on every part:
//   1. expand (a kernel): for every vertex u of the part's frontier, for every arc u->v: if the part
//      owns v, claim v for level k + 1; otherwise append v to the outbox;
//   2. exchange (the driver): the outbox, binned by owner, goes to the other parts (MPI_Alltoallv, or a
//      copy in one process); a vertex already sent once is never sent again (below);
//   3. receive (a kernel): claim every vertex the other parts sent, for level k + 1;
// then the parts sum their next frontiers' sizes, and all of them stop at the same level when it is 0.
//
// Exact: a claim writes level k + 1 in level k only, and a vertex v at distance d + 1 has a neighbour u
// at distance d, which (by induction) is in its owner's frontier at level d; so v is claimed in level d,
// in step 1 or 3, and never earlier (that would make its distance smaller). The claim is a relaxed
// device-scope fetch_min: the one lane that lowers v from unreached appends it to the next frontier, so
// a vertex enters a frontier once. Relaxed suffices because levels carry no other data; the frontier
// and the outbox are read after the kernel ends, and the kernel boundary orders those reads (the same
// argument as strategies.hpp's multi-kernel BFS). The termination is the sum: after the exchange every
// vertex still to be expanded is in some part's next frontier, so a zero sum, which every part
// computes from the same sizes, means no part has work.
//
// Why a remote vertex is sent at most once over the whole search: its owner claims it at level k + 1 at
// the latest when it arrives in level k, so sending it again in a later level could not lower it. The
// filter is a bitmap on the host, over the vertices the part does not own (Graph500's reference MPI
// BFS sends duplicates). On copter2 it sends 24% of the remote arcs' targets on 2 parts, 27% on 4.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/partition.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

namespace detail {

/// Claims vertex v (owned by the part whose first vertex is lo) for `level`; the one lane that lowers it
/// from unreached appends it to `next`.
CANOPY_DEVICE inline void claim(std::uint32_t* levels, vertex_id lo, vertex_id v, std::uint32_t level,
                                vertex_id* next, unsigned* next_count) {
    // Relaxed, device scope: levels carry no other data (see the header); the load is a cheap filter,
    // since levels only fall.
    atomic_ref<std::uint32_t, scope::device> lv(levels[v - lo]);
    if (lv.load(std::memory_order_relaxed) <= level) {
        return;
    }
    if (lv.fetch_min(level, std::memory_order_relaxed) <= level) {
        return; // another lane, in this kernel, claimed it first
    }
    const unsigned slot =
        atomic_ref<unsigned, scope::device>(*next_count).fetch_add(1, std::memory_order_relaxed);
    st(&next[slot], v); // read by the host and the next level's kernel, after this kernel has ended
}

/// Step 1: expands the part's frontier of level `level`.
struct part_expand_kernel {
    const edge_id* offsets;   // the part's rows: size + 1 entries, from 0
    const vertex_id* targets; // global vertex ids
    std::uint32_t* levels;    // the part's vertices'
    vertex_id lo, hi;
    const vertex_id* cur;
    unsigned cur_count;
    vertex_id* next;
    unsigned* counts; // [0] the next frontier's size, [1] the outbox's
    vertex_id* out;
    std::uint32_t level;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        for (unsigned i = global_id(); i < cur_count; i += stride) {
            const vertex_id u = ld(&cur[i]) - lo; // written by the previous level's kernels
            const edge_id end = offsets[u + 1];
            for (edge_id e = offsets[u]; e < end; ++e) {
                const vertex_id v = targets[e];
                if (v >= lo && v < hi) {
                    claim(levels, lo, v, level + 1, next, &counts[0]);
                } else {
                    const unsigned slot = atomic_ref<unsigned, scope::device>(counts[1]).fetch_add(
                        1, std::memory_order_relaxed);
                    st(&out[slot], v); // read by the host after the kernel
                }
            }
        }
    }
};

/// Step 3: claims the vertices the other parts sent.
struct part_receive_kernel {
    std::uint32_t* levels;
    vertex_id lo;
    const vertex_id* in; // uploaded by the host before the launch
    unsigned in_count;
    vertex_id* next;
    unsigned* next_count;
    std::uint32_t level;
    CANOPY_DEVICE void operator()() const {
        const unsigned stride = grid_dim() * block_dim();
        for (unsigned i = global_id(); i < in_count; i += stride) {
            claim(levels, lo, ld(&in[i]), level + 1, next, next_count);
        }
    }
};

/// Launches k over `items` items, one per work-item, on at most the resident work-groups (the kernels
/// stride). A block size that cannot launch throws canopy::error from launch().
template <class K> void launch_items(unsigned items, unsigned block, const K& k) {
    if (items == 0) {
        return;
    }
    const unsigned resident = max_resident_blocks<K>(block);
    const unsigned want = (items + block - 1) / block;
    launch_config cfg;
    cfg.block = block;
    cfg.grid = resident != 0 && want > resident ? resident : want;
    launch(cfg, k);
}

} // namespace detail

/// One part's device state and its two steps; the driver exchanges between the parts.
class bfs_part {
  public:
    bfs_part(const csr_graph& g, block_partition p, unsigned me, unsigned block)
        : p_(p), me_(me), block_(block), lo_(p.lo(me)), hi_(p.hi(me)), offsets_(rows(g, lo_, hi_)),
          targets_(row_targets(g, lo_, hi_)), levels_(std::vector<std::uint32_t>(hi_ - lo_, unreached_level)),
          q0_(at_least_one(hi_ - lo_)), q1_(at_least_one(hi_ - lo_)), out_(at_least_one(targets_.size())),
          in_(1), counts_(2), sent_(g.num_vertices(), false) {}

    vertex_id lo() const { return lo_; }
    vertex_id hi() const { return hi_; }

    /// Puts the source in the frontier of level 0 when this part owns it.
    void seed(vertex_id source) {
        if (source >= lo_ && source < hi_) {
            const std::uint32_t zero = 0;
            levels_.upload_at(source - lo_, &zero, 1);
            cur().upload(&source, 1);
            cur_count_ = 1;
        }
    }

    /// Step 1 of the current level: returns the remote vertices reached, by owning part (to[r] for part
    /// r; empty for this part), each vertex at most once over the whole search.
    std::vector<std::vector<vertex_id>> expand() {
        counts_.fill_zero();
        detail::launch_items(cur_count_, block_,
                             detail::part_expand_kernel{offsets_.data(), targets_.data(), levels_.data(), lo_,
                                                        hi_, cur().data(), cur_count_, next().data(),
                                                        counts_.data(), out_.data(), level_});
        launches_ += cur_count_ != 0 ? 1 : 0;
        unsigned counts[2];
        counts_.download(counts, 2);
        std::vector<std::vector<vertex_id>> to(p_.parts);
        if (counts[1] != 0) {
            std::vector<vertex_id> out(counts[1]);
            out_.download(out.data(), out.size());
            remote_arcs_ += out.size();
            for (const vertex_id v : out) {
                if (!sent_[v]) {
                    sent_[v] = true;
                    to[p_.owner(v)].push_back(v);
                    ++sent_count_;
                }
            }
        }
        return to;
    }

    /// Step 3: claims the vertices received from the other parts, and ends the level. Returns the next
    /// frontier's size, which the driver sums over the parts.
    std::uint64_t receive(std::span<const vertex_id> in) {
        if (!in.empty()) {
            if (in.size() > in_.size()) {
                in_ = device_buffer<vertex_id>(in.size());
            }
            for (const vertex_id v : in) {
                if (v < lo_ || v >= hi_) { // a driver's bug: the kernel would write outside the part
                    throw error("canopy graph: partitioned BFS: part " + std::to_string(me_) +
                                " received vertex " + std::to_string(v) + ", which it does not own");
                }
            }
            in_.upload(in.data(), in.size());
            detail::launch_items(static_cast<unsigned>(in.size()), block_,
                                 detail::part_receive_kernel{levels_.data(), lo_, in_.data(),
                                                             static_cast<unsigned>(in.size()), next().data(),
                                                             counts_.data(), level_});
            ++launches_;
        }
        counts_.download(&cur_count_, 1);
        flip_ = !flip_;
        ++level_;
        return cur_count_;
    }

    std::vector<std::uint32_t> levels() const { return levels_.to_vector(); }
    std::uint64_t launches() const { return launches_; }
    std::uint64_t remote_arcs() const { return remote_arcs_; } // outbox entries, before the filter
    std::uint64_t sent() const { return sent_count_; }         // vertices sent to other parts

  private:
    static std::size_t at_least_one(std::size_t n) { return n != 0 ? n : 1; }
    static std::vector<edge_id> rows(const csr_graph& g, vertex_id lo, vertex_id hi) {
        std::vector<edge_id> r(hi - lo + 1);
        const auto off = g.offsets();
        for (vertex_id v = lo; v <= hi; ++v) {
            r[v - lo] = off[v] - off[lo];
        }
        return r;
    }
    static std::vector<vertex_id> row_targets(const csr_graph& g, vertex_id lo, vertex_id hi) {
        const auto off = g.offsets();
        const auto t = g.targets();
        std::vector<vertex_id> r(t.begin() + static_cast<std::ptrdiff_t>(off[lo]),
                                 t.begin() + static_cast<std::ptrdiff_t>(off[hi]));
        return r.empty() ? std::vector<vertex_id>(1, 0) : r; // a device buffer holds at least one
    }
    device_buffer<vertex_id>& cur() { return flip_ ? q1_ : q0_; }
    device_buffer<vertex_id>& next() { return flip_ ? q0_ : q1_; }

    block_partition p_;
    unsigned me_, block_;
    vertex_id lo_, hi_;
    device_buffer<edge_id> offsets_;
    device_buffer<vertex_id> targets_;
    device_buffer<std::uint32_t> levels_;
    device_buffer<vertex_id> q0_, q1_, out_, in_;
    device_buffer<unsigned> counts_;
    std::vector<bool> sent_; // over all vertices; only the other parts' are ever set
    bool flip_ = false;
    unsigned cur_count_ = 0;
    std::uint32_t level_ = 0;
    std::uint64_t launches_ = 0, remote_arcs_ = 0, sent_count_ = 0;
};

} // namespace canopy::workloads::graph
