// Reads the serving catalog (JSON, schema in profiles/README.md) and checks workloads against it.
#include "clustersim/serving_catalog.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_map>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/profile.h"
#include "io/internal/json_error.h"
#include "options/declare.h"

namespace clustersim {

namespace {

using nlohmann::json;

const char kDefaultCatalogText[] =
#include "default_serving_catalog.inc"
    ;

std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Field access with errors at the field's JSON path and line.
class Reader {
 public:
  Reader(std::string file, const std::string& text) : file_(std::move(file)), text_(text) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file_, io_internal::json_path_line(text_, field), field, message);
  }
  std::size_t line(const std::string& path) const {
    return io_internal::json_path_line(text_, path);
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string at(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
  }

  void only_fields(const json& object, const std::string& path,
                   const std::set<std::string>& known) const {
    if (!object.is_object()) fail(path, "must be an object");
    for (const auto& [key, value] : object.items()) {
      if (!known.contains(key))
        fail(join(path, excerpt(key)), "unknown field (typo?); see profiles/README.md");
    }
  }
  const json* member(const json& object, const std::string& path, const std::string& key,
                     bool required) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (required) fail(join(path, key), "missing required field");
      return nullptr;
    }
    return &*it;
  }
  std::string string(const json& object, const std::string& path, const std::string& key) const {
    const json& value = *member(object, path, key, true);
    if (!value.is_string() || value.get<std::string>().empty())
      fail(join(path, key), "must be a non-empty string");
    return value.get<std::string>();
  }
  // A finite number in [min, max] (`open_min`: > min).
  double number(const json& value, const std::string& field, double min, bool open_min) const {
    if (!value.is_number()) fail(field, "must be a number");
    const double x = value.get<double>();
    if (!std::isfinite(x) || x < min || (open_min && x == min))
      fail(field, std::string("must be a finite number ") + (open_min ? "> " : ">= ") +
                      number_text(min) + ", got " + number_text(x));
    return x;
  }
  double number(const json& object, const std::string& path, const std::string& key, double min,
                bool open_min) const {
    return number(*member(object, path, key, true), join(path, key), min, open_min);
  }
  const json& array(const json& object, const std::string& path, const std::string& key,
                    bool non_empty) const {
    const json& value = *member(object, path, key, true);
    if (!value.is_array() || (non_empty && value.empty()))
      fail(join(path, key), non_empty ? "must be a non-empty array" : "must be an array");
    return value;
  }
  std::string choice(const json& object, const std::string& path, const std::string& key,
                     const std::vector<std::string>& allowed) const {
    const std::string value = string(object, path, key);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(join(path, key),
           "unknown value '" + excerpt(value) + "' (expected one of: " + list + ")");
    }
    return value;
  }

 private:
  std::string file_;
  const std::string& text_;
};

const std::vector<std::string> kKinds = {"measured", "published", "derived", "estimated"};

