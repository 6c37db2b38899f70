// tests/codegen/system_level_kernels.cpp — the system level's moves (runtime/system_level.hpp) compiled
// alone, so that check_codegen.sh can show their orders and scopes in PTX and the AMDGPU IR. The
// emulator's models perform each work-item's RMWs in program order, so a relaxed RMW there is never
// reordered with the RMW after it; the hardware may, and these orders are what forbid it
// (docs/mutations.md: the mutations system-dry-acquire-dropped and system-donation-release-relaxed).
//
// Each kernel is extern "C" and named cg_system_<move>, as in scopes_kernels.cpp.
#include "canopy/runtime/system_level.hpp"

#define CANOPY_CG_KERNEL extern "C" CANOPY_KERNEL void

// dry: the device-scope acquire fence, then the system-scope credit removal.
CANOPY_CG_KERNEL cg_system_dry(unsigned* sys) { canopy::runtime::system_level{sys, 0}.device_dry(); }

// donate: the tasks' credit (system scope), then the device count's release (device scope), and when
// that made it 0, the dry move. The fronts' publication between them is the ring's (front_ring.hpp).
CANOPY_CG_KERNEL cg_system_donate(unsigned* sys, unsigned* outstanding, unsigned tasks, unsigned* out) {
    const canopy::runtime::system_level s{sys, 0};
    s.credit_donation(tasks);
    out[canopy::thread_id()] = s.donated(outstanding, tasks) ? 1U : 0U;
}

// take: the device count, the device's credit when it was dry, then the tasks' credit.
CANOPY_CG_KERNEL cg_system_take(unsigned* sys, unsigned* outstanding, unsigned tasks) {
    canopy::runtime::system_level{sys, 0}.taken(outstanding, tasks);
}
