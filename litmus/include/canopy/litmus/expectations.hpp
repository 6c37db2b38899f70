// canopy/litmus/expectations.hpp — verdicts known for tests of herd's corpus.
#pragma once

#include <optional>
#include <string>

namespace canopy::litmus {

/// What the OpenCL+RSP model says of a test's condition, where known: "forbidden" (race-free; no
/// consistent execution satisfies it: an implementation must never show it), "allowed", or "racy"
/// (a data race makes every outcome allowed). From Wickerson et al.'s RSP tests as analysed in
/// notes/scopes-hrf-rsp.md §3.4. nullopt: not known.
std::optional<std::string> known_verdict(const std::string& test_name);

/// Whether the OpenCL+RSP model (race_check_kind::rsp) finds a heterogeneous race in some consistent
/// execution of a test of the RSP corpus (notes/scopes-hrf-rsp.md §3.4's verdict column, with WSQ2 as
/// its caveat and herd have it); nullopt: not known, or not expressible (RSP_Test7's local memory).
std::optional<bool> known_racy(const std::string& test_name);

} // namespace canopy::litmus