void read_models(const Reader& r, const json& root, ServingCatalog& catalog) {
  const json& models = r.array(root, "", "models", true);
  std::unordered_map<std::string, std::string> owner;  // normalized name or alias -> field
  for (std::size_t i = 0; i < models.size(); ++i) {
    const std::string path = Reader::at("models", i);
    const json& m = models[i];
    r.only_fields(m, path,
                  {"name", "aliases", "class", "footprint_gb", "compute_ms", "input_mb",
                   "output_mb", "kind", "source"});
    ServingModel model;
    model.line = r.line(path);
    model.name = r.string(m, path, "name");
    if (const json* aliases = r.member(m, path, "aliases", false)) {
      if (!aliases->is_array())
        r.fail(Reader::join(path, "aliases"), "must be an array of strings");
      for (std::size_t a = 0; a < aliases->size(); ++a) {
        const std::string field = Reader::at(Reader::join(path, "aliases"), a);
        if (!(*aliases)[a].is_string() || (*aliases)[a].get<std::string>().empty())
          r.fail(field, "must be a non-empty string");
        model.aliases.push_back((*aliases)[a].get<std::string>());
      }
    }
    // Names and aliases must be told apart after normalization (as the simulator matches them).
    const auto claim = [&](const std::string& name, const std::string& field) {
      const std::string key = normalize_model_name(name);
      if (key.empty()) r.fail(field, "a name needs letters or digits");
      const auto [it, inserted] = owner.emplace(key, field);
      if (!inserted) r.fail(field, "'" + excerpt(name) + "' is already the name of " + it->second);
    };
    claim(model.name, Reader::join(path, "name"));
    for (std::size_t a = 0; a < model.aliases.size(); ++a) {
      // An alias that only differs from the name in case or punctuation adds nothing.
      if (normalize_model_name(model.aliases[a]) == normalize_model_name(model.name)) continue;
      claim(model.aliases[a], Reader::at(Reader::join(path, "aliases"), a));
    }
    model.model_class = r.choice(m, path, "class", {"image", "language", "audio", "none"});
    model.footprint_gb = r.number(m, path, "footprint_gb", 0.0, false);
    if (model.model_class == "none" && model.footprint_gb != 0.0)
      r.fail(Reader::join(path, "footprint_gb"), "a model of class \"none\" has no footprint (0)");
    if (const json* compute = r.member(m, path, "compute_ms", false))
      model.compute_ms = r.number(*compute, Reader::join(path, "compute_ms"), 0.0, true);
    if (const json* in = r.member(m, path, "input_mb", false))
      model.input_mb = r.number(*in, Reader::join(path, "input_mb"), 0.0, false);
    if (const json* out = r.member(m, path, "output_mb", false))
      model.output_mb = r.number(*out, Reader::join(path, "output_mb"), 0.0, false);
    model.kind = r.choice(m, path, "kind", kKinds);
    model.source = r.string(m, path, "source");
    catalog.models.push_back(std::move(model));
  }
}

void read_pipelines(const Reader& r, const json& root, ServingCatalog& catalog) {
  if (!r.member(root, "", "pipelines", false)) return;
  const json& pipelines = r.array(root, "", "pipelines", false);
  std::set<std::string> names;
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    const std::string path = Reader::at("pipelines", i);
    const json& p = pipelines[i];
    r.only_fields(p, path, {"name", "source", "tasks"});
    ServingPipeline pipeline;
    pipeline.line = r.line(path);
    pipeline.name = r.string(p, path, "name");
    if (!names.insert(pipeline.name).second)
      r.fail(Reader::join(path, "name"),
             "duplicate pipeline name '" + excerpt(pipeline.name) + "'");
    pipeline.source = r.string(p, path, "source");
    const json& tasks = r.array(p, path, "tasks", true);
    std::unordered_map<std::string, std::size_t> index_of;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      const std::string task_path = Reader::at(Reader::join(path, "tasks"), k);
      const json& t = tasks[k];
      r.only_fields(t, task_path,
                    {"id", "model", "parents", "input_mb", "output_mb", "compute_ms"});
      PipelineTask task;
      task.id = r.string(t, task_path, "id");
      if (!index_of.emplace(task.id, k).second)
        r.fail(Reader::join(task_path, "id"), "duplicate task id '" + excerpt(task.id) + "'");
      const std::string model = r.string(t, task_path, "model");
      const int found = catalog.find_model(model);
      if (found < 0)
        r.fail(Reader::join(task_path, "model"), "unknown model '" + excerpt(model) + "'");
      task.model = static_cast<std::size_t>(found);
      const json& parents = r.array(t, task_path, "parents", false);
      for (std::size_t j = 0; j < parents.size(); ++j) {
        const std::string field = Reader::at(Reader::join(task_path, "parents"), j);
        if (!parents[j].is_string()) r.fail(field, "must be a task id (a string)");
        const auto parent = index_of.find(parents[j].get<std::string>());
        if (parent == index_of.end() || parent->second == k)
          r.fail(field, "'" + excerpt(parents[j].get<std::string>()) +
                            "' is not a task listed before this one");
        if (std::find(task.parents.begin(), task.parents.end(), parent->second) !=
            task.parents.end())
          r.fail(field, "parent listed twice");
        task.parents.push_back(parent->second);
      }
      task.input_mb = r.number(t, task_path, "input_mb", 0.0, false);
      task.output_mb = r.number(t, task_path, "output_mb", 0.0, false);
      task.compute_ms = r.number(t, task_path, "compute_ms", 0.0, true);
      pipeline.tasks.push_back(std::move(task));
    }
    catalog.pipelines.push_back(std::move(pipeline));
  }
}

