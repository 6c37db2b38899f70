// canopy/runtime/system_level.hpp — the level above the device: several devices in one run
// (config::devices > 1), each running the ring core over its own queues, sharing work through one
// system ring and ending together (docs/scale-out.md, "Several devices in one launch"; the scopes in
// docs/scopes.md, "System level").
//
// The words live in memory that every device reaches (host-pinned or peer memory on GPUs; host memory
// on the emulator), apart from the devices' own runtime buffers:
//   credits        system scope. The run's termination count: 1 for each device whose outstanding
//                  count is above 0, plus every task in the system ring. It reads 0 exactly when no task
//                  exists anywhere and none can appear, so a device whose own count is 0 leaves when
//                  it reads 0 and waits for the system ring otherwise. Why one counter and not the
//                  devices' counts scanned in turn: a scan can read the receiver before and the sender
//                  after a move and see two zeros (the four-counter pitfall, notes/scale-out.md §7.3);
//                  RMWs on one word are totally ordered, and every move adds its credit before the
//                  credit it replaces goes (below), so no prefix of that order reads 0 while work
//                  exists. One RMW per device transition and per move, none per task.
//   hungry         system scope, relaxed: how many devices are hungry (no task, or half their
//                  sub-groups idle): a hint that donors read every config::system_poll fronts; per
//                  device, a flag at device scope that elects the one sub-group that counts its device
//                  in (an idle leader) and out (a busy one, once fewer than half are idle).
//   system ring    a front_ring at system scope: donors push fronts with a system-scope release (their
//                  L1 and L2 written back to memory), a dry device pops with a system-scope acquire.
//
// Moves, and why the credits never read 0 early:
//   donate  (a busy device's sub-group, at a share point, when devices are hungry): credits += the
//           tasks; push + system release; its device's outstanding -= the tasks, a device-scope
//           release; if that made it 0: acquire fence, credits -= 1.
//   take    (a hungry device's idle leader): pop (system acquire); outstanding += the front's tasks;
//           if that was 0: credits += 1; then credits -= the tasks.
//   dry     (the sub-group whose count step made its device's outstanding 0): acquire fence (device
//           scope), credits -= 1.
// A take adds the device's credit before it removes the tasks' (program order on one word), and a
// donation adds the tasks' before its device can lose its own: the device-scope release on the
// outstanding count, read (through the RMWs after it) by the sub-group that makes it 0, whose acquire
// fence orders that credit before its removal. A device-scope acquire suffices there: the two
// sub-groups are on one device, and the credit RMW is at system scope, so HRF-indirect's transitivity
// carries it (the donor's system-scope RMW happens before its device-scope release).
#pragma once

#include "canopy/platform/platform.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/queues/scoped_access.hpp"
#include "canopy/runtime/stats.hpp"

namespace canopy::runtime {

/// Word offsets in the system buffer.
struct system_layout {
    static constexpr unsigned credits = 0;
    static constexpr unsigned hungry = 16; // its own 64-byte line: donors poll it
    static constexpr unsigned flags = 32;  // flags + d: device d is counted in `hungry`
    static constexpr unsigned max_devices = 64;
    static constexpr unsigned ring = flags + max_devices;
    /// Words of a buffer with a ring of `capacity` fronts of shape `s`.
    static constexpr unsigned long long words(unsigned capacity, queues::front_shape s) {
        return ring + queues::front_ring::words(capacity, s);
    }
};

/// The system level's words and its moves' counting, for the sub-groups of device `dev`. The ring core
/// calls these; tests/codegen compiles them alone (system_level_kernels.cpp) and checks that each
/// order and scope argued above reaches PTX and the AMDGPU IR, since the emulator's models perform a
/// work-item's RMWs in program order and cannot show the reorderings these orders forbid.
struct system_level {
    unsigned* sys = nullptr; // the system buffer (memory every device reaches)
    unsigned dev = 0;        // this sub-group's device

    // Relaxed: a count (the order of its RMWs is argued above); at system scope, since every device's
    // sub-groups update it.
    CANOPY_DEVICE atomic_ref<unsigned, scope::system> credits() const {
        return atomic_ref<unsigned, scope::system>(sys[system_layout::credits]);
    }
    // Relaxed: a hint for donors, like the idle counts.
    CANOPY_DEVICE atomic_ref<unsigned, scope::system> hungry_devices() const {
        return atomic_ref<unsigned, scope::system>(sys[system_layout::hungry]);
    }
    // Device scope: only this device's sub-groups touch its flag.
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> hungry_flag() const {
        return atomic_ref<unsigned, scope::device>(sys[system_layout::flags + dev]);
    }

