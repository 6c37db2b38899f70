// canopy/vocabulary/scope.hpp — synchronization scopes (HRF's scopes; libcu++'s thread_scope shape).
//
// A scope names the set of work-items an atomic or fence synchronizes with. Narrow scopes are cheap
// because the hardware can keep the data in a cache only that set shares: on AMD, work-group scope
// stays in the CU's L1 while device ("agent") scope must write back and invalidate it. A scope that is
// too narrow is a data race in HRF terms, and on a GPU it loses writes; the emulator's scoped-cache
// model (issue 3) makes that visible on a CPU.
#pragma once

namespace canopy {

enum class scope : unsigned char {
    subgroup = 0,  // the lanes of one sub-group (wavefront / warp)
    workgroup = 1, // the work-items of one work-group (block); shares the CU's L1
    device = 2,    // every work-item of the device (AMD "agent", PTX ".gpu")
    system = 3,    // device and host (PTX ".sys"); beyond what canopy's runtime needs
};

/// Tag types, so that overloads and template code can select on scope at compile time.
template <scope S> struct scope_tag { static constexpr scope value = S; };
using subgroup_scope = scope_tag<scope::subgroup>;
using workgroup_scope = scope_tag<scope::workgroup>;
using device_scope = scope_tag<scope::device>;
using system_scope = scope_tag<scope::system>;

constexpr const char* to_string(scope s) {
    switch (s) {
    case scope::subgroup: return "subgroup";
    case scope::workgroup: return "workgroup";
    case scope::device: return "device";
    case scope::system: return "system";
    }
    return "?";
}

/// True when `a` includes every work-item `b` includes.
constexpr bool includes(scope a, scope b) { return static_cast<int>(a) >= static_cast<int>(b); }

} // namespace canopy
