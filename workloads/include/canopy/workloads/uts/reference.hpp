// canopy/workloads/uts/reference.hpp — the sequential reference traversal: iterative depth-first with an
// explicit stack (host only). Counts every node once (root too), the largest height, and the leaves.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "canopy/workloads/uts/rules.hpp"

namespace canopy::workloads::uts {

struct counts {
    std::uint64_t nodes = 0, leaves = 0;
    int depth = 0;
    friend bool operator==(const counts&, const counts&) = default;
};

/// Called about every `progress_every` nodes with the counts so far (for a progress line).
using progress_fn = std::function<void(const counts&)>;

inline counts traverse_sequential(const params& p, const progress_fn& progress = {},
                                  std::uint64_t progress_every = 1u << 22) {
    struct frame {
        node_state s;
        int height;
        tree_type type;
    };
    std::vector<frame> stack;
    stack.reserve(4096);
    stack.push_back({root_state(p.root_seed), 0, root_type(p)});
    counts c;
    std::uint64_t next_report = progress_every;
    while (!stack.empty()) {
        const frame f = stack.back();
        stack.pop_back();
        ++c.nodes;
        if (f.height > c.depth) {
            c.depth = f.height;
        }
        const int n = num_children(p, f.s, f.height, f.type);
        if (n <= 0) {
            ++c.leaves;
        } else {
            const tree_type ct = child_type(p, f.height);
            for (int i = n - 1; i >= 0; --i) { // child 0 on top: the reference's visiting order
                stack.push_back(
                    {spawn_state(f.s, static_cast<unsigned>(i), p.granularity), f.height + 1, ct});
            }
        }
        if (progress && c.nodes >= next_report) {
            progress(c);
            next_report += progress_every;
        }
    }
    return c;
}

} // namespace canopy::workloads::uts