    /// dry: the sub-group whose count step (or donation) left its device with no task.
    CANOPY_DEVICE void device_dry() const {
        // Acquire at device scope: a donor's release on the outstanding count (donated), read through
        // the RMWs after it, orders the donor's credit for its tasks before this removal.
        fence<scope::device>(std::memory_order_acquire);
        credits().fetch_sub(1u, std::memory_order_relaxed);
    }

    /// donate, before the fronts are published: the tasks' credit, while this device still holds its own.
    CANOPY_DEVICE void credit_donation(unsigned tasks) const {
        credits().fetch_add(tasks, std::memory_order_relaxed);
    }

    /// donate, after the fronts are published: this device's count falls by the tasks, with a
    /// device-scope release that the sub-group making it 0 acquires (device_dry). True when this call
    /// made it 0 (its device's credit is then gone too).
    CANOPY_DEVICE bool donated(unsigned* outstanding, unsigned tasks) const {
        const unsigned old =
            atomic_ref<unsigned, scope::device>(*outstanding).fetch_sub(tasks, std::memory_order_release);
        if (old == tasks) {
            device_dry();
            return true;
        }
        return false;
    }

    /// take, after the pop's system-scope acquire: this device's count first (before any of these tasks
    /// can run and count down), then its credit if it was dry, and only then the tasks' credit.
    CANOPY_DEVICE void taken(unsigned* outstanding, unsigned tasks) const {
        const unsigned old =
            atomic_ref<unsigned, scope::device>(*outstanding).fetch_add(tasks, std::memory_order_relaxed);
        if (old == 0) {
            credits().fetch_add(1u, std::memory_order_relaxed);
        }
        credits().fetch_sub(tasks, std::memory_order_relaxed);
    }

    /// hungry: counts the device in `hungry` once (the flag elects one sub-group).
    CANOPY_DEVICE void hungry() const {
        if (hungry_flag().load(std::memory_order_relaxed) == 0 &&
            hungry_flag().exchange(1u, std::memory_order_relaxed) == 0) {
            hungry_devices().fetch_add(1u, std::memory_order_relaxed);
        }
    }
    /// sated: busy again (fewer than half the device's sub-groups idle): the device leaves the count.
    CANOPY_DEVICE void sated() const {
        if (hungry_flag().load(std::memory_order_relaxed) == 1 &&
            hungry_flag().exchange(0u, std::memory_order_relaxed) == 1) {
            hungry_devices().fetch_sub(1u, std::memory_order_relaxed);
        }
    }
};

/// The system ring as one level of the ring core's stack (the same operations as level_workgroup.hpp's
/// and level_device.hpp's), with the moves' counting above: a take is counted on this device before its
/// tasks can run, a share credits its tasks before it is published and leaves this device's count after.
struct system_ring_level {
    using access = queues::scoped_access<scope::system>;
    system_level words;
    queues::front_ring q;
    unsigned* outstanding; // this device's count

    CANOPY_DEVICE const queues::front_ring& ring() const { return q; }
    CANOPY_DEVICE unsigned queued() const { return q.template size_hint<access>(); }

    /// A hungry device's leader (the device is dry, or half its sub-groups are idle): counts the device
    /// hungry (once) and takes a front. True with its `ticket` when it took one: its tasks are
    /// counted on this device already.
    CANOPY_DEVICE bool take(unsigned& ticket) const {
        words.hungry();
        // Acquire at system scope (inside reserve_pop): the donor's system-scope release of the front.
        const queues::ring_span r = q.template reserve_pop<access>(1);
        if (r.n == 0) {
            return false;
        }
        // The header, read after the acquire.
        words.taken(outstanding, q.slot(r.first).count());
        ticket = r.first;
        return true;
    }
    /// Release at system scope, after the lanes read the slot.
    CANOPY_DEVICE void hand_back(unsigned ticket) const { q.template release<access>({ticket, 1}); }
    /// Acquire at system scope (inside reserve_push): the consumers that freed these slots read them.
    CANOPY_DEVICE queues::ring_span reserve(unsigned want) const {
        return q.template reserve_push<access>(want);
    }
    /// The tasks' credit before they leave this device's count; the system-scope release publishes them
    /// to every device; then this device's count falls, with a device-scope release that the sub-group
    /// making it 0 acquires.
    CANOPY_DEVICE void publish(queues::ring_span r, unsigned tasks, unsigned* counters) const {
        words.credit_donation(tasks);
        q.template publish<access>(r);
        if (words.donated(outstanding, tasks)) {
            ++counters[c_device_dry];
        }
        counters[c_donate_system] += r.n;
    }
};

} // namespace canopy::runtime
