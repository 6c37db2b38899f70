// Emulator: every collective gathers one value per live lane (emulator::collective), then each lane
// computes its own result from the snapshot, so one gather serves every operation and any Op.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/work_item.hpp"
#include "canopy/platform/detail/cpu/bits.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/site.hpp"

namespace canopy {
inline lane_mask ballot(bool p, CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    const std::uint64_t* v = emu::collective(emu::collective_kind::ballot, p ? 1 : 0, where, &m);
    lane_mask r = 0;
    for (lane_mask b = m; b != 0; b &= b - 1) { // the live lanes only (every lane runs this loop)
        const unsigned l = static_cast<unsigned>(std::countr_zero(b));
        r |= v[l] ? lane_mask{1} << l : 0;
    }
    return r;
}

inline bool any(bool p, CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    const std::uint64_t* v = emu::collective(emu::collective_kind::any, p ? 1 : 0, where, &m);
    for (lane_mask b = m; b != 0; b &= b - 1) {
        if (v[std::countr_zero(b)]) {
            return true;
        }
    }
    return false;
}

inline bool all(bool p, CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    const std::uint64_t* v = emu::collective(emu::collective_kind::all, p ? 1 : 0, where, &m);
    for (lane_mask b = m; b != 0; b &= b - 1) {
        if (!v[std::countr_zero(b)]) {
            return false;
        }
    }
    return true;
}

template <class T> T broadcast(T v, unsigned src, CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    const std::uint64_t* s = emu::collective(emu::collective_kind::broadcast, detail::to_bits(v), where, &m);
    if (src >= max_subgroup_size || !(m >> src & 1)) {
        emu::device_assert_failed("broadcast source lane is live",
                                  "broadcast from a lane that has exited or does not exist",
                                  where.file_name(), where.line());
    }
    return detail::from_bits<T>(s[src]);
}

template <class T> T shuffle(T v, unsigned src, CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    const std::uint64_t* s = emu::collective(emu::collective_kind::shuffle, detail::to_bits(v), where, &m);
    if (src >= max_subgroup_size || !(m >> src & 1)) {
        emu::device_assert_failed("shuffle source lane is live",
                                  "shuffle from a lane that has exited or does not exist", where.file_name(),
                                  where.line());
    }
    return detail::from_bits<T>(s[src]);
}

/// Arrival-counted like every collective: completes when every live lane of the sub-group has arrived,
/// which is what CUDA's __syncwarp(mask naming the whole warp) guarantees and no more. Lanes of one
/// sub-group share their CU's L1 in the scoped-cache model, so ordering their accesses needs no cache
/// action: the rendezvous is the whole effect (and the point the race detector will see as an edge).
inline void subgroup_barrier(CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    (void)emu::collective(emu::collective_kind::barrier, 0, where, &m);
}

template <class T, class Op> T exclusive_scan(T v, T init, Op op, CANOPY_SITE_PARAM) {
    lane_mask m = 0;
    const std::uint64_t* s = emu::collective(emu::collective_kind::scan, detail::to_bits(v), where, &m);
    const unsigned me = emu::self().lane;
    T acc = init;
    for (lane_mask b = m & ((lane_mask{1} << me) - 1); b != 0; b &= b - 1) { // live lanes below me
        acc = op(acc, detail::from_bits<T>(s[std::countr_zero(b)]));
    }
    return acc;
}
} // namespace canopy
