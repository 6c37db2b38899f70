// canopy/platform/peer.hpp — several devices in one process: how many there are, and peer access
// between them (the host side that the runtime's system level needs on GPUs: the system buffer in one
// device's memory, reached by the others; docs/scale-out.md). Host-only.
//
// Why only these three: a system-scope atomic or release on memory another device owns is the device
// side (platform/atomic.hpp's scope::system, which tests/codegen checks: PTX .sys, gfx9's L2 write-back
// and invalidate), and what it needs from the host is that the memory be mapped into the device's
// address space. Where peer access is impossible (no NVLink/xGMI or PCIe P2P between the two), host-
// pinned memory is the fallback every device reaches at system scope.
#pragma once

namespace canopy {

/// Devices this process sees: the backend's GPUs (0 when none). The emulator: 1 (its several devices
/// live inside one launch: emu::options::devices).
unsigned device_count();

/// Whether kernels on `device` can load, store and make atomic operations on memory allocated on `peer`.
/// A device reaches its own memory. Throws canopy::error for a device number beyond device_count().
bool can_access_peer(unsigned device, unsigned peer);

/// Maps `peer`'s memory into the address space of kernels on the current device (the one canopy
/// allocates on and launches on). Idempotent; a no-op for the current device itself. Throws canopy::error
/// when the two cannot reach each other, naming the fallback (host-pinned memory).
void enable_peer_access(unsigned peer);

} // namespace canopy
