// Grid parsing and expansion (no MPI, no simulation).
#include "clustersim/sweep/grid.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "clustersim/error.h"
#include "clustersim/sweep/hash.h"
#include "clustersim/sweep/point_config.h"

namespace clustersim::sweep {
namespace {

using ::testing::HasSubstr;

constexpr const char* kBase = R"(
[cluster]
nodes = 4
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 50
load = 0.7
)";

Grid parse(const std::string& sweep_table) {
  return parse_grid(std::string(kBase) + sweep_table, "grid.toml", ".");
}

std::string error_of(const std::string& sweep_table) {
  try {
    Grid grid = parse(sweep_table);
    validate_grid(grid);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(SweepGrid, CartesianProductInFileOrderWithReplicatesInnermost) {
  Grid grid = parse(R"(
[sweep]
"workload.load" = [0.5, 0.9]
"scheduler.policy" = ["fifo", "las", "srtf"]
seeds = 2
)");
  ASSERT_EQ(grid.axes.size(), 2u);
  EXPECT_EQ(grid.axes[0].path, "workload.load");  // file order, not toml++'s sorted order
  EXPECT_EQ(grid.configurations(), 6u);
  EXPECT_EQ(grid.size(), 12u);
  GridPoint point = grid_point(grid, 7);  // config 3 = load 0.9 (index 1), policy fifo; replicate 1
  EXPECT_EQ(point.config_id, 3u);
  EXPECT_EQ(point.replicate, 1u);
  EXPECT_EQ(describe_point(grid, point), "workload.load=0.9 scheduler.policy=fifo replicate=1");
  std::set<std::string> seen;
  for (std::uint64_t id = 0; id < grid.size(); ++id)
    seen.insert(describe_point(grid, grid_point(grid, id)));
  EXPECT_EQ(seen.size(), grid.size());
}

TEST(SweepGrid, DottedKeysAndSubTablesAreTheSameAxis) {
  Grid quoted = parse("[sweep]\n\"scheduler.policy\" = [\"fifo\", \"las\"]\n");
  Grid dotted = parse("[sweep]\nscheduler.policy = [\"fifo\", \"las\"]\n");
  Grid table = parse("[sweep.scheduler]\npolicy = [\"fifo\", \"las\"]\n");
  for (const Grid* grid : {&quoted, &dotted, &table}) {
    ASSERT_EQ(grid->axes.size(), 1u);
    EXPECT_EQ(grid->axes[0].path, "scheduler.policy");
    EXPECT_EQ(grid->size(), 2u);
  }
}

TEST(SweepGrid, ZipGroupsVaryTogether) {
  Grid grid = parse(R"(
[sweep]
"scheduler.checkpoint_s" = [0, 30, 120]
"scheduler.policy" = ["las", "tiresias"]
"scheduler.restore_s" = [0, 20, 60]
zip = [["scheduler.checkpoint_s", "scheduler.restore_s"]]
)");
  EXPECT_EQ(grid.dimensions.size(), 2u);
  EXPECT_EQ(grid.size(), 6u);
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    GridPoint point = grid_point(grid, id);
    EXPECT_EQ(point.value_index[0], point.value_index[2]);
  }
  toml::table table = point_table(grid, grid_point(grid, 5));
  EXPECT_EQ(table["scheduler"]["checkpoint_s"].value<int>(), 120);
  EXPECT_EQ(table["scheduler"]["restore_s"].value<int>(), 60);
  EXPECT_EQ(table["scheduler"]["policy"].value<std::string>(), "tiresias");
  EXPECT_EQ(table["workload"]["jobs"].value<int>(), 50);  // base kept
}

// Settings for some policies only: a zipped axis may repeat a value, not a combination.
TEST(SweepGrid, ZipGroupsMayRepeatAValueButNotACombination) {
  Grid grid = parse(R"(
[sweep]
"scheduler.policy" = ["fifo", "sjf", "las"]
"scheduler.checkpoint_s" = [0, 0, 30]
zip = [["scheduler.policy", "scheduler.checkpoint_s"]]
)");
  EXPECT_EQ(grid.size(), 3u);
  EXPECT_EQ(point_table(grid, grid_point(grid, 1))["scheduler"]["checkpoint_s"].value<int>(), 0);
  EXPECT_EQ(point_table(grid, grid_point(grid, 2))["scheduler"]["checkpoint_s"].value<int>(), 30);
  const std::string repeated = error_of(
      "[sweep]\n\"scheduler.policy\" = [\"fifo\", \"fifo\"]\n"
      "\"scheduler.checkpoint_s\" = [0, 0]\nzip = [[\"scheduler.policy\", "
      "\"scheduler.checkpoint_s\"]]\n");
  EXPECT_THAT(repeated, HasSubstr("zip group lists the combination (scheduler.policy = fifo, "
                                  "scheduler.checkpoint_s = 0) twice"));
  // An axis outside a zip group still lists each value once.
  EXPECT_THAT(error_of("[sweep]\n\"scheduler.policy\" = [\"fifo\", \"las\"]\n"
                       "\"scheduler.checkpoint_s\" = [0, 0]\n"),
              HasSubstr("axis lists the value 0 twice"));
}

TEST(SweepGrid, FingerprintIsStandardSha256) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')).substr(0, 16), "41edece42d63e8d9");
  EXPECT_EQ(parse("").sha256, sha256_hex(kBase));
}

TEST(SweepGrid, NoSweepTableIsOnePoint) {
  Grid grid = parse("");
  EXPECT_EQ(grid.size(), 1u);
  EXPECT_EQ(describe_point(grid, grid_point(grid, 0)), "replicate=0");
}

TEST(SweepGrid, SeedsDependOnlyOnGridSeedPointAndReplicate) {
  // Golden values: a change here changes every published sweep's workloads.
  EXPECT_EQ(derive_seed(1, 0, 0), derive_seed(1, 0, 0));
  EXPECT_NE(derive_seed(1, 0, 0), derive_seed(1, 0, 1));
  EXPECT_NE(derive_seed(1, 0, 0), derive_seed(2, 0, 0));
  EXPECT_NE(derive_seed(1, 3, 0), derive_seed(1, 4, 0));
  EXPECT_EQ(derive_seed(2024, 0, 0), 1520356165634110848ULL);

  Grid paired = parse("[sweep]\n\"scheduler.policy\" = [\"fifo\", \"las\"]\nseeds = 2\nseed = 7\n");
  EXPECT_EQ(grid_point(paired, 0).seed,
            grid_point(paired, 2).seed);  // same replicate, other policy
  EXPECT_NE(grid_point(paired, 0).seed, grid_point(paired, 1).seed);
  Grid unpaired = parse(
      "[sweep]\n\"scheduler.policy\" = [\"fifo\", \"las\"]\nseeds = 2\npaired_seeds = false\n");
  EXPECT_NE(grid_point(unpaired, 0).seed, grid_point(unpaired, 2).seed);
}

TEST(SweepGrid, PointConfigCarriesAxisValuesAndSeed) {
  Grid grid = parse(
      "[sweep]\n\"scheduler.policy\" = [\"fifo\", \"las\"]\n\"workload.load\" = [0.5, 1]\nseeds = "
      "3\n");
  GridPoint point = grid_point(grid, 11);
  RunConfig config = make_point_config(grid, point);
  EXPECT_EQ(config.sim.scheduler.policy, "las");
  ASSERT_TRUE(config.workload.generator.has_value());
  EXPECT_DOUBLE_EQ(config.workload.generator->load, 1.0);
  EXPECT_EQ(config.workload.generator->seed, point.seed);
  EXPECT_EQ(grid.axes[1].kind, ValueKind::kFloat);  // 0.5 and 1 form a float column
}

TEST(SweepGrid, MalformedSweepTablesAreRejectedWithTheKey) {
  EXPECT_THAT(error_of("[sweep]\n\"workload.load\" = []\n"), HasSubstr("axis is empty"));
  EXPECT_THAT(error_of("[sweep]\nseedz = 3\n"), HasSubstr("sweep.seedz"));
  EXPECT_THAT(error_of("[sweep]\n\"workload.load\" = [0.5, \"high\"]\n"),
              HasSubstr("mixes value types"));
  EXPECT_THAT(error_of("[sweep]\n\"workload.load\" = [0.5, 0.5]\n"), HasSubstr("twice"));
  EXPECT_THAT(error_of("[sweep]\nseeds = 0\n"), HasSubstr("at least 1"));
  EXPECT_THAT(error_of("[sweep]\n\"workload.seed\" = [1, 2]\n"), HasSubstr("grid seed"));
  EXPECT_THAT(error_of("[sweep]\n\"a.b\" = [1, 2]\n\"c.d\" = [1]\nzip = [[\"a.b\", \"c.d\"]]\n"),
              HasSubstr("equally many"));
  EXPECT_THAT(error_of("[sweep]\n\"a.b\" = [1, 2]\nzip = [[\"a.b\", \"x.y\"]]\n"),
              HasSubstr("not an axis"));
  EXPECT_THAT(error_of("[sweep]\n\"a.b\" = [1, 2]\nzip = \"a.b\"\n"), HasSubstr("sweep.zip"));
  EXPECT_THAT(error_of("[sweep\n"), HasSubstr("not valid TOML"));
}

TEST(SweepGrid, AxisPathsAndValuesAreCheckedAgainstTheRunConfig) {
  std::string unknown_key = error_of("\n[sweep]\n\"scheduler.polcy\" = [\"fifo\"]\n");
  EXPECT_THAT(unknown_key, HasSubstr("polcy"));
  EXPECT_THAT(error_of("[sweep]\n\"nosuch.key\" = [1]\n"), HasSubstr("nosuch"));
  std::string bad_value = error_of("[sweep]\n\"scheduler.policy\" = [\"fifo\", \"nosuch\"]\n");
  EXPECT_THAT(bad_value, HasSubstr("nosuch"));
  EXPECT_THAT(bad_value, HasSubstr("grid point"));
  EXPECT_THAT(error_of("[sweep]\n\"workload.load\" = [\"high\"]\n"), HasSubstr("load"));
  EXPECT_THAT(error_of("[sweep]\n\"workload.jobs.x\" = [1]\n"), HasSubstr("not a table"));
}

// Axes are checked by the config keys' declarations (options.h) before any simulation: every
// configuration is parsed, and an error names the grid file, the axis' line and the key.
TEST(SweepGrid, AxesAreCheckedByTheKeysDeclarations) {
  const auto error = [](const std::string& text) -> InputError {
    try {
      validate_grid(parse_grid(text, "grid.toml", "."));
    } catch (const InputError& error) {
      return error;
    }
    ADD_FAILURE() << "expected an InputError";
    return InputError("", 0, "", "");
  };
  // Out of the declared range.
  const InputError range =
      error(std::string(kBase) + "[sweep]\n\"scheduler.lease_s\" = [60, -1]\n");
  EXPECT_EQ(range.file(), "grid.toml");
  EXPECT_EQ(range.line(), 11u);  // the axis
  EXPECT_EQ(range.field(), "scheduler.lease_s");
  EXPECT_THAT(range.message(), HasSubstr("must be in [0, 1e+12], got -1"));
  // A key of another generator.
  const InputError other =
      error(std::string(kBase) + "[sweep]\n\"workload.queries_per_s\" = [2, 4]\n");
  EXPECT_EQ(other.line(), 11u);
  EXPECT_EQ(other.field(), "workload.queries_per_s");
  EXPECT_THAT(other.message(), HasSubstr("only with generator = \"query_dag\""));
  // A training key on a DAG workload.
  const InputError training = error(
      "[cluster]\nnodes = 4\n[workload]\ngenerator = \"query_dag\"\nqueries = 10\n[sweep]\n"
      "\"scheduler.task_placement\" = [\"heft\"]\n\"scheduler.lease_s\" = [60, 120]\n");
  EXPECT_EQ(training.line(), 8u);
  EXPECT_EQ(training.field(), "scheduler.lease_s");
  EXPECT_THAT(training.message(), HasSubstr("only for training workloads"));
}

TEST(SweepGrid, UnreadableTraceIsRejectedBeforeAnySimulation) {
  std::string text = R"(
[cluster]
nodes = 4
gpus_per_node = 8
[workload]
trace = "definitely_missing_trace.csv"
[sweep]
"scheduler.policy" = ["fifo", "las"]
)";
  Grid grid = parse_grid(text, "grid.toml", std::filesystem::temp_directory_path().string());
  try {
    validate_grid(grid);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_THAT(error.what(), HasSubstr("definitely_missing_trace.csv"));
  }
}

