// canopy/queues/front.hpp — the task-front: up to one sub-group's worth of tasks of one type (HRF §7.1).
//
// A front lives in device memory as 32-bit words: [type, count, payload of lane 0, payload of lane 1, ...],
// each payload `payload_words` words. Fronts are written and read with canopy::ld / canopy::st (plain
// accesses the emulator's scoped-cache model tracks) and published by the scoped release of whichever
// queue or mailbox holds them; this header does no synchronization itself.
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/platform/plain_access.hpp"

namespace canopy::queues {

/// The shape of every front of one run: lanes per front (the sub-group size) and words per payload.
struct front_shape {
    unsigned lanes = 0;
    unsigned payload_words = 0;
    CANOPY_HOST_DEVICE constexpr unsigned words() const { return 2 + lanes * payload_words; }
};

/// A view of one front in device memory.
struct front_ref {
    unsigned* w = nullptr;
    front_shape shape;

    CANOPY_DEVICE unsigned type() const { return ld(&w[0]); }
    CANOPY_DEVICE unsigned count() const { return ld(&w[1]); }
    CANOPY_DEVICE void set_header(unsigned type, unsigned count) const {
        st(&w[0], type);
        st(&w[1], count);
    }
    CANOPY_DEVICE unsigned* payload(unsigned lane) const { return w + 2 + lane * shape.payload_words; }

    /// Copies `count` tasks and the header from `src` (one work-item does it: the sub-group leader).
    CANOPY_DEVICE void copy_from(const front_ref& src) const {
        const unsigned t = src.type();
        unsigned n = src.count();
        n = n > shape.lanes ? shape.lanes : n; // a corrupt count is caught by the consumer's check
        for (unsigned i = 0; i < n * shape.payload_words; ++i) {
            st(&w[2 + i], ld(&src.w[2 + i]));
        }
        set_header(t, n);
    }
};

} // namespace canopy::queues
