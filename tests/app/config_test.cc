#include "clustersim/config.h"

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <string>

#include "clustersim/error.h"
#include "config_error.h"

namespace clustersim {
namespace {

// Where this file's configs are read from (its errors name it).
const testing::ConfigFile kTestToml{"test.toml", "/data"};

constexpr const char* kMinimal = R"([cluster]
nodes = 4
gpus_per_node = 8

[workload]
trace = "jobs.csv"

[scheduler]
policy = "las"
)";

TEST(Config, ParsesTheContractKeysAndResolvesTracePaths) {
  const RunConfig config = parse_run_config(kMinimal, "test.toml", "/data");
  EXPECT_EQ(config.sim.cluster.total_gpus(), 32);
  EXPECT_EQ(config.sim.scheduler.policy, "las");
  EXPECT_EQ(config.sim.scheduler.placement, "consolidate");
  ASSERT_TRUE(config.workload.trace_path.has_value());
  EXPECT_EQ(*config.workload.trace_path, "/data/jobs.csv");
  EXPECT_EQ(config.workload.format, TraceFormat::kCsv);
}

TEST(Config, OverridesReplaceAndAddKeys) {
  const RunConfig config =
      parse_run_config(kMinimal, "test.toml", "",
                       {"scheduler.policy=fifo", "scheduler.lease_s=60", "cluster.nodes=2",
                        "scheduler.preemption=false", "metrics.sample_interval_s=0"});
  EXPECT_EQ(config.sim.scheduler.policy, "fifo");
  EXPECT_EQ(config.sim.scheduler.lease_s, 60);
  EXPECT_EQ(config.sim.cluster.total_gpus(), 16);
  EXPECT_EQ(config.sim.scheduler.preemption, std::optional<bool>(false));
  EXPECT_EQ(config.sim.sample_interval_s, 0);
}

TEST(Config, GeneratedWorkloadKnowsTheClusterSize) {
  const RunConfig config = parse_run_config(default_config_text(), "built-in", "");
  ASSERT_TRUE(config.workload.generator.has_value());
  EXPECT_EQ(config.workload.generator->cluster_gpus, config.sim.cluster.total_gpus());
  EXPECT_GT(load_workload(config).jobs.size(), 0u);
}

TEST(Config, HeterogeneousGroupsAndVcs) {
  const RunConfig config = parse_run_config(R"([cluster]
nodes_per_rack = 4
vcs = { research = 16, prod = 24 }
[[cluster.node_group]]
nodes = 2
gpus_per_node = 8
gpu_type = "v100"
[[cluster.node_group]]
nodes = 3
gpus_per_node = 4
gpu_type = "a100"
cpus_per_node = 48
[workload]
generator = "philly"
jobs = 10
vcs = ["research", "prod"]
[scheduler]
vc_quota = "lend"
)",
                                            "t.toml", "");
  ASSERT_EQ(config.sim.cluster.groups.size(), 2u);
  EXPECT_EQ(config.sim.cluster.total_gpus(), 28);
  EXPECT_EQ(config.sim.cluster.groups[1].cpus_per_node, 48);
  ASSERT_EQ(config.sim.cluster.vcs.size(), 2u);
  EXPECT_EQ(config.sim.scheduler.vc_quota, VcQuotaMode::kLend);
  EXPECT_EQ(config.workload.generator->vcs.size(), 2u);
}

TEST(Config, UnknownKeysNameTheKeyAndLine) {
  const InputError error = kTestToml.error(std::string(kMinimal) + "polcy = \"x\"\n");
  EXPECT_EQ(error.file(), "test.toml");
  EXPECT_EQ(error.field(), "scheduler.polcy");
  EXPECT_EQ(error.line(), 10u);
  EXPECT_EQ(kTestToml.error(std::string(kMinimal) + "[schedular]\n").field(), "schedular");
}