void read_gpu_types(const Reader& r, const json& root, ServingCatalog& catalog) {
  const json& types = r.array(root, "", "gpu_types", true);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const std::string path = Reader::at("gpu_types", i);
    const json& g = types[i];
    r.only_fields(g, path, {"name", "mem_gb", "h2d_gbps", "kind", "source"});
    GpuServingDefaults gpu;
    gpu.line = r.line(path);
    gpu.gpu_type = r.string(g, path, "name");
    if (!seen.insert(normalize_model_name(gpu.gpu_type)).second)
      r.fail(Reader::join(path, "name"), "duplicate GPU type '" + excerpt(gpu.gpu_type) + "'");
    gpu.mem_gb = r.number(g, path, "mem_gb", 0.0, true);
    gpu.h2d_gbps = r.number(g, path, "h2d_gbps", 0.0, true);
    gpu.kind = r.choice(g, path, "kind", kKinds);
    gpu.source = r.string(g, path, "source");
    catalog.gpu_types.push_back(std::move(gpu));
  }
  if (!seen.contains("generic"))
    r.fail("gpu_types", "needs an entry named \"generic\" (the default for other GPU types)");
}

void read_network(const Reader& r, const json& root, ServingCatalog& catalog) {
  const json& n = *r.member(root, "", "network", true);
  r.only_fields(n, "network", {"net_gbps", "net_latency_us", "kind", "source"});
  catalog.network.net_gbps = r.number(n, "network", "net_gbps", 0.0, true);
  catalog.network.net_latency_us = r.number(n, "network", "net_latency_us", 0.0, false);
  catalog.network.kind = r.choice(n, "network", "kind", kKinds);
  catalog.network.source = r.string(n, "network", "source");
}

std::string catalog_place(const ServingCatalog& catalog, const ServingModel& model) {
  return catalog.file + ":" + std::to_string(model.line);
}

}  // namespace

int ServingCatalog::find_model(std::string_view name) const {
  const std::string key = normalize_model_name(std::string(name));
  if (key.empty()) return -1;
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (normalize_model_name(models[i].name) == key) return static_cast<int>(i);
    for (const std::string& alias : models[i].aliases)
      if (normalize_model_name(alias) == key) return static_cast<int>(i);
  }
  return -1;
}

const GpuServingDefaults& ServingCatalog::gpu_defaults(std::string_view gpu_type) const {
  const std::string key = normalize_model_name(std::string(gpu_type));
  const GpuServingDefaults* generic = nullptr;
  for (const GpuServingDefaults& gpu : gpu_types) {
    const std::string name = normalize_model_name(gpu.gpu_type);
    if (name == key) return gpu;
    if (name == "generic") generic = &gpu;
  }
  if (!generic) throw std::logic_error("serving catalog without a \"generic\" GPU type");
  return *generic;
}

ServingCatalog parse_serving_catalog(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    throw io_internal::json_parse_error(file, text, e);
  }
  const Reader r(file, text);
  if (!root.is_object()) r.fail("", "the catalog must be a JSON object");
  r.only_fields(root, "", {"schema", "notes", "models", "pipelines", "gpu_types", "network"});
  const std::string schema = r.string(root, "", "schema");
  if (schema != kServingCatalogSchema)
    r.fail("schema", "unsupported schema \"" + excerpt(schema) + "\" (expected \"" +
                         kServingCatalogSchema + "\")");
  ServingCatalog catalog;
  catalog.file = file;
  read_models(r, root, catalog);
  read_pipelines(r, root, catalog);
  read_gpu_types(r, root, catalog);
  read_network(r, root, catalog);
  return catalog;
}

ServingCatalog load_serving_catalog(const std::string& path) {
  return parse_serving_catalog(read_input_file(path, "serving catalog"), path);
}

