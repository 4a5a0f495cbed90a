// The allocation and Synergy-workload keys: parsed, usable, and clear errors naming the key.
#include <gtest/gtest.h>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "config_error.h"

namespace clustersim {
namespace {

// Where this file's configs are read from (its errors name it).
const testing::ConfigFile kSynergyToml{"synergy.toml", ""};

constexpr const char* kSynergy = R"([cluster]
nodes = 2
gpus_per_node = 8
cpus_per_node = 24
mem_gb_per_node = 500

[workload]
generator = "synergy"
jobs_per_hour = 9
class_split = [30, 60, 10]
gpu_demand = "philly"
window = [100, 199]
seed = 3

[scheduler]
allocation = "tune"
realloc_s = 2.5
best_demand_tolerance = 0.02
)";

TEST(SynergyConfig, ParsesTheAllocationAndWorkloadKeys) {
  const RunConfig config = parse_run_config(kSynergy, "synergy.toml", "");
  EXPECT_EQ(config.sim.scheduler.allocation, "tune");
  EXPECT_DOUBLE_EQ(config.sim.scheduler.realloc_s, 2.5);
  EXPECT_DOUBLE_EQ(config.sim.scheduler.best_demand_tolerance, 0.02);
  ASSERT_TRUE(config.workload.generator);
  const GeneratorOptions& g = *config.workload.generator;
  EXPECT_EQ(g.shape, "synergy");
  EXPECT_DOUBLE_EQ(g.jobs_per_hour, 9);
  EXPECT_DOUBLE_EQ(g.class_split[0], 30);
  EXPECT_EQ(g.gpu_demand, "philly");
  ASSERT_TRUE(config.sim.window);
  EXPECT_EQ(config.sim.window->first, 100u);
  EXPECT_EQ(config.sim.window->last, 199u);
  // Without `jobs`, enough are generated to reach the window and keep arriving past it.
  EXPECT_GT(g.jobs, 200u);
  // Defaults: proportional allocation, the study's class split, single-GPU jobs.
  const RunConfig plain = parse_run_config(
      "[cluster]\nnodes = 1\n[workload]\ngenerator = \"synergy\"\n", "plain.toml", "");
  EXPECT_EQ(plain.sim.scheduler.allocation, "proportional");
  EXPECT_DOUBLE_EQ(plain.workload.generator->class_split[1], 70);
  EXPECT_EQ(plain.workload.generator->gpu_demand, "single");
  // Measured in steady state by default: the plan's window, after a warm-up; none when off.
  ASSERT_TRUE(plain.sim.window && plain.workload.steady_plan);
  EXPECT_GT(plain.sim.window->first, 0u);
  EXPECT_EQ(plain.sim.window->last, plain.workload.steady_plan->last);
  const RunConfig off = parse_run_config(
      "[cluster]\nnodes = 1\n[workload]\ngenerator = \"synergy\"\n"
      "[metrics]\nsteady_state = \"off\"\n",
      "off.toml", "");
  EXPECT_FALSE(off.sim.window);
  EXPECT_EQ(off.workload.generator->jobs, 1000u);
}

TEST(SynergyConfig, BadInputNamesTheKey) {
  const InputError mechanism = kSynergyToml.error(kSynergy, {"scheduler.allocation=magic"});
  EXPECT_EQ(mechanism.field(), "scheduler.allocation");
  EXPECT_NE(std::string(mechanism.what()).find("proportional, greedy, tune, opt, drf, tetris"),
            std::string::npos)
      << mechanism.what();
  const InputError split = kSynergyToml.error(kSynergy, {"workload.class_split=[30, 60, 20]"});
  EXPECT_EQ(split.field(), "workload.class_split");
  EXPECT_NE(std::string(split.what()).find("sum to 100"), std::string::npos) << split.what();
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.class_split=[50, 50]"}).field(),
            "workload.class_split");
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.class_split=[110, -10, 0]"}).field(),
            "workload.class_split");
  const InputError window = kSynergyToml.error(kSynergy, {"workload.jobs=150"});
  EXPECT_EQ(window.field(), "workload.window");
  EXPECT_NE(std::string(window.what()).find("beyond the 150 generated jobs"), std::string::npos)
      << window.what();
  EXPECT_EQ(window.line(), 12u);
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.window=[5, 4]"}).field(), "workload.window");
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.window=[-1, 4]"}).field(), "workload.window");
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.gpu_demand=many"}).field(),
            "workload.gpu_demand");
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.jobs_per_hour=0"}).field(),
            "workload.jobs_per_hour");
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"scheduler.realloc_s=-1"}).field(),
            "scheduler.realloc_s");
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"scheduler.best_demand_tolerance=1"}).field(),
            "scheduler.best_demand_tolerance");
  // The philly generator's load is not a synergy key (a typo must not pass silently).
  EXPECT_EQ(kSynergyToml.error(kSynergy, {"workload.load=0.5"}).field(), "workload.load");
}

// A window over a trace must lie within the trace.
TEST(SynergyConfig, WindowBeyondATraceNamesTheKey) {
  const std::string dir = ::testing::TempDir();
  {
    std::FILE* f = std::fopen((dir + "/w.csv").c_str(), "w");
    std::fputs("job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,1,10\n", f);
    std::fclose(f);
  }
  const RunConfig config = parse_run_config(
      "[cluster]\nnodes = 1\n[workload]\ntrace = \"w.csv\"\nwindow = [1, 2]\n", "w.toml", dir);
  try {
    load_workload(config);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field(), "workload.window");
    EXPECT_EQ(error.line(), 5u);
  }
}

}  // namespace
}  // namespace clustersim
