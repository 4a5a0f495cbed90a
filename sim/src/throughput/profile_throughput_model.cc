// Profile math and the profile-driven throughput model (no I/O: the JSON reader lives in
// src/io/profile_reader.cc).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "ckbench/pipeline_formula.h"
#include "clustersim/error.h"
#include "clustersim/profile.h"
#include "options/declare.h"

namespace clustersim {

std::string normalize_model_name(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char ch : name) {
    if (std::isalnum(ch)) out.push_back(static_cast<char>(std::tolower(ch)));
  }
  return out;
}

// ---- ProfileLibrary ------------------------------------------------------------------------

void ProfileLibrary::add(Profile profile) {
  const std::string key = normalize_model_name(profile.model);
  auto& models = by_gpu_type[profile.gpu_type];
  if (auto it = models.find(key); it != models.end()) {
    throw InputError(profile.file, 0, "model",
                     "duplicate profile for model '" + profile.model + "' on GPU type '" +
                         profile.gpu_type + "' (also in " + it->second.file + ")");
  }
  for (const std::string& alias : profile.aliases) {
    const std::string normalized = normalize_model_name(alias);
    if (normalized.empty() || normalized == key) continue;
    auto [it, inserted] = alias_to_model.emplace(normalized, key);
    if (!inserted && it->second != key) {
      throw InputError(profile.file, 0, "aliases",
                       "alias '" + alias + "' already names model '" + it->second + "'");
    }
  }
  models.emplace(key, std::move(profile));
}

const Profile* ProfileLibrary::find(const std::string& model, const std::string* gpu_type) const {
  std::string key = normalize_model_name(model);
  if (key.empty()) return nullptr;
  auto lookup = [&](const std::string& k) -> const Profile* {
    if (gpu_type != nullptr) {
      if (auto g = by_gpu_type.find(*gpu_type); g != by_gpu_type.end()) {
        if (auto m = g->second.find(k); m != g->second.end()) return &m->second;
      }
    }
    // No profile for the job's GPU type: the v100 set first (every result before other types
    // shipped used it, and a folder holding several types must not change them), then the
    // other types in name order.
    if (auto g = by_gpu_type.find(kFallbackProfileGpuType); g != by_gpu_type.end()) {
      if (auto m = g->second.find(k); m != g->second.end()) return &m->second;
    }
    for (const auto& [type, models] : by_gpu_type) {
      if (auto m = models.find(k); m != models.end()) return &m->second;
    }
    return nullptr;
  };
  if (const Profile* p = lookup(key)) return p;
  if (auto a = alias_to_model.find(key); a != alias_to_model.end()) return lookup(a->second);
  return nullptr;
}

std::size_t ProfileLibrary::size() const {
  std::size_t n = 0;
  for (const auto& [type, models] : by_gpu_type) n += models.size();
  return n;
}

// ---- Validation ----------------------------------------------------------------------------

