// Small profiles built in code, so each mechanism's schedule can be computed by hand.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clustersim/profile.h"
#include "clustersim/simulator.h"

namespace clustersim::testing {

// A profile on GPU type "generic" whose speed depends on CPU cores per GPU only: `rates[i]` at
// `cpus[i]` (relative units), one memory column.
inline Profile cpu_profile(const std::string& model, std::vector<double> cpus,
                           std::vector<double> rates, double reference_cpus) {
  Profile p;
  p.file = model + ".json";
  p.model = model;
  p.gpu_type = "generic";
  p.provenance_kind = "estimated";
  p.provenance_source = "test";
  p.ref_cpus_per_gpu = reference_cpus;
  p.ref_mem_gb_per_gpu = 1.0;
  p.cpus_per_gpu = std::move(cpus);
  p.mem_gb_per_gpu = {1.0};
  for (double r : rates) p.throughput.push_back({r});
  validate_profile(p);
  return p;
}

// A cluster of one node of `gpus` GPUs and `cpus` cores (memory and storage not modelled), with
// invariants checked after every batch.
inline SimOptions one_node(int gpus, double cpus) {
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = 1;
  group.gpus_per_node = gpus;
  group.cpus_per_node = cpus;
  options.cluster.groups.push_back(group);
  options.sample_interval_s = 0;
  options.check_invariants = true;
  return options;
}

inline JobSpec model_job(const std::string& id, const std::string& model, double submit,
                         double duration, int gpus = 1) {
  JobSpec job;
  job.id = id;
  job.model = model;
  job.submit_time = submit;
  job.duration = duration;
  job.num_gpus = gpus;
  return job;
}

// The profile throughput model over `profiles`, with the trace durations holding at
// `reference_cpus` cores per GPU.
inline std::shared_ptr<ThroughputModel> model_of(std::vector<Profile> profiles,
                                                 double reference_cpus) {
  auto library = std::make_shared<ProfileLibrary>();
  for (auto& p : profiles) library->add(std::move(p));
  ProfileModelOptions options;
  options.ref_cpus_per_gpu = reference_cpus;
  return make_profile_throughput_model(library, options);
}

// The Synergy study's servers (8 V100s, 24 cores, 500 GB: 3 cores and 62.5 GB per GPU, where
// trace durations hold) with the shipped V100 profiles; `options.throughput` points into `model`.
struct SynergyServers {
  std::shared_ptr<ThroughputModel> model;
  SimOptions options;
};

inline SynergyServers synergy_servers(int nodes, const std::string& allocation) {
  auto library = std::make_shared<ProfileLibrary>(
      load_profile_dir(std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles/v100"));
  ProfileModelOptions profile_options;
  profile_options.ref_cpus_per_gpu = 3;
  profile_options.ref_mem_gb_per_gpu = 62.5;
  SynergyServers servers;
  servers.model = make_profile_throughput_model(library, profile_options);
  NodeGroupSpec group;
  group.nodes = nodes;
  group.gpus_per_node = 8;
  group.gpu_type = "v100";
  group.cpus_per_node = 24;
  group.mem_gb_per_node = 500;
  servers.options.cluster.groups = {group};
  servers.options.sample_interval_s = 0;
  servers.options.throughput = servers.model.get();
  servers.options.scheduler.allocation = allocation;
  return servers;
}

}  // namespace clustersim::testing
