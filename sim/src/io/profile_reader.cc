// Reads resource-sensitivity profiles (JSON, schema in profiles/README.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/profile.h"
#include "clustersim/serving_catalog.h"
#include "io/internal/json_error.h"
#include "io/internal/side_files.h"

namespace clustersim {

namespace {

using nlohmann::json;

class Reader {
 public:
  Reader(std::string file, const std::string& text) : file_(std::move(file)), text_(text) {}

  // The line is where the field's value starts (for a missing field: its parent's).
  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file_, io_internal::json_path_line(text_, field), field, message);
  }

  const json& member(const json& object, const std::string& path, const std::string& key,
                     bool required) const {
    static const json kNull;
    auto it = object.find(key);
    if (it == object.end()) {
      if (required) fail(join(path, key), "missing required field");
      return kNull;
    }
    return *it;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  double number(const json& value, const std::string& field) const {
    if (!value.is_number()) fail(field, "must be a number (got " + type_name(value) + ")");
    return value.get<double>();
  }

  std::string string(const json& value, const std::string& field) const {
    if (!value.is_string()) fail(field, "must be a string (got " + type_name(value) + ")");
    return value.get<std::string>();
  }

  std::vector<double> numbers(const json& value, const std::string& field) const {
    if (!value.is_array())
      fail(field, "must be an array of numbers (got " + type_name(value) + ")");
    std::vector<double> out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
      out.push_back(number(value[i], field + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  static std::string type_name(const json& value) {
    if (value.is_null()) return "null";
    return value.type_name();
  }

 private:
  std::string file_;
  const std::string& text_;
};

Profile parse_profile(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // syntax error, or a number overflow
    throw io_internal::json_parse_error(file, text, e);
  }
  Reader r(file, text);
  if (!root.is_object()) r.fail("", "the profile must be a JSON object");

  static const std::set<std::string> kKnown = {
      "schema",          "model",     "aliases",      "gpu_type",       "provenance",
      "batch_size",      "reference", "cpus_per_gpu", "mem_gb_per_gpu", "throughput",
      "throughput_unit", "pipeline",  "measurements", "notes",          "checkpoint_gb"};
  for (const auto& [key, value] : root.items()) {
    if (!kKnown.contains(key))
      r.fail(excerpt(key), "unknown field (typo?); see profiles/README.md");
  }

  const std::string schema = r.string(r.member(root, "", "schema", true), "schema");
  if (schema != kProfileSchema) {
    r.fail("schema",
           "unsupported schema \"" + excerpt(schema) + "\" (expected \"" + kProfileSchema + "\")");
  }

  Profile p;
  p.file = file;
  p.model = r.string(r.member(root, "", "model", true), "model");
  p.gpu_type = r.string(r.member(root, "", "gpu_type", true), "gpu_type");
  if (const json& aliases = r.member(root, "", "aliases", false); !aliases.is_null()) {
    if (!aliases.is_array()) r.fail("aliases", "must be an array of strings");
    for (std::size_t i = 0; i < aliases.size(); ++i) {
      p.aliases.push_back(r.string(aliases[i], "aliases[" + std::to_string(i) + "]"));
    }
  }

  const json& prov = r.member(root, "", "provenance", true);
  if (!prov.is_object()) r.fail("provenance", "must be an object");
  p.provenance_kind = r.string(r.member(prov, "provenance", "kind", true), "provenance.kind");
  p.provenance_source = r.string(r.member(prov, "provenance", "source", true), "provenance.source");

  if (const json& b = r.member(root, "", "batch_size", false); !b.is_null()) {
    p.batch_size = r.number(b, "batch_size");
  }
  if (const json& c = r.member(root, "", "checkpoint_gb", false); !c.is_null()) {
    p.checkpoint_gb = r.number(c, "checkpoint_gb");
    if (!(*p.checkpoint_gb >= 0.0)) r.fail("checkpoint_gb", "must be >= 0 (GB)");
  }
  if (const json& u = r.member(root, "", "throughput_unit", false); !u.is_null()) {
    const std::string unit = r.string(u, "throughput_unit");
    if (unit != "samples_per_s" && unit != "relative") {
      r.fail("throughput_unit", "must be \"samples_per_s\" or \"relative\"");
    }
  }

  const json& ref = r.member(root, "", "reference", true);
  if (!ref.is_object()) r.fail("reference", "must be an object");
  p.ref_cpus_per_gpu =
      r.number(r.member(ref, "reference", "cpus_per_gpu", true), "reference.cpus_per_gpu");
  p.ref_mem_gb_per_gpu =
      r.number(r.member(ref, "reference", "mem_gb_per_gpu", true), "reference.mem_gb_per_gpu");
  if (const json& s = r.member(ref, "reference", "storage_mbps_per_gpu", false); !s.is_null()) {
    p.ref_storage_mbps_per_gpu = r.number(s, "reference.storage_mbps_per_gpu");
  }

  p.cpus_per_gpu = r.numbers(r.member(root, "", "cpus_per_gpu", true), "cpus_per_gpu");
  p.mem_gb_per_gpu = r.numbers(r.member(root, "", "mem_gb_per_gpu", true), "mem_gb_per_gpu");
  const json& matrix = r.member(root, "", "throughput", true);
  if (!matrix.is_array()) r.fail("throughput", "must be an array of rows (one per cpus_per_gpu)");
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    p.throughput.push_back(r.numbers(matrix[i], "throughput[" + std::to_string(i) + "]"));
  }

  if (const json& pipe = r.member(root, "", "pipeline", false); !pipe.is_null()) {
    if (!pipe.is_object()) r.fail("pipeline", "must be an object");
    PipelineParams q;
    auto get = [&](const char* key) {
      return r.number(r.member(pipe, "pipeline", key, true), std::string("pipeline.") + key);
    };
    q.gpu_samples_per_s = get("gpu_samples_per_s");
    q.dataset_gb = get("dataset_gb");
    q.bytes_per_sample = get("bytes_per_sample");
    q.cache_read_mbps = get("cache_read_mbps");
    q.storage_mbps = get("storage_mbps");
    if (const json& c = r.member(pipe, "pipeline", "cache_policy", false); !c.is_null()) {
      const std::string policy = r.string(c, "pipeline.cache_policy");
      if (policy == "lru") {
        q.cache_policy = ProfileCachePolicy::kLru;
      } else if (policy != "subset") {
        r.fail("pipeline.cache_policy",
               "must be \"subset\" or \"lru\" (got \"" + excerpt(policy) + "\")");
      }
    }
    p.pipeline = q;
  }

  try {
    validate_profile(p);
  } catch (const InputError& error) {
    // validate_profile knows the field but not the text: add the field's line.
    if (error.line() != 0 || error.file() != file) throw;
    throw InputError(file, io_internal::json_path_line(text, error.field()), error.field(),
                     error.message());
  }
  return p;
}

// A serving catalog (serving_catalog.h) lives under profiles/ too; a folder scan skips it. Only a
// file that parses and names that schema is skipped: anything else is read as a profile, so a
// broken file still gets its error.
bool is_serving_catalog(const std::string& text) {
  try {
    const json root = json::parse(text);
    return root.is_object() && root.contains("schema") && root["schema"] == kServingCatalogSchema;
  } catch (const json::exception&) {
    return false;
  }
}

}  // namespace

Profile load_profile(const std::string& path) {
  return parse_profile(read_input_file(path, "profile file"), path);
}

namespace io_internal {

std::vector<std::string> profile_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError(dir, 0, "", "profile folder does not exist or is not a folder");
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".json") {
      files.push_back(it->path().string());
    }
  }
  if (ec) throw InputError(dir, 0, "", "cannot list profile folder: " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(dir, 0, "", "no profile (*.json) in this folder");
  return files;
}

ProfileLibrary profile_library(const std::string& dir, const std::vector<std::string>& files,
                               const std::vector<std::string>& texts) {
  ProfileLibrary library;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (is_serving_catalog(texts[i])) continue;  // profiles/serving/models.json is not a profile
    library.add(parse_profile(texts[i], files[i]));
  }
  if (library.size() == 0) throw InputError(dir, 0, "", "no profile (*.json) in this folder");
  return library;
}

}  // namespace io_internal

ProfileLibrary load_profile_dir(const std::string& dir) {
  const std::vector<std::string> files = io_internal::profile_files(dir);
  std::vector<std::string> texts;
  texts.reserve(files.size());
  for (const std::string& file : files) texts.push_back(read_input_file(file, "profile file"));
  return io_internal::profile_library(dir, files, texts);
}

}  // namespace clustersim