namespace {

std::string indexed(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

void validate_axis(const Profile& p, const std::vector<double>& axis, const std::string& name) {
  if (axis.empty()) throw InputError(p.file, 0, name, "must hold at least one value");
  for (std::size_t i = 0; i < axis.size(); ++i) {
    if (!std::isfinite(axis[i]) || axis[i] <= 0.0) {
      throw InputError(p.file, 0, indexed(name, i), "must be a finite number > 0");
    }
    if (i > 0 && axis[i] <= axis[i - 1]) {
      throw InputError(p.file, 0, indexed(name, i), "axis values must be strictly increasing");
    }
  }
}

void validate_positive(const Profile& p, double value, const std::string& field, bool allow_zero) {
  if (!std::isfinite(value) || value < 0.0 || (!allow_zero && value == 0.0)) {
    throw InputError(p.file, 0, field,
                     allow_zero ? "must be a finite number >= 0" : "must be a finite number > 0");
  }
}

}  // namespace

void validate_profile(const Profile& p) {
  if (p.model.empty() || normalize_model_name(p.model).empty()) {
    throw InputError(p.file, 0, "model", "must be a non-empty name with letters or digits");
  }
  if (p.gpu_type.empty()) throw InputError(p.file, 0, "gpu_type", "must be non-empty");
  static const std::set<std::string> kinds = {"measured", "derived", "estimated"};
  if (!kinds.contains(p.provenance_kind)) {
    throw InputError(p.file, 0, "provenance.kind",
                     "must be one of \"measured\", \"derived\", \"estimated\" (got \"" +
                         p.provenance_kind + "\")");
  }
  validate_positive(p, p.batch_size, "batch_size", true);
  validate_axis(p, p.cpus_per_gpu, "cpus_per_gpu");
  validate_axis(p, p.mem_gb_per_gpu, "mem_gb_per_gpu");

  if (p.throughput.size() != p.cpus_per_gpu.size()) {
    throw InputError(p.file, 0, "throughput",
                     "has " + std::to_string(p.throughput.size()) + " rows but cpus_per_gpu has " +
                         std::to_string(p.cpus_per_gpu.size()) + " values");
  }
  constexpr double kTolerance = 1e-9;
  for (std::size_t i = 0; i < p.throughput.size(); ++i) {
    const auto& row = p.throughput[i];
    if (row.size() != p.mem_gb_per_gpu.size()) {
      throw InputError(p.file, 0, indexed("throughput", i),
                       "has " + std::to_string(row.size()) + " columns but mem_gb_per_gpu has " +
                           std::to_string(p.mem_gb_per_gpu.size()) + " values");
    }
    for (std::size_t j = 0; j < row.size(); ++j) {
      const std::string field = indexed(indexed("throughput", i), j);
      if (!std::isfinite(row[j]) || row[j] <= 0.0) {
        throw InputError(p.file, 0, field, "must be a finite number > 0");
      }
      if (j > 0 && row[j] < row[j - 1] * (1.0 - kTolerance)) {
        throw InputError(p.file, 0, field,
                         "throughput falls as memory grows (non-monotonic along mem_gb_per_gpu)");
      }
      if (i > 0 && row[j] < p.throughput[i - 1][j] * (1.0 - kTolerance)) {
        throw InputError(p.file, 0, field,
                         "throughput falls as CPU cores grow (non-monotonic along cpus_per_gpu)");
      }
    }
  }

  auto check_ref = [&](double value, const std::vector<double>& axis, const std::string& field) {
    if (!std::isfinite(value) || value <= 0.0) {
      throw InputError(p.file, 0, field, "must be a finite number > 0");
    }
    if (value < axis.front() || value > axis.back()) {
      throw InputError(p.file, 0, field, "lies outside the matrix axis");
    }
  };
  check_ref(p.ref_cpus_per_gpu, p.cpus_per_gpu, "reference.cpus_per_gpu");
  check_ref(p.ref_mem_gb_per_gpu, p.mem_gb_per_gpu, "reference.mem_gb_per_gpu");
  validate_positive(p, p.ref_storage_mbps_per_gpu, "reference.storage_mbps_per_gpu", true);

  if (p.pipeline) {
    const PipelineParams& q = *p.pipeline;
    validate_positive(p, q.gpu_samples_per_s, "pipeline.gpu_samples_per_s", false);
    validate_positive(p, q.dataset_gb, "pipeline.dataset_gb", false);
    validate_positive(p, q.bytes_per_sample, "pipeline.bytes_per_sample", false);
    validate_positive(p, q.cache_read_mbps, "pipeline.cache_read_mbps", true);
    validate_positive(p, q.storage_mbps, "pipeline.storage_mbps", false);
  }
}

// ---- Math ----------------------------------------------------------------------------------

namespace {

// Segment index i and weight t so that x ~ axis[i] * (1 - t) + axis[i + 1] * t, clamped.
std::pair<std::size_t, double> locate(const std::vector<double>& axis, double x) {
  if (axis.size() == 1 || !(x > axis.front())) return {0, 0.0};
  if (x >= axis.back()) return {axis.size() - 2, 1.0};
  const auto upper = std::upper_bound(axis.begin(), axis.end(), x);
  const std::size_t i = static_cast<std::size_t>(upper - axis.begin()) - 1;
  return {i, (x - axis[i]) / (axis[i + 1] - axis[i])};
}

}  // namespace

double interpolate_throughput(const Profile& profile, double cpus_per_gpu, double mem_gb_per_gpu) {
  const auto [i, ti] = locate(profile.cpus_per_gpu, cpus_per_gpu);
  const auto [j, tj] = locate(profile.mem_gb_per_gpu, mem_gb_per_gpu);
  const auto& t = profile.throughput;
  const std::size_t i1 = std::min(i + 1, t.size() - 1);
  const std::size_t j1 = std::min(j + 1, t[i].size() - 1);
  const double low = t[i][j] * (1.0 - tj) + t[i][j1] * tj;
  const double high = t[i1][j] * (1.0 - tj) + t[i1][j1] * tj;
  return low * (1.0 - ti) + high * ti;
}

double cache_hit_fraction(double cache_gb, double dataset_gb, double bytes_per_sample,
                          ProfileCachePolicy policy) {
  if (policy == ProfileCachePolicy::kLru && dataset_gb > 0.0 && bytes_per_sample > 0.0) {
    const double per_gb = 1e9 / bytes_per_sample;  // samples per GB
    return ckbench::lru_epoch_hit_fraction(cache_gb * per_gb, dataset_gb * per_gb);
  }
  return ckbench::subset_hit_fraction(cache_gb, dataset_gb);
}

double storage_rate(double hit, double bytes_per_sample, double storage_mbps) {
  // MB/s over MB per sample: the formula's storage term in the profile's units.
  return ckbench::storage_bound(hit, bytes_per_sample / 1e6, storage_mbps);
}

namespace {

double penalty_factor(const PlacementPenalty& penalty, const Allocation& a) {
  if (a.racks > 1) return penalty.cross_rack_factor;
  if (a.nodes > 1) return penalty.cross_node_factor;
  return 1.0;
}

}  // namespace

double profile_rate(const Profile& profile, const Allocation& allocation,
                    const ProfileModelOptions& options) {
  const double gpus = std::max(1, allocation.gpus);
  const double ref_c = options.ref_cpus_per_gpu.value_or(profile.ref_cpus_per_gpu);
  const double ref_m = options.ref_mem_gb_per_gpu.value_or(profile.ref_mem_gb_per_gpu);
  const double c = allocation.cpus > 0.0 ? allocation.cpus / gpus : ref_c;
  const double m = allocation.mem_gb > 0.0 ? allocation.mem_gb / gpus : ref_m;

  double tput = interpolate_throughput(profile, c, m);
  double ref = interpolate_throughput(profile, ref_c, ref_m);
  if (allocation.storage_mbps > 0.0 && profile.pipeline) {
    // The matrix is the job's rate with the storage it was profiled with; a storage share
    // enters through the formula's storage term (pipeline_formula.h).
    const PipelineParams& q = *profile.pipeline;
    const double ref_storage =
        profile.ref_storage_mbps_per_gpu > 0.0 ? profile.ref_storage_mbps_per_gpu : q.storage_mbps;
    const auto hit = [&](double mem_gb_per_gpu) {
      return cache_hit_fraction(mem_gb_per_gpu * gpus, q.dataset_gb, q.bytes_per_sample,
                                q.cache_policy);
    };
    tput = std::min(tput, storage_rate(hit(m), q.bytes_per_sample, allocation.storage_mbps / gpus));
    ref = std::min(ref, storage_rate(hit(ref_m), q.bytes_per_sample, ref_storage));
  }
  return tput / ref * penalty_factor(options.penalty, allocation);
}

void check_profile_coverage(const ProfileLibrary& library, const std::vector<JobSpec>& jobs,
                            const ProfileModelOptions& options, const std::string& source_name) {
  if (options.on_missing != MissingProfile::kError) return;
  for (const JobSpec& job : jobs) {
    const std::string* type = job.gpu_type.empty() ? nullptr : &job.gpu_type;
    if (library.find(job.model, type) != nullptr) continue;
    std::set<std::string> missing;
    for (const JobSpec& other : jobs) {
      const std::string* t = other.gpu_type.empty() ? nullptr : &other.gpu_type;
      if (library.find(other.model, t) == nullptr) missing.insert(other.model);
    }
    std::string list;
    for (const std::string& name : missing) list += (list.empty() ? "'" : ", '") + name + "'";
    throw InputError(
        source_name, job.source_line, "model",
        (job.model.empty() ? "job '" + job.id + "' names no model"
                           : "no profile for model '" + job.model + "' (job '" + job.id + "')") +
            "; models without a profile: " + list +
            " (set [throughput] on_missing = \"neutral\" to run them at rate 1.0)");
  }
}

namespace {

class ProfileThroughputModel final : public ThroughputModel {
 public:
  ProfileThroughputModel(std::shared_ptr<const ProfileLibrary> library,
                         const ProfileModelOptions& options)
      : library_(std::move(library)), options_(options) {
    if (!library_) throw std::invalid_argument("profile throughput model: null profile library");
  }

