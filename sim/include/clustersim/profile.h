// Per-model resource-sensitivity profiles (profiles/<gpu_type>/<model>.json, schema in
// profiles/README.md) and the throughput model they drive: a job's speed under an allocation of
// CPU cores, host memory and storage bandwidth per GPU, relative to the GPU-proportional
// reference allocation at which the trace's duration holds.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/throughput_model.h"

namespace clustersim {

inline constexpr const char* kProfileSchema = "clustersim-profile/1";

// How a job's memory caches its dataset: a fixed subset (MinIO-style, hit fraction = cache /
// dataset) or the OS page cache (LRU under a shuffling sampler: it thrashes, see
// lru_epoch_hit_fraction in gpu_kernels/include/ckbench/pipeline_formula.h).
enum class ProfileCachePolicy { kSubset, kLru };

// The old name, for code that includes this header without clustersim/model_cache.h (whose
// serving-cache interface ModelCachePolicy had the same name). Each header declares its alias
// in an inline namespace of its own, so both headers can be included together: only an
// unqualified `CachePolicy` is then ambiguous, and such code names ProfileCachePolicy or
// ModelCachePolicy. New code uses the canonical names.
inline namespace profile_compat {
using CachePolicy = ProfileCachePolicy;
}  // namespace profile_compat

// Inputs of the analytic input-pipeline model (all per GPU). Optional in a profile: without it
// the storage dimension is not modelled for that model.
struct PipelineParams {
  double gpu_samples_per_s = 0.0;  // GPU step rate with data always ready
  double dataset_gb = 0.0;         // D: bytes of the training set (GB = 1e9 bytes)
  double bytes_per_sample = 0.0;   // bytes read from cache or storage per sample
  double cache_read_mbps = 0.0;    // memory-cache read throughput (MB/s = 1e6 B/s); 0 = unbounded
                                   // (informational: cache reads are the workers' time, which
                                   // the matrix holds; not a separate limit)
  double storage_mbps = 0.0;       // storage read bandwidth the matrix was measured with
  ProfileCachePolicy cache_policy =
      ProfileCachePolicy::kSubset;  // how memory turns into a cache hit fraction
};

struct Profile {
  std::string file;                  // where it was read from (for messages)
  std::string model;                 // canonical model name, e.g. "resnet50"
  std::vector<std::string> aliases;  // other names a trace may use ("ResNet-50", "res50")
  std::string gpu_type;              // e.g. "v100"
  std::string provenance_kind;       // "measured" | "derived" | "estimated"
  std::string provenance_source;     // free text: where the numbers come from
  double batch_size = 0.0;           // per GPU; informational
  // Size of a checkpoint of the model's training state (weights, optimizer, data position) in
  // GB: what the size model of checkpoint, restore and migration costs moves ([mechanisms]).
  std::optional<double> checkpoint_gb;
  // Reference (GPU-proportional) allocation per GPU: the trace duration holds here.
  double ref_cpus_per_gpu = 0.0;
  double ref_mem_gb_per_gpu = 0.0;
  double ref_storage_mbps_per_gpu = 0.0;  // 0 = not given
  // Matrix axes (strictly increasing, > 0) and throughput[cpu_index][mem_index] in samples/s
  // per GPU (any unit works: only ratios are used), every entry > 0.
  std::vector<double> cpus_per_gpu;
  std::vector<double> mem_gb_per_gpu;
  std::vector<std::vector<double>> throughput;
  std::optional<PipelineParams> pipeline;
};

// Profiles by GPU type, then by canonical model name.
// The GPU type whose profiles stand in for a type without any (see ProfileLibrary::find).
inline constexpr const char* kFallbackProfileGpuType = "v100";

struct ProfileLibrary {
  std::map<std::string, std::map<std::string, Profile>> by_gpu_type;
  std::map<std::string, std::string> alias_to_model;  // normalized alias -> canonical model

