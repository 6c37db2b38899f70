// canopy/runtime/policy.hpp — the scheduling policies a run chooses at run time, and their scopes.
//
// See docs/scopes.md for the table of every queue operation x policy -> scope and order, and why.
//   hrf_direct      every hand-off at device scope (HRF §7.2: the consumer is unknown at enqueue time);
//   hrf_indirect    narrowest scope; a donation acquires at the narrow scope, releases at the wide one;
//   steal_emulated  work-group queues at work-group scope; thieves post device-scope steal requests that
//                   the owner answers at its next scheduling point (owner-promotes handshake);
//   steal_rsp       emulator only: thieves use remote-scope-promoted ops on the victim's WG queue.
// Test-only, broken on purpose (they exist to show that the scoped-cache model catches the bug; task_set::run
// refuses them, run_allowing_broken in broken_policies.hpp runs them):
//   broken_donation hrf_indirect whose donations into the device queue release at work-group scope;
//   broken_steal    steal_rsp whose thief uses plain work-group-scope ops (no promotion).
#pragma once

#include <string>

#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/scope.hpp"

namespace canopy::runtime {

enum class policy : unsigned {
    hrf_direct,
    hrf_indirect,
    steal_emulated,
    steal_rsp,
    broken_donation,
    broken_steal
};

inline constexpr policy all_policies[] = {policy::hrf_direct, policy::hrf_indirect, policy::steal_emulated,
                                          policy::steal_rsp};

constexpr const char* to_string(policy p) {
    switch (p) {
    case policy::hrf_direct: return "hrf-direct";
    case policy::hrf_indirect: return "hrf-indirect";
    case policy::steal_emulated: return "steal-emulated";
    case policy::steal_rsp: return "steal-rsp";
    case policy::broken_donation: return "broken-donation";
    case policy::broken_steal: return "broken-steal";
    }
    return "?";
}

/// Whether parse_policy accepts the deliberately broken policies: only a test or `canopy stress
/// --with-broken-policies` asks for them (a user who typed "broken-steal" gets an error, not a race).
enum class broken_policies : bool { refused = false, accepted = true };

/// Whether this backend can run policy p: steal-rsp and broken-steal need remote-scope promotion,
/// which only the CPU emulator models (no GPU exposes it).
inline constexpr bool policy_available(policy p) {
#if defined(CANOPY_BACKEND_CPU)
    (void)p;
    return true;
#else
    return p != policy::steal_rsp && p != policy::broken_steal;
#endif
}

/// Parses a policy name; throws canopy::error naming the valid ones otherwise: an unknown name, a
/// broken-* policy unless `broken` accepts them, or a policy this backend cannot run (steal-rsp on a
/// GPU backend is refused here, when the flag is parsed, not later when run() would throw).
inline policy parse_policy(const std::string& s, broken_policies broken = broken_policies::refused) {
    for (policy p : {policy::hrf_direct, policy::hrf_indirect, policy::steal_emulated, policy::steal_rsp,
                     policy::broken_donation, policy::broken_steal}) {
        if (s != to_string(p)) {
            continue;
        }
        if ((p == policy::broken_donation || p == policy::broken_steal) &&
            broken == broken_policies::refused) {
            throw error("canopy::runtime: policy '" + s +
                        "' is broken on purpose and exists only for tests (canopy stress "
                        "--with-broken-policies); use hrf-direct, hrf-indirect, steal-emulated or steal-rsp");
        }
        if (!policy_available(p)) {
            throw error("canopy::runtime: policy '" + s +
                        "' needs remote-scope promotion, which only the CPU emulator models (this is the " +
                        CANOPY_BACKEND_NAME +
                        " backend); use steal-emulated, the same stealing with an owner-promotes handshake");
        }
        return p;
    }
    throw error("canopy::runtime: unknown policy '" + s +
                "' (valid: hrf-direct, hrf-indirect, steal-emulated" +
                (policy_available(policy::steal_rsp) ? ", steal-rsp)" : ")"));
}

/// Compile-time facts of a policy: the scope of each queue level and which mechanisms it uses.
template <policy P> struct policy_traits {
    static constexpr bool direct = P == policy::hrf_direct;
    /// Private (sub-group) queue: HRF-direct must use device scope even inside a sub-group (digest §2.2,
    /// P6: the lane that wrote a task and the eventual consumer must sync at one scope).
    static constexpr scope private_scope = direct ? scope::device : scope::subgroup;
    /// Work-group queue.
    static constexpr scope workgroup_scope = direct ? scope::device : scope::workgroup;
    /// Device queue: touched by every work-group, so device scope in every policy (P6).
    static constexpr scope device_scope = scope::device;
    /// Donations into the device queue (work-sharing policies only).
    static constexpr bool donates_to_device =
        P == policy::hrf_direct || P == policy::hrf_indirect || P == policy::broken_donation;
    static constexpr bool steal_emulated = P == policy::steal_emulated;
    static constexpr bool steal_rsp = P == policy::steal_rsp || P == policy::broken_steal;
    static constexpr bool broken_donation = P == policy::broken_donation;
    static constexpr bool broken_steal = P == policy::broken_steal;
};

} // namespace canopy::runtime
