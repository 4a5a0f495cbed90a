// The serving catalog (profiles/serving/models.json, schema "clustersim-serving/1"; documented in
// profiles/README.md): what serving DAG workloads need to know about models, GPUs and the network.
//
// - models: per model its GPU-memory footprint (weights + workspace, GB = 1e9 bytes; 0 = a task
//   that needs no model, never loaded) and, when known, its batch-1 compute time on the reference
//   GPU and typical input/output sizes (MB = 1e6 bytes), each with its source;
// - pipelines: the Compass study's query DAGs (the query_dag generator's "compass" shapes);
// - gpu_types: per GPU type its memory (GB) and host-to-device bandwidth (GB/s) defaults; the
//   entry "generic" is required and stands for any type not listed;
// - network: per-node bandwidth (Gb/s) and per-transfer latency (us) defaults.
//
// A model's load time is footprint / host-to-device bandwidth (task_placement.h, load_time_s).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/job.h"
#include "clustersim/serving.h"

namespace clustersim {

inline constexpr const char* kServingCatalogSchema = "clustersim-serving/1";
// The name the built-in catalog goes by in messages (it is compiled in from that file).
inline constexpr const char* kDefaultServingCatalogName = "profiles/serving/models.json";

struct ServingModel {
  std::string name;  // canonical; matched case-insensitively ignoring non-alphanumerics
  std::vector<std::string> aliases;
  std::string model_class;           // "image", "language", "audio" or "none" (no model)
  double footprint_gb = 0.0;         // GPU memory while resident; 0 = nothing to load
  std::optional<double> compute_ms;  // batch-1 compute time on the reference GPU
  double input_mb = 0.0;             // typical input size (what a source task reads)
  double output_mb = 0.0;            // typical output size (what it hands each child)
  std::string kind;                  // "measured", "published", "derived" or "estimated"
  std::string source;
  std::size_t line = 0;  // where the entry starts in the catalog file
};

struct PipelineTask {
  std::string id;
  std::size_t model = 0;             // index into ServingCatalog::models
  std::vector<std::size_t> parents;  // indices of earlier tasks of the pipeline
  double input_mb = 0.0;
  double output_mb = 0.0;
  double compute_ms = 0.0;  // > 0
};

struct ServingPipeline {
  std::string name;
  std::string source;
  std::vector<PipelineTask> tasks;  // topologically ordered (parents listed first), not empty
  std::size_t line = 0;
};

struct GpuServingDefaults {
  std::string gpu_type;
  double mem_gb = 0.0;    // > 0
  double h2d_gbps = 0.0;  // host-to-device copy bandwidth, GB/s (1e9 bytes/s), > 0
  std::string kind;
  std::string source;
  std::size_t line = 0;
};

struct NetworkDefaults {
  double net_gbps = 0.0;        // per-node network bandwidth, Gb/s (1e9 bits/s), > 0
  double net_latency_us = 0.0;  // fixed cost per transfer, microseconds, >= 0
  std::string kind;
  std::string source;
};

struct ServingCatalog {
  std::string file;  // for messages
  std::vector<ServingModel> models;
  std::vector<ServingPipeline> pipelines;
  std::vector<GpuServingDefaults> gpu_types;  // contains "generic"
  NetworkDefaults network;

  // Index of the model called `name` (or one of its aliases), or -1.
  int find_model(std::string_view name) const;
  // The defaults of `gpu_type` (matched as model names are), else those of "generic".
  const GpuServingDefaults& gpu_defaults(std::string_view gpu_type) const;
};

// Parses catalog JSON. Errors are InputError(file, line, field, ...) with the field's JSON path,
// e.g. "models[3].footprint_gb", and the line where its value starts.
ServingCatalog parse_serving_catalog(const std::string& text, const std::string& file);
// Reads and parses `path` (InputError line 0 when it cannot be read).
ServingCatalog load_serving_catalog(const std::string& path);
// The catalog compiled in from profiles/serving/models.json (parsed once, on first use).
const ServingCatalog& default_serving_catalog();

// The catalog index of every task's model (parallel to workload.jobs). A model the catalog does
// not know is InputError(source_name, the task's source_line, "model", ...).
std::vector<int> resolve_task_models(const Workload& workload, const ServingCatalog& catalog,
                                     const std::string& source_name);

// GPU memory of one GPU type of the cluster (the [cluster] value, or the catalog default).
struct GpuMemory {
  std::string gpu_type;
  double mem_gb = 0.0;
};

// Every task's model must fit in the memory of the largest GPU (`gpu_memory`, one entry per type
// in the cluster). The first task whose model does not is InputError(source_name, the task's
// source_line, "model", "model 'X' needs N GB of GPU memory (CATALOG:LINE) but the largest GPU
// (type T) holds M GB"); source_name is the trace, or the config for a generated workload.
void check_models_fit(const Workload& workload, const std::vector<int>& task_models,
                      const ServingCatalog& catalog, const std::vector<GpuMemory>& gpu_memory,
                      const std::string& source_name);

// What simulate_serving needs (serving.h), resolved: every task's model (resolve_task_models),
// their footprints, and per node group its GPU memory ([cluster] gpu_mem_gb, else the catalog's
// default for its gpu_type), host-to-device bandwidth (catalog), network bandwidth and latency
// ([cluster] net_gbps / net_latency_us, else the catalog's network). A model larger than every
// GPU is the InputError of check_models_fit.
ServingSetup make_serving_setup(const Workload& workload, const ClusterSpec& cluster,
                                const ServingCatalog& catalog, const std::string& source_name);

}  // namespace clustersim