// Failure classes add their expected unit failures over the workload's span, each costing the
// cluster's nodes. 4 nodes of 8 GPUs, 2 to a rack (so 2 leaves without [fabric] tiers): GPUs
// 32 x 0.001 + nodes 4 x 0.01 + leaves 2 x 0.1 + one job's 0.5 = 0.772 failures an hour, 7.72
// over 10 h, costing 7.72 x 4 more than the same point without them.
TEST(SweepGrid, FailureClassesAddTheirExpectedFailuresToTheCost) {
  RunConfig config;
  NodeGroupSpec group;
  group.nodes = 4;
  group.gpus_per_node = 8;
  config.sim.cluster.groups.push_back(group);
  config.sim.cluster.nodes_per_rack = 2;
  for (auto [cause, rate] : {std::pair{FailureCause::kGpu, 0.001},
                             {FailureCause::kHost, 0.01},
                             {FailureCause::kSwitch, 0.1},
                             {FailureCause::kSoftware, 0.5}}) {
    FailureClass c;
    c.cause = cause;
    c.unit = default_failure_unit(cause);
    c.rate_per_h = rate;
    config.sim.mechanisms.failure_classes.push_back(c);
  }
  EXPECT_DOUBLE_EQ(expected_class_failures(config.sim, 36000.0), 7.72);
  EXPECT_DOUBLE_EQ(estimate_cost(config, 50, 36000.0), estimate_cost(config, 50) + 7.72 * 4);
  config.sim.fabric.hosts_per_leaf = 4;  // one leaf: 0.1 fewer an hour
  EXPECT_DOUBLE_EQ(expected_class_failures(config.sim, 36000.0), 6.72);
}