  // The profile for `model` (any spelling: matched case-insensitively ignoring non-alphanumerics,
  // then through aliases) on `gpu_type`; a null or unknown gpu_type falls back to the
  // lexicographically first GPU type that has the model. Null when none.
  // The profile of `model` (or an alias) on `gpu_type`; without one for that type (or without a
  // type), the one on kFallbackProfileGpuType, else on the first type in name order.
  const Profile* find(const std::string& model, const std::string* gpu_type = nullptr) const;
  std::size_t size() const;
  void add(Profile profile);  // throws InputError (file, field "model") on a duplicate
};

// "ResNet-50" -> "resnet50": lowercase, alphanumerics only.
std::string normalize_model_name(const std::string& name);

// Validates a parsed profile (shapes, monotonic axes, positive values, reference inside the
// axes). Throws InputError(profile.file, 0, json_path, message). Called by the readers; exposed
// for profiles built in code.
void validate_profile(const Profile& profile);

// Reads one profile file. Throws InputError naming the file and the JSON path of the field at
// fault (e.g. "throughput[3][1]") for a missing file, bad JSON, missing or mistyped fields.
Profile load_profile(const std::string& path);

// Reads every *.json under `dir` (recursively, sorted) into a library, skipping serving catalogs
// (schema "clustersim-serving/1", e.g. profiles/serving/models.json). Throws InputError when the
// folder is missing or holds no profile.
ProfileLibrary load_profile_dir(const std::string& dir);

// ---- Pure math (no I/O) --------------------------------------------------------------------

// Bilinear interpolation of profile.throughput at (cpus_per_gpu, mem_gb_per_gpu), clamped to
// the axes' ends (no extrapolation).
double interpolate_throughput(const Profile& profile, double cpus_per_gpu, double mem_gb_per_gpu);

// The input-pipeline formula is written once, in gpu_kernels/include/ckbench/pipeline_formula.h
// (shared with the profiler). The simulator uses its storage term: with a cache hit fraction h
// (cache_hit_fraction), a storage share of S MB/s allows S / ((1 - h) B) samples/s (B in MB);
// cache reads and the storage's latency are the workers' time, which the matrix already holds.

// Fraction of samples served from a cache of cache_gb of a dataset_gb dataset (samples of
// bytes_per_sample bytes) under `policy`.
double cache_hit_fraction(double cache_gb, double dataset_gb, double bytes_per_sample,
                          ProfileCachePolicy policy);
// Samples/s a storage share of storage_mbps allows with hit fraction `hit` (+infinity when
// nothing is read from storage or the share is <= 0).
double storage_rate(double hit, double bytes_per_sample, double storage_mbps);

enum class MissingProfile {
  kError,    // a job whose model has no profile is an error (naming the model)
  kNeutral,  // such a job runs at rate 1.0 (times the placement penalty)
  // It cannot run on that GPU type (decisions never place it there; a job that can run on no
  // type of the cluster can never run). For models that key speed by GPU type (table).
  kCannotRun,
};

struct ProfileModelOptions {
  MissingProfile on_missing = MissingProfile::kError;
  // Reference allocation per GPU. Unset = each profile's own reference (its GPU-proportional
  // share, e.g. 3 cores and 62.5 GB per GPU for the Synergy-derived ones). Set these to the
  // cluster's proportional share (cpus_per_node / gpus_per_node, ...) to make the trace
  // duration hold there instead.
  std::optional<double> ref_cpus_per_gpu;
  std::optional<double> ref_mem_gb_per_gpu;
  // Cross-node / cross-rack slowdown, multiplied in as in the placement model.
  PlacementPenalty penalty;
};

// Rate of `job` under `allocation` relative to the reference allocation:
//   throughput(cpus/gpu, mem/gpu[, storage/gpu]) / throughput(reference).
// An allocation's cpus or mem_gb of 0 ("not modelled") is taken at the reference value; its
// storage_mbps of 0 leaves storage out. With storage modelled and pipeline params present,
// throughput = min(matrix, storage_rate(hit fraction of the job's memory, storage/gpu)).
// Returns > 0.
double profile_rate(const Profile& profile, const Allocation& allocation,
                    const ProfileModelOptions& options = {});

// Checks that every job's model has a profile (only with on_missing = kError): throws
// InputError(job source / "workload", line, "model", "no profile for model 'X' ...") otherwise.
void check_profile_coverage(const ProfileLibrary& library, const std::vector<JobSpec>& jobs,
                            const ProfileModelOptions& options, const std::string& source_name);

// The profile-driven throughput model (shares the library). rate() throws std::invalid_argument
// naming the model when a profile is missing and on_missing = kError.
std::unique_ptr<ThroughputModel> make_profile_throughput_model(
    std::shared_ptr<const ProfileLibrary> library, const ProfileModelOptions& options = {});

}  // namespace clustersim