const ServingCatalog& default_serving_catalog() {
  static const ServingCatalog catalog =
      parse_serving_catalog(kDefaultCatalogText, kDefaultServingCatalogName);
  return catalog;
}

std::vector<int> resolve_task_models(const Workload& workload, const ServingCatalog& catalog,
                                     const std::string& source_name) {
  std::vector<int> out;
  out.reserve(workload.jobs.size());
  std::unordered_map<std::string, int> cache;  // model name as written -> index
  for (const JobSpec& job : workload.jobs) {
    auto [it, inserted] = cache.emplace(job.model, -1);
    if (inserted) it->second = catalog.find_model(job.model);
    if (it->second < 0) {
      throw InputError(source_name, job.source_line, "model",
                       "unknown model '" + excerpt(job.model) + "' (task " + excerpt(job.id) +
                           "): not in the serving catalog " + catalog.file);
    }
    out.push_back(it->second);
  }
  return out;
}

void check_models_fit(const Workload& workload, const std::vector<int>& task_models,
                      const ServingCatalog& catalog, const std::vector<GpuMemory>& gpu_memory,
                      const std::string& source_name) {
  if (task_models.size() != workload.jobs.size())
    throw std::invalid_argument("check_models_fit: one model index per task is needed");
  const GpuMemory* largest = nullptr;
  for (const GpuMemory& gpu : gpu_memory)
    if (!largest || gpu.mem_gb > largest->mem_gb) largest = &gpu;
  const double capacity = largest ? largest->mem_gb : 0.0;
  for (std::size_t t = 0; t < workload.jobs.size(); ++t) {
    const ServingModel& model = catalog.models.at(static_cast<std::size_t>(task_models[t]));
    if (model.footprint_gb <= capacity) continue;
    const JobSpec& job = workload.jobs[t];
    throw InputError(source_name, job.source_line, "model",
                     "model '" + excerpt(model.name) + "' (task " + excerpt(job.id) + ") needs " +
                         number_text(model.footprint_gb) + " GB of GPU memory (" +
                         catalog_place(catalog, model) + ") but " +
                         (largest ? "the largest GPU (type '" + excerpt(largest->gpu_type) +
                                        "') holds " + number_text(capacity) + " GB"
                                  : std::string("the cluster has no GPU")));
  }
}

ServingSetup make_serving_setup(const Workload& workload, const ClusterSpec& cluster,
                                const ServingCatalog& catalog, const std::string& source_name) {
  ServingSetup setup;
  setup.task_model = resolve_task_models(workload, catalog, source_name);
  for (const ServingModel& model : catalog.models)
    setup.model_footprint_gb.push_back(model.footprint_gb);
  std::vector<GpuMemory> gpu_memory;
  for (const NodeGroupSpec& group : cluster.groups) {
    const GpuServingDefaults& gpu = catalog.gpu_defaults(group.gpu_type);
    ServingSetup::Group resolved;
    resolved.gpu_mem_gb = group.gpu_mem_gb > 0.0 ? group.gpu_mem_gb : gpu.mem_gb;
    resolved.h2d_gbps = gpu.h2d_gbps;
    resolved.net_gbps = group.net_gbps > 0.0 ? group.net_gbps : catalog.network.net_gbps;
    resolved.net_latency_us =
        group.net_latency_us >= 0.0 ? group.net_latency_us : catalog.network.net_latency_us;
    setup.groups.push_back(resolved);
    if (group.nodes > 0) gpu_memory.push_back({group.gpu_type, resolved.gpu_mem_gb});
  }
  check_models_fit(workload, setup.task_model, catalog, gpu_memory, source_name);
  return setup;
}

namespace options {

void declare_catalog_keys(KeyRegistry& keys) {
  custom(keys, "workload.catalog", KeyType::kPath)
      .component("serving catalog")
      .dag_only()
      .default_note("built-in `profiles/serving/models.json`")
      .doc(
          "The serving catalog: model footprints and compute times, GPU and network defaults "
          "([`profiles/README.md`](profiles/"
          "README.md#serving-catalog-profilesservingmodelsjson)).");
}

}  // namespace options

}  // namespace clustersim