TEST(SweepGrid, CostGrowsWithJobsAndClusterSize) {
  Grid grid = parse("[sweep]\n\"workload.jobs\" = [50, 500]\n\"cluster.nodes\" = [4, 64]\n");
  GridCheck check = validate_grid(grid);
  ASSERT_EQ(check.config_cost.size(), 4u);
  EXPECT_LT(check.config_cost[0], check.config_cost[1]);  // 4 -> 64 nodes
  EXPECT_LT(check.config_cost[0], check.config_cost[2]);  // 50 -> 500 jobs
}

}  // namespace
}  // namespace clustersim::sweep

namespace clustersim::sweep {
namespace {

// The points of a grid made with one side-file cache share their profile library: its folder
// is parsed once; the axis values still differ per point; without a cache each point reads it.
TEST(SweepGrid, PointsMadeWithOneSideFileCacheShareTheirProfiles) {
  const std::string text = std::string(R"(
[cluster]
nodes = 2
gpus_per_node = 8
gpu_type = "v100"
cpus_per_node = 24
mem_gb_per_node = 500
[workload]
generator = "synergy"
jobs = 20
[throughput]
model = "profile"
profiles = ")") + CLUSTERSIM_SOURCE_DIR +
                           R"(/profiles/v100"
[sweep]
"workload.jobs_per_hour" = [3, 5, 7]
seeds = 2
)";
  const Grid grid = parse_grid(text, "grid.toml", ".");
  ASSERT_EQ(grid.size(), 6u);
  SideFileCache cache;
  std::vector<RunConfig> configs;
  for (std::uint64_t id = 0; id < grid.size(); ++id)
    configs.push_back(make_point_config(grid, grid_point(grid, id), &cache));
  const SideFileCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.lookups, 6u);
  EXPECT_EQ(stats.parses, 1u);
  for (const RunConfig& config : configs)
    EXPECT_EQ(config.profiles.get(), configs[0].profiles.get());
  EXPECT_EQ(configs[0].workload.generator->jobs_per_hour, 3.0);
  EXPECT_EQ(configs[5].workload.generator->jobs_per_hour, 7.0);
  const RunConfig uncached = make_point_config(grid, grid_point(grid, 0));
  EXPECT_NE(uncached.profiles.get(), configs[0].profiles.get());
  EXPECT_EQ(uncached.profiles->size(), configs[0].profiles->size());
}

}  // namespace
}  // namespace clustersim::sweep