TEST(Config, BadValuesAreErrors) {
  EXPECT_EQ(kTestToml.error(kMinimal, {"scheduler.policy=lottery"}).field(), "scheduler.policy");
  EXPECT_EQ(kTestToml.error(kMinimal, {"scheduler.lease_s=-1"}).field(), "scheduler.lease_s");
  EXPECT_EQ(kTestToml.error(kMinimal, {"cluster.gpus_per_node=\"eight\""}).field(),
            "cluster.gpus_per_node");
  EXPECT_EQ(kTestToml.error(kMinimal, {"workload.format=parquet"}).field(), "workload.format");
  EXPECT_EQ(kTestToml.error(kMinimal, {"workload.generator=philly"}).field(), "workload.generator");
  EXPECT_EQ(kTestToml.error(kMinimal, {"nodot=1"}).field(), "nodot");
  EXPECT_EQ(kTestToml.error("[cluster]\nnodes = 0\n[workload]\ngenerator = \"philly\"\n").field(),
            "cluster.nodes");
  const InputError syntax = kTestToml.error("[cluster\nnodes = 1\n");
  EXPECT_EQ(syntax.line(), 1u);
  EXPECT_EQ(kTestToml.error("[workload]\ngenerator=\"philly\"\n").field(), "cluster");
}

