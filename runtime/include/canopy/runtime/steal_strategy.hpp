// canopy/runtime/steal_strategy.hpp — how a work-group takes work from another (policy_traits): the
// cores call one strategy's hooks at fixed points of their pick, and never branch on the policy.
//
//   steal_none          hrf-direct, hrf-indirect: work moves only by donation, into the device queues;
//   steal_by_request    steal-emulated (steal_emulated.hpp): ask, and be answered through a mailbox;
//   steal_by_promotion  steal-rsp, broken-steal (steal_rsp.hpp): take with remote-promoted operations.
//
// The hooks, in the order a pick calls them:
//   serve(core, wg, counters)          before the private queue: answer a thief that asked this work-group;
//   received(core, sg, thief)     after the private queue: true when a stolen front waits in a mailbox
//                                 (thief: the loop state's thief word, steal_emulated.hpp);
//   on_idle(core, wg, nwg, sg, loop state, backoff, ticket, ring)
//                                 after the shared queues came up empty: steal, or ask; true when a front
//                                 was taken (detail::pk_rsp), with the core's ticket in ticket and ring;
//   advertises                    whether the work-group queues keep their adverts current and are kept
//                                 stocked for thieves (the ring core's share decision).
// A fourth strategy is one more header with these hooks, one more policy, and its tests.
#pragma once

#include <type_traits>

#include "canopy/platform/config.hpp"
#include "canopy/runtime/policy.hpp"
#include "canopy/runtime/steal_emulated.hpp"
#include "canopy/runtime/steal_rsp.hpp"

namespace canopy::runtime {

struct steal_none {
    static constexpr bool advertises = false;
    template <class Core> CANOPY_DEVICE static void serve(const Core&, unsigned, unsigned*) {}
    template <class Core> CANOPY_DEVICE static bool received(const Core&, unsigned, unsigned&) {
        return false;
    }
    template <class Core, class State, class Backoff>
    CANOPY_DEVICE static bool on_idle(const Core&, unsigned, unsigned, unsigned, State&, Backoff&, unsigned&,
                                      unsigned&) {
        return false;
    }
};

/// The strategy a policy steals by.
template <class Traits>
using steal_strategy =
    std::conditional_t<Traits::steal_rsp, steal_by_promotion,
                       std::conditional_t<Traits::steal_emulated, steal_by_request, steal_none>>;

} // namespace canopy::runtime