  bool resolves() const override { return true; }
  const void* resolve(const JobSpec& job, const std::string& gpu_type) const override {
    return library_->find(job.model, gpu_type.empty() ? nullptr : &gpu_type);
  }

  double rate(const JobSpec& job, const void* resolved,
              const Allocation& allocation) const override {
    const auto* profile = static_cast<const Profile*>(resolved);
    if (profile == nullptr) {
      if (options_.on_missing == MissingProfile::kNeutral) {
        return penalty_factor(options_.penalty, allocation);
      }
      throw std::invalid_argument("no profile for model '" + job.model + "' (job '" + job.id +
                                  "'); set [throughput] on_missing = \"neutral\" to run it at "
                                  "rate 1.0");
    }
    return profile_rate(*profile, allocation, options_);
  }

  SensitivityAxes axes(const void* resolved) const override {
    const auto* profile = static_cast<const Profile*>(resolved);
    if (profile == nullptr) return {};
    return {&profile->cpus_per_gpu, &profile->mem_gb_per_gpu};
  }

 private:
  std::shared_ptr<const ProfileLibrary> library_;
  ProfileModelOptions options_;
};

}  // namespace

std::unique_ptr<ThroughputModel> make_profile_throughput_model(
    std::shared_ptr<const ProfileLibrary> library, const ProfileModelOptions& options) {
  return std::make_unique<ProfileThroughputModel>(std::move(library), options);
}

namespace options {

void declare_profile_model_keys(KeyRegistry& keys) {
  const std::vector<std::string> profile = {"profile"};
  const std::vector<std::string> profile_or_table = {"profile", "table"};
  custom(keys, "throughput.profiles", KeyType::kPath)
      .when("throughput.model", profile)
      .component("throughput profile")
      .training_only()
      .doc("The profiles folder (e.g. `profiles/v100`; required by the profile model).");
  choice<ProfileModelOptions>(
      keys, "throughput.on_missing", [](auto& o) -> auto& { return o.on_missing; },
      std::vector<std::pair<std::string, MissingProfile>>{
          {"error", MissingProfile::kError},
          {"neutral", MissingProfile::kNeutral},
          {"cannot_run", MissingProfile::kCannotRun}})
      .when("throughput.model", profile_or_table)
      .component("throughput profile")
      .training_only()
      .doc(
          "What a job whose model has no profile (table: no entry) on a GPU type does: `error`, "
          "`neutral` (it runs at rate 1, times the placement factors) or `cannot_run` (it never "
          "runs on that type; table model only).");
  field<ProfileModelOptions>(
      keys, "throughput.ref_cpus_per_gpu", [](auto& o) -> auto& { return o.ref_cpus_per_gpu; })
      .range(1e-6, 1e6)
      .when("throughput.model", profile)
      .component("throughput profile")
      .training_only()
      .default_note("the cluster's share")
      .doc(
          "The allocation at which trace durations hold, CPU cores per GPU (default: the "
          "cluster's cores per GPU when all node groups have the same, else each profile's "
          "reference).");
  field<ProfileModelOptions>(
      keys, "throughput.ref_mem_gb_per_gpu", [](auto& o) -> auto& { return o.ref_mem_gb_per_gpu; })
      .range(1e-6, 1e9)
      .when("throughput.model", profile)
      .component("throughput profile")
      .training_only()
      .default_note("the cluster's share")
      .doc(
          "The allocation at which trace durations hold, GB of memory per GPU (default: as "
          "`ref_cpus_per_gpu`).");
}

}  // namespace options

}  // namespace clustersim