TEST(Config, MissingConfigFileIsAnInputError) {
  EXPECT_THROW(load_run_config("/nonexistent/clustersim.toml"), InputError);
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

TEST(Config, ProfileModelLoadsTheShippedProfilesAndChecksCoverage) {
  const std::string profiles = std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles/v100";
  const std::string text = std::string(R"([cluster]
nodes = 4
gpus_per_node = 8
cpus_per_node = 24
mem_gb_per_node = 500
[workload]
generator = "philly"
jobs = 200
[metrics]
steady_state = "off"
[throughput]
model = "profile"
profiles = ")") + profiles +
                           "\"\n";
  const RunConfig config = parse_run_config(text, "t.toml", "");
  ASSERT_NE(config.sim.throughput, nullptr);
  EXPECT_EQ(config.profile_options.ref_cpus_per_gpu, std::optional<double>(3.0));
  EXPECT_EQ(config.profile_options.ref_mem_gb_per_gpu, std::optional<double>(62.5));
  const Workload workload = load_workload(config);  // every generated model has a profile
  const RunResult result = simulate(config.sim, workload.jobs);
  EXPECT_EQ(result.metrics.jobs, 200u);
  // At the proportional share every job runs at its trace duration.
  for (std::size_t i = 0; i < workload.jobs.size(); ++i)
    ASSERT_NEAR(result.jobs[i].jct - result.jobs[i].queue_delay, workload.jobs[i].duration,
                1e-6 * workload.jobs[i].duration);

  const RunConfig richer =
      parse_run_config(text, "t.toml", "", {"throughput.ref_cpus_per_gpu=1.5"});
  const RunResult faster = simulate(richer.sim, workload.jobs);
  EXPECT_LT(faster.metrics.gpu_seconds, result.metrics.gpu_seconds);  // 3 cores/GPU beat 1.5

  EXPECT_EQ(kTestToml.error(text, {"throughput.profiles=\"/nonexistent\""}).file(), "/nonexistent");
  EXPECT_EQ(kTestToml
                .error("[cluster]\nnodes=1\n[workload]\ngenerator=\"philly\"\n[throughput]\nmodel="
                       "\"profile\"\n")
                .field(),
            "throughput.profiles");
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

TEST(Config, SharingKeysAndTheirErrors) {
  const std::string base = kMinimal;
  const RunConfig off = parse_run_config(base, "test.toml", "/data");
  EXPECT_FALSE(off.sim.sharing.enabled());
  EXPECT_FALSE(off.workload.reader.gpu_shares);
  const RunConfig on =
      parse_run_config(base + "[sharing]\ninterference = \"constant\"\nconstant_factor = 0.8\n",
                       "test.toml", "/data");
  ASSERT_TRUE(on.sim.sharing.enabled());
  EXPECT_EQ(*on.sim.sharing.interference, Interference::kConstant);
  EXPECT_EQ(*on.sim.sharing.constant_factor, 0.8);
  EXPECT_TRUE(on.workload.reader.gpu_shares);
  // A factor of 0, a factor without "constant", "constant" without its factor.
  EXPECT_EQ(kTestToml.error(base + "[sharing]\ninterference = \"constant\"\nconstant_factor = 0\n")
                .field(),
            "sharing.constant_factor");
  EXPECT_EQ(
      kTestToml.error(base + "[sharing]\ninterference = \"none\"\nconstant_factor = 0.5\n").field(),
      "sharing.constant_factor");
  EXPECT_EQ(kTestToml.error(base + "[sharing]\ninterference = \"constant\"\n").field(),
            "sharing.interference");
  EXPECT_EQ(kTestToml.error(base + "[sharing]\ninterference = \"table\"\n").field(),
            "sharing.interference");
  // cpu_only_pods is openb's.
  EXPECT_EQ(kTestToml.error(base, {"workload.cpu_only_pods=\"run\""}).field(),
            "workload.cpu_only_pods");
}

// Power caps: a table per GPU type; a cap at or below the type's idle power is refused where it
// is written (the cluster's type is "generic": an A100's figures, idle 60 W, unless given).
TEST(Config, PowerCapsAndACapAtIdle) {
  const std::string base = std::string(kMinimal) + "[power]\nenabled = true\n";
  const RunConfig capped =
      parse_run_config(base + "gpu_cap_w = { generic = 250 }\n", "test.toml", "/data");
  ASSERT_EQ(capped.sim.power.gpu_cap_w.size(), 1u);
  EXPECT_EQ(capped.sim.power.gpu_cap_w[0].second, 250.0);
  const InputError at_idle = kTestToml.error(base + "gpu_cap_w = { generic = 60 }\n");
  EXPECT_EQ(at_idle.field(), "power.gpu_cap_w.generic");
  EXPECT_EQ(at_idle.line(), 12u);
  const InputError below_given =
      kTestToml.error(base + "gpu_idle_w = { generic = 100 }\ngpu_cap_w = { generic = 90 }\n");
  EXPECT_EQ(below_given.field(), "power.gpu_cap_w.generic");
}

TEST(Config, SharingPairTableErrorsNameFileLineAndField) {
  const std::string dir = ::testing::TempDir();
  const auto error_of = [&](const std::string& table) {
    const std::string path = dir + "/pairs.csv";
    {
      std::ofstream out(path);
      out << table;
    }
    return kTestToml.error(std::string(kMinimal) +
                           "[sharing]\ninterference = \"table\"\ntable = \"" + path + "\"\n");
  };
  const InputError factor = error_of("model,other,factor\nresnet,lm,0.5\nlm,*,0\n");
  EXPECT_EQ(factor.file(), dir + "/pairs.csv");
  EXPECT_EQ(factor.line(), 3u);
  EXPECT_EQ(factor.field(), "factor");
  EXPECT_EQ(error_of("model,factor\n").line(), 1u);
  EXPECT_EQ(error_of("model,other,factor\nresnet,lm,0.5\nresnet,lm,0.7\n").field(), "other");
  std::ofstream(dir + "/good.csv") << "model,other,factor\nresnet,lm,0.5\n*,*,0.9\n";
  const RunConfig config =
      parse_run_config(std::string(kMinimal) + "[sharing]\ninterference = \"table\"\ntable = \"" +
                           dir + "/good.csv\"\n",
                       "test.toml", "/data");
  ASSERT_EQ(config.sim.sharing.pairs.size(), 2u);
  EXPECT_EQ(config.sim.sharing.pairs[1].first.first, "*");
  EXPECT_EQ(config.sim.sharing.pairs[1].second, 0.9);
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

TEST(Config, SharingRefusedInThePlacementStudyAndWarnedWhereNoJobHasAShare) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,65536,2,V100\n";
  std::ofstream(dir + "/pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,"
         "scheduled_time\np,1000,1024,1,500,0,10,0\n";
  const std::string study = "[cluster]\nnode_list = \"" + dir +
                            "/nodes.csv\"\n[workload]\ntrace = \"" + dir +
                            "/pods.csv\"\nformat = \"openb\"\ndepartures = \"none\"\n"
                            "on_unplaceable = \"drop\"\n[scheduler]\nplacement = \"best_fit\"\n";
  EXPECT_NO_THROW(parse_run_config(study, "test.toml", "/data"));
  EXPECT_EQ(kTestToml.error(study, {"sharing.interference=\"none\""}).field(),
            "sharing.interference");
  EXPECT_EQ(kTestToml.error(study, {"workload.cpu_only_pods=\"run\""}).field(),
            "workload.cpu_only_pods");
  // A generated workload has no shares: sharing is warned, naming the key.
  const RunConfig generated =
      parse_run_config("[cluster]\nnodes = 2\n[workload]\ngenerator = \"philly\"\n", "test.toml",
                       "/data", {"sharing.interference=\"none\""});
  std::vector<std::string> warned;
  for (const ConfigWarning& warning : config_warnings(generated)) warned.push_back(warning.key);
  EXPECT_EQ(warned, std::vector<std::string>{"sharing.interference"});
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

std::vector<std::string> warned_keys(const std::vector<std::string>& sets) {
  const RunConfig config = parse_run_config(
      "[cluster]\nnodes = 2\n[workload]\ngenerator = \"philly\"\n", "test.toml", "/data", sets);
  std::vector<std::string> warned;
  for (const ConfigWarning& warning : config_warnings(config)) warned.push_back(warning.key);
  return warned;
}

TEST(Config, GavelRealisationKeysAndTypeUpgradeWarnedWhereTheyCannotAct) {
  using Keys = std::vector<std::string>;
  // rounds, allocation_reset_s and type_order are for Gavel's policies only.
  EXPECT_EQ(warned_keys({"scheduler.rounds=\"exact\"", "scheduler.type_order=\"fixed\""}),
            (Keys{"scheduler.rounds", "scheduler.type_order"}));
  // The exact realisation re-solves at every arrival and completion, and has no type order.
  EXPECT_EQ(warned_keys({"scheduler.policy=\"max_min_fairness\"", "scheduler.rounds=\"exact\"",
                         "scheduler.allocation_reset_s=60", "scheduler.type_order=\"shuffle\""}),
            (Keys{"scheduler.allocation_reset_s", "scheduler.type_order"}));
  EXPECT_EQ(warned_keys({"scheduler.policy=\"max_min_fairness\"", "scheduler.rounds=\"exact\""}),
            Keys{});
  // exact_fill is the exact realisation's: Gavel's rounds fill leftover GPUs themselves.
  EXPECT_EQ(warned_keys({"scheduler.exact_fill=\"idle\""}), Keys{"scheduler.exact_fill"});
  EXPECT_EQ(warned_keys({"scheduler.policy=\"max_min_fairness\"", "scheduler.exact_fill=\"idle\""}),
            Keys{"scheduler.exact_fill"});
  EXPECT_EQ(warned_keys({"scheduler.policy=\"max_min_fairness\"", "scheduler.rounds=\"exact\"",
                         "scheduler.exact_fill=\"idle\""}),
            Keys{});
  // Without per-type speeds no type is faster; Gavel's policies choose types themselves.
  EXPECT_EQ(warned_keys({"mechanisms.upgrade_type=true"}), Keys{"mechanisms.upgrade_type"});
  EXPECT_EQ(warned_keys({"mechanisms.upgrade_type=true", "scheduler.policy=\"fifo_perf\""}),
            Keys{"mechanisms.upgrade_type"});
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

// A cluster of two GPU types without a throughput table: every job runs at one speed on both.
std::vector<std::string> warned_on_two_types(const std::vector<std::string>& sets) {
  const RunConfig config = parse_run_config(
      "[cluster]\nnodes = 0\n[[cluster.node_group]]\nname = \"a\"\nnodes = 1\ngpu_type = \"v100\"\n"
      "[[cluster.node_group]]\nname = \"b\"\nnodes = 1\ngpu_type = \"k80\"\n"
      "[workload]\ngenerator = \"philly\"\n",
      "test.toml", "/data", sets);
  std::vector<std::string> warned;
  for (const ConfigWarning& warning : config_warnings(config)) warned.push_back(warning.key);
  return warned;
}

TEST(Config, HeterogeneityAwarePoliciesWithoutPerTypeSpeedsAreWarned) {
  using Keys = std::vector<std::string>;
  for (const char* policy : {"max_min_fairness_perf", "fifo_perf", "finish_time_fairness_perf",
                             "min_total_duration_perf", "max_sum_throughput_perf"})
    EXPECT_EQ(warned_on_two_types({std::string("scheduler.policy=\"") + policy + "\""}),
              Keys{"scheduler.policy"})
        << policy;
  // The agnostic forms see no speeds by design; one GPU type has none to see.
  EXPECT_EQ(warned_on_two_types({"scheduler.policy=\"max_min_fairness\""}), Keys{});
  EXPECT_EQ(warned_keys({"scheduler.policy=\"max_min_fairness_perf\""}), Keys{});
}

// Failure classes use repair_h (a class's default repair) and [fabric]'s leaves (a switch
// class's domain), and shrink_on_failure acts on mtbf_h's and traces' outages: none of them is
// warned then; each is where nothing uses it.
TEST(Config, FailureKeysWarnedOnlyWhereNothingUsesThem) {
  const auto warned = [](const std::string& tail) {
    const RunConfig config = parse_run_config(
        "[cluster]\nnodes = 4\nnodes_per_rack = 2\n[workload]\ngenerator = \"philly\"\n" + tail,
        "test.toml", "/data");
    std::set<std::string> keys;
    for (const ConfigWarning& warning : config_warnings(config)) keys.insert(warning.key);
    return std::make_pair(keys, config.sim.mechanisms.failure_classes);
  };
  const std::string keys =
      "[fabric]\nhosts_per_leaf = 2\n[mechanisms]\nrepair_h = 3\nelastic = true\n"
      "shrink_on_failure = true\n";
  const auto [with_class, classes] =
      warned(keys + "[mechanisms.failure_class.switch]\nrate_per_h = 0.01\n");
  for (const char* key :
       {"fabric.hosts_per_leaf", "mechanisms.repair_h", "mechanisms.shrink_on_failure"})
    EXPECT_EQ(with_class.count(key), 0u) << key;
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].unit, FailureUnit::kLeaf);
  EXPECT_DOUBLE_EQ(classes[0].repair_h, 3.0);
  const auto [with_mtbf, no_classes] = warned(keys + "mtbf_h = 100\n");
  EXPECT_EQ(with_mtbf.count("mechanisms.shrink_on_failure"), 0u);
  EXPECT_EQ(with_mtbf.count("fabric.hosts_per_leaf"), 1u);  // no LLM jobs, no leaf class
  const auto [nothing, none] = warned(keys);
  for (const char* key :
       {"fabric.hosts_per_leaf", "mechanisms.repair_h", "mechanisms.shrink_on_failure"})
    EXPECT_EQ(nothing.count(key), 1u) << key;
}

TEST(Config, MinimumRunWarnedWhereNoRoundPreempts) {
  using Keys = std::vector<std::string>;
  EXPECT_EQ(warned_keys({"scheduler.min_run_s=600"}), Keys{"scheduler.min_run_s"});  // fifo
  EXPECT_EQ(warned_keys({"scheduler.min_run_s=600", "scheduler.policy=\"max_min_fairness\""}),
            Keys{"scheduler.min_run_s"});
  EXPECT_EQ(warned_keys({"scheduler.min_run_s=600", "scheduler.policy=\"las\""}), Keys{});
  EXPECT_EQ(warned_keys({"scheduler.min_run_s=600", "scheduler.policy=\"srtf\""}), Keys{});
  EXPECT_EQ(warned_keys({"scheduler.tiresias_promote_knob=2"}),
            Keys{"scheduler.tiresias_promote_knob"});
  EXPECT_EQ(warned_keys({"scheduler.tiresias_promote_knob=2", "scheduler.policy=\"tiresias\""}),
            Keys{});
}

}  // namespace
}  // namespace clustersim
