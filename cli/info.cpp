// canopy info: what the backend and device are, and how many work-groups it holds resident.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace canopy::cli {

namespace {
struct info_options {
    bool json = false;
    unsigned block = 256;
    std::size_t shared = 0;
    emulator_flags emu;
};

int run_info(const info_options& o) {
    o.emu.apply();
    const device_summary d = describe_device(o.block, o.shared);
    const unsigned per_cu = d.resident_blocks_per_cu;
    if (o.json) {
        nlohmann::json j = {{"backend", d.backend},
                            {"device", d.name},
                            {"compute_units", d.compute_units},
                            {"subgroup_size", d.subgroup_size},
                            {"max_block_size", d.max_block_size},
                            {"max_blocks_per_cu", d.max_blocks_per_cu},
                            {"max_threads_per_cu", d.max_threads_per_cu},
                            {"shared_bytes_per_block", d.shared_bytes_per_block},
                            {"shared_bytes_per_cu", d.shared_bytes_per_cu},
                            {"global_memory_bytes", d.global_memory_bytes},
                            {"block_size", o.block},
                            {"shared_bytes", o.shared},
                            {"resident_blocks_per_cu", per_cu},
                            {"resident_blocks", per_cu * d.compute_units}};
        nlohmann::json presets = nlohmann::json::array();
        for (const auto& p : emulator_presets()) {
            presets.push_back({{"name", p.name}, {"description", p.description}});
        }
        if (!presets.empty()) {
            j["presets"] = presets;
        }
        std::puts(j.dump(2).c_str());
        return 0;
    }
    fmt::print("backend              {}\n", d.backend);
    fmt::print("device               {}\n", d.name);
    fmt::print("compute units        {}\n", d.compute_units);
    fmt::print("sub-group size       {}\n", d.subgroup_size);
    fmt::print("max block size       {}\n", d.max_block_size);
    fmt::print("resident per CU      {} work-groups, {} work-items\n", d.max_blocks_per_cu,
               d.max_threads_per_cu);
    fmt::print("shared memory        {} bytes per work-group, {} per CU\n", d.shared_bytes_per_block,
               d.shared_bytes_per_cu);
    fmt::print("resident work-groups {} ({} per CU) for blocks of {} work-items{}\n",
               per_cu * d.compute_units, per_cu, o.block,
               o.shared ? fmt::format(" and {} shared bytes", o.shared) : std::string());
    const auto presets = emulator_presets();
    if (!presets.empty()) {
        fmt::print("\nemulator presets (--device):\n");
        for (const auto& p : presets) {
            fmt::print("  {:<6} {}\n", p.name, p.description);
        }
    }
    return 0;
}
} // namespace

action add_info(CLI::App& app) {
    auto o = std::make_shared<info_options>();
    auto* sub = app.add_subcommand("info", "describe the backend, the device and its residency");
    sub->add_flag("--json", o->json, "print one JSON object");
    sub->add_option("--block-size", o->block, "work-items per work-group for the residency figure")
        ->default_val(o->block)
        ->check(CLI::Range(1u, 1u << 16));
    sub->add_option("--shared-bytes", o->shared, "shared memory per work-group for the residency figure")
        ->default_val(o->shared);
    o->emu.add_to(*sub, false);
    return [o] { return run_info(*o); };
}

} // namespace canopy::cli
