// Emulator: the device is the current virtual device (emulator/options.hpp).
#include "canopy/platform/device_info.hpp"

#include <unistd.h>

#include "canopy/emulator/options.hpp"

namespace canopy {

device_info query_device() {
    const auto& d = emu::current_options().device;
    device_info i;
    i.backend = "cpu";
    i.name = "emulator:" + d.name;
    i.compute_units = d.compute_units;
    i.subgroup_size = d.subgroup_size;
    i.max_block_size = d.max_block_size;
    i.max_blocks_per_cu = d.blocks_per_cu;
    i.max_threads_per_cu = d.threads_per_cu;
    i.shared_bytes_per_block = d.shared_bytes_per_block;
    i.shared_bytes_per_cu = d.shared_bytes_per_cu;
    i.global_memory_bytes = static_cast<std::size_t>(::sysconf(_SC_PHYS_PAGES)) *
                            static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return i;
}

} // namespace canopy
