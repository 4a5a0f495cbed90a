// Every example under sweep/examples/<name>/ has a dry-run listing golden file beside it
// (dry_run.golden). Regenerate one with:
//   build/bin/clustersim sweep sweep/examples/NAME/grid.toml --dry-run >
//   sweep/examples/NAME/dry_run.golden
// (run from the repository root).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "clustersim/config.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"
#include "clustersim/sweep/sweep_command.h"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SweepExamples, DryRunListingsMatchTheirGoldenFiles) {
  const fs::path root(CLUSTERSIM_SOURCE_DIR);
  std::size_t examples = 0;
  for (const auto& entry : fs::directory_iterator(root / "sweep" / "examples")) {
    if (!fs::exists(entry.path() / "grid.toml")) continue;
    // An example replaying traces beside the checkout (../shared/) needs them to list its points.
    if (read_file(entry.path() / "grid.toml").find("/shared/") != std::string::npos &&
        !fs::exists(root.parent_path() / "shared" / "traces")) {
      std::cout << "skip " << entry.path().filename() << " (no ../shared/traces)\n";
      continue;
    }
    ++examples;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const std::string relative = "sweep/examples/" + name + "/grid.toml";
    // The same text and names as `clustersim sweep sweep/examples/NAME/grid.toml` from the root.
    Grid grid = parse_grid(read_file(entry.path() / "grid.toml"), relative,
                           (root / "sweep/examples" / name).string());
    std::ostringstream listing;
    write_dry_run(listing, grid, validate_grid(grid));
    ASSERT_TRUE(fs::exists(entry.path() / "dry_run.golden"));
    EXPECT_EQ(listing.str(), read_file(entry.path() / "dry_run.golden"));
  }
  EXPECT_GE(examples, 1u);
}

// Every run of the green example conserves energy: what the grid and solar give (solar stored
// included) is what the load was served plus the battery's losses and its change of charge, with
// nodes always on (grid.toml) and switched off when idle (power_off.toml: standby power, boots).
// Each point runs as `clustersim run GRID --point N` runs it (~0.3 s each).
TEST(SweepExamples, EveryRunOfTheGreenExampleConservesEnergy) {
  const fs::path root(CLUSTERSIM_SOURCE_DIR);
  if (!fs::exists(root.parent_path() / "shared" / "traces" / "energy"))
    GTEST_SKIP() << "no ../shared/traces/energy";
  const fs::path dir = root / "sweep/examples/green";
  bool battery_used = false, solar_used = false, unserved = false, booted = false;
  for (const char* file : {"grid.toml", "power_off.toml"}) {
    const Grid grid = parse_grid(read_file(dir / file), std::string("sweep/examples/green/") + file,
                                 dir.string());
    const std::uint64_t points = grid.size();
    ASSERT_GE(points, 4u);
    for (std::uint64_t id = 0; id < points; ++id) {
      SCOPED_TRACE(std::string(file) + " point " + std::to_string(id));
      const RunConfig config = make_point_config(grid, grid_point(grid, id));
      const RunMetrics m =
          simulate_config(config, std::make_shared<const Workload>(load_workload(config)))
              .result.metrics;
      const double drawn = m.grid_kwh + m.solar_used_kwh;
      const double used = m.energy_kwh - m.unserved_kwh + m.battery_loss_kwh + m.battery_delta_kwh;
      ASSERT_GT(m.energy_kwh, 0.0);
      EXPECT_LE(std::abs(drawn - used), 1e-9 * used) << drawn << " vs " << used;
      battery_used |= m.battery_loss_kwh > 0.0;
      solar_used |= m.solar_used_kwh > 0.0;
      unserved |= m.unserved_kwh > 0.0;
      booted |= m.node_boots > 0;
    }
  }
  // The grids exercise every term.
  EXPECT_TRUE(battery_used && solar_used && unserved && booted);
}

TEST(SweepExamples, TheEmbeddedDefaultIsTheDefaultExample) {
  EXPECT_EQ(default_grid_text(),
            read_file(fs::path(CLUSTERSIM_SOURCE_DIR) / "sweep/examples/default/grid.toml"));
}

TEST(SweepExamples, SummaryTableAveragesPerPolicyAndCountsFailures) {
  Grid grid =
      parse_grid("[sweep]\n\"scheduler.policy\" = [\"fifo\", \"las\"]\nseeds = 2\n", "g.toml", ".");
  std::vector<PointResult> results(4);
  for (std::uint64_t id = 0; id < 4; ++id) {
    results[id].point_id = id;
    results[id].metrics.jct_mean = 100.0 * static_cast<double>(id + 1);
  }
  results[3].error = "boom";
  std::ostringstream table;
  write_summary_table(table, grid, results, "");
  EXPECT_NE(table.str().find("by scheduler.policy"), std::string::npos) << table.str();
  // fifo: points 0 and 1 -> mean 150; las: point 2 only (point 3 failed) -> 300.
  EXPECT_NE(table.str().find("fifo                    2      0        150.0"), std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("las                     1      1        300.0"), std::string::npos)
      << table.str();
}

}  // namespace
}  // namespace clustersim::sweep
