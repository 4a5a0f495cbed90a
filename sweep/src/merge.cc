#include "clustersim/sweep/merge.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "clustersim/error.h"
#include "clustersim/sweep/output_lock.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/shard.h"
#include "clustersim/sweep/sweep_command.h"
#include "hdf5_file.h"

namespace clustersim::sweep {

namespace {

namespace fs = std::filesystem;

// How each root attribute of the merged file is obtained from the inputs'. Every attribute not
// listed must be present and equal in every input (the grid and its schema: grid_sha256,
// grid_text, axes, metrics, save_jobs, software_version, ...), and is copied. The ones listed are
// provenance of the runs, or describe which points the file holds; sweep/README.md ("Merging
// shards") lists which of them may differ from an unsharded run's.
enum class Rule {
  kRecount,   // recomputed for the merged file: points_done, complete, shard, shard_points
  kEarliest,  // ISO 8601 times: the earliest
  kLatest,    // the latest
  kSum,       // integers: the sum over the inputs (ranks, threads, sessions)
  kJoin,      // text: the inputs' values, comma-separated (threads_per_rank)
  kDistinct,  // text: the distinct non-empty values, in input order, comma-separated
  kLines,     // text: the distinct values, one per line (command_line)
  kMax,       // integers: the largest (snapshot: 1 if any input is a snapshot)
};

const std::map<std::string_view, Rule>& attribute_rules() {
  static const std::map<std::string_view, Rule> rules = {
      {"points_done", Rule::kRecount},
      {"complete", Rule::kRecount},
      {"shard", Rule::kRecount},
      {"shard_points", Rule::kRecount},
      {"merged_from", Rule::kRecount},
      {"start_time", Rule::kEarliest},
      {"session_start_time", Rule::kEarliest},
      {"end_time", Rule::kLatest},
      {"sessions", Rule::kSum},
      {"ranks", Rule::kSum},
      {"threads", Rule::kSum},
      {"threads_per_rank", Rule::kJoin},
      {"hostname", Rule::kDistinct},
      {"slurm_job_id", Rule::kDistinct},
      {"grid_path", Rule::kDistinct},
      {"grid_path_absolute", Rule::kDistinct},
      {"working_directory", Rule::kDistinct},
      {"mpi_version", Rule::kDistinct},
      {"hdf5_version", Rule::kDistinct},
      {"tbb_version", Rule::kDistinct},
      {"command_line", Rule::kLines},
      // Each input's sessions and their builds (a JSON list per input, one per line): the
      // builds themselves (git_commit, binary_sha256) must agree.
      {"session_builds", Rule::kLines},
      // `clustersim snapshot` files (shards still running): merge --allow-missing shows progress.
      {"snapshot", Rule::kMax},
      {"snapshot_of", Rule::kDistinct},
      {"snapshot_time", Rule::kLatest},
  };
  return rules;
}

std::string show(const AttributeValue& value) {
  std::string text = std::visit(
      [](const auto& v) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
          return "'" + v + "'";
        } else {
          return nlohmann::json(v).dump();
        }
      },
      value);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

const std::string* text_of(const AttributeValue* value) {
  return value ? std::get_if<std::string>(value) : nullptr;
}

std::int64_t integer_of(const Attributes& attributes, const std::string& name,
                        std::int64_t fallback) {
  auto found = attributes.find(name);
  if (found == attributes.end()) return fallback;
  if (const auto* value = std::get_if<std::int64_t>(&found->second)) return *value;
  return fallback;
}

std::string text_attribute(const Attributes& attributes, const std::string& name) {
  auto found = attributes.find(name);
  const std::string* text = found == attributes.end() ? nullptr : text_of(&found->second);
  return text ? *text : std::string();
}

struct Input {
  std::string path;
  Attributes attributes;
  std::vector<std::int64_t> point_ids;
  std::vector<std::string> status;  // per point, as point_ids
};

// The merged file's root attributes, or InputError where the inputs disagree on one that must
// agree.
Attributes combine_attributes(const std::vector<Input>& inputs, std::size_t rows) {
  std::set<std::string> names;
  for (const Input& input : inputs)
    for (const auto& [name, value] : input.attributes) names.insert(name);

  Attributes merged;
  const auto& rules = attribute_rules();
  for (const std::string& name : names) {
    auto rule = rules.find(name);
    std::vector<std::pair<const Input*, const AttributeValue*>> values;
    for (const Input& input : inputs) {
      auto found = input.attributes.find(name);
      values.emplace_back(&input, found == input.attributes.end() ? nullptr : &found->second);
    }
    if (rule == rules.end()) {
      // Must agree: the grid, the schema, the software, the output options.
      for (const auto& [input, value] : values) {
        if (!value) {
          throw InputError(input->path, 0, "",
                           "has no attribute '" + name + "', which " + values[0].first->path +
                               " has: files of different clustersim versions cannot be merged");
        }
        if (!values[0].second) {
          throw InputError(values[0].first->path, 0, "",
                           "has no attribute '" + name + "', which " + input->path +
                               " has: files of different clustersim versions cannot be merged");
        }
        if (*value != *values[0].second) {
          throw InputError(input->path, 0, "",
                           "attribute '" + name + "' is " + show(*value) + ", but " +
                               show(*values[0].second) + " in " + values[0].first->path +
                               ": these files are not shards of one sweep");
        }
      }
      merged[name] = *values[0].second;
      continue;
    }
    switch (rule->second) {
      case Rule::kRecount:
        break;  // set below
      case Rule::kEarliest:
      case Rule::kLatest: {
        std::string best;
        for (const auto& [input, value] : values) {
          const std::string* text = text_of(value);
          if (!text || text->empty()) continue;
          if (best.empty() || (rule->second == Rule::kEarliest ? *text < best : *text > best))
            best = *text;
        }
        merged[name] = best;
        break;
      }
      case Rule::kSum:
      case Rule::kMax: {
        std::int64_t result = 0;
        for (const auto& [input, value] : values) {
          if (const auto* integer = value ? std::get_if<std::int64_t>(value) : nullptr)
            result = rule->second == Rule::kSum ? result + *integer : std::max(result, *integer);
        }
        merged[name] = result;
        break;
      }
      case Rule::kJoin:
      case Rule::kDistinct:
      case Rule::kLines: {
        std::vector<std::string> parts;
        for (const auto& [input, value] : values) {
          const std::string* text = text_of(value);
          if (!text || (rule->second != Rule::kJoin && text->empty())) continue;
          if (rule->second != Rule::kJoin &&
              std::find(parts.begin(), parts.end(), *text) != parts.end())
            continue;
          parts.push_back(*text);
        }
        std::string joined;
        for (std::size_t i = 0; i < parts.size(); ++i)
          joined += (i ? (rule->second == Rule::kLines ? "\n" : ",") : "") + parts[i];
        merged[name] = joined;
        break;
      }
    }
  }

  const std::int64_t total = integer_of(inputs[0].attributes, "points_total", 0);
  merged["points_done"] = static_cast<std::int64_t>(rows);
  merged["complete"] = static_cast<std::int64_t>(static_cast<std::int64_t>(rows) == total);
  merged["shard"] = std::string();
  merged["shard_points"] = total;
  nlohmann::json from = nlohmann::json::array();
  for (const Input& input : inputs) {
    from.push_back({{"file", input.path},
                    {"shard", text_attribute(input.attributes, "shard")},
                    {"points", input.point_ids.size()},
                    {"slurm_job_id", text_attribute(input.attributes, "slurm_job_id")}});
  }
  merged["merged_from"] = from.dump();
  return merged;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) return fs::equivalent(a, b, error);
  return fs::weakly_canonical(a, error) == fs::weakly_canonical(b, error);
}

// Why points are missing, as far as the inputs tell: shards that stopped short, shards absent.
std::string missing_hints(const std::vector<Input>& inputs) {
  std::string hints;
  std::set<std::size_t> seen;
  std::size_t count = 0;
  bool same_count = true;
  for (const Input& input : inputs) {
    std::string text = text_attribute(input.attributes, "shard");
    if (text.empty()) {
      same_count = false;
      continue;
    }
    ShardSpec shard;
    try {
      shard = parse_shard(text);
    } catch (const InputError&) {
      same_count = false;
      continue;
    }
    if (count == 0) count = shard.count;
    same_count = same_count && shard.count == count;
    seen.insert(shard.index);
    const auto expected = integer_of(input.attributes, "shard_points", -1);
    if (expected >= 0 && static_cast<std::int64_t>(input.point_ids.size()) < expected) {
      hints += "\n  " + input.path + " (shard " + text + ") holds " +
               std::to_string(input.point_ids.size()) + " of its " + std::to_string(expected) +
               " points: finish it with the same `clustersim sweep ... --shard " + text +
               " --resume`";
    }
  }
  if (same_count && count > 0) {
    std::vector<std::int64_t> absent;
    for (std::size_t k = 0; k < count; ++k)
      if (!seen.count(k)) absent.push_back(static_cast<std::int64_t>(k));
    if (!absent.empty()) {
      hints += "\n  no input is shard " + format_id_ranges(absent) + " of " + std::to_string(count);
    }
  }
  return hints;
}

}  // namespace

std::string format_id_ranges(const std::vector<std::int64_t>& sorted_ids, std::size_t limit) {
  std::string text;
  std::size_t items = 0;
  for (std::size_t i = 0; i < sorted_ids.size();) {
    std::size_t j = i;
    while (j + 1 < sorted_ids.size() && sorted_ids[j + 1] == sorted_ids[j] + 1) ++j;
    if (items == limit) {
      text += ", ... (" + std::to_string(sorted_ids.size()) + " in all)";
      break;
    }
    text += (items ? ", " : "") + std::to_string(sorted_ids[i]);
    if (j > i) text += "-" + std::to_string(sorted_ids[j]);
    ++items;
    i = j + 1;
  }
  return text;
}

MergeReport merge_result_files(const MergeOptions& options) {
  if (options.inputs.empty()) throw InputError(options.out, 0, "", "no input files to merge");
  for (const std::string& input : options.inputs) {
    if (same_file(input, options.out))
      throw InputError(options.out, 0, "", "is also an input: write the merged file elsewhere");
  }
  auto parent = fs::path(options.out).parent_path();
  if (!parent.empty() && !fs::is_directory(parent))
    throw InputError(options.out, 0, "",
                     "the output folder " + parent.string() + " does not exist");
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(options.inputs[i], options.inputs[j]))
        throw InputError(options.inputs[i], 0, "", "is given twice");
    }
  }
  // One writer per result file (output_lock.h): a sweep or another merge writing OUT now is
  // refused with OutputBusyError, before OUT is even looked at.
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char start_time[32];
  std::strftime(start_time, sizeof start_time, "%Y-%m-%dT%H:%M:%SZ", &utc);
  OutputLock lock(options.out,
                  describe_this_process(start_time, "clustersim merge " + options.out));
  if (fs::exists(options.out) && !options.overwrite)
    throw InputError(options.out, 0, "", "already exists: pass --overwrite to replace it");

  MergeReport report;
  std::vector<Input> inputs;
  for (const std::string& path : options.inputs) {
    if (!fs::exists(path)) {
      // A shard stopped before its end (time limit, killed) has only its journal so far.
      if (fs::exists(path + ".journal")) {
        throw InputError(path, 0, "",
                         "not written yet: its sweep was interrupted or is still running (" + path +
                             ".journal exists); finish it with the same `clustersim sweep "
                             "... --resume`, then merge");
      }
      throw InputError(path, 0, "", "no such file");
    }
    Input input;
    input.path = path;
    ResultFileSummary summary = read_result_file_summary(path);  // InputError if not ours
    input.point_ids = std::move(summary.point_ids);
    input.status = std::move(summary.status);
    input.attributes = read_root_attributes(path);
    if (summary.schema_version != kResultSchemaVersion) {
      throw InputError(path, 0, "",
                       "has result schema version " + std::to_string(summary.schema_version) +
                           "; this clustersim merges version " +
                           std::to_string(kResultSchemaVersion) +
                           " (merge with the clustersim that wrote the files)");
    }
    if (!inputs.empty() &&
        summary.grid_sha256 != text_attribute(inputs[0].attributes, "grid_sha256")) {
      throw InputError(path, 0, "",
                       "is from another grid than " + inputs[0].path + " (grid_sha256 " +
                           summary.grid_sha256.substr(0, 12) + "... vs " +
                           text_attribute(inputs[0].attributes, "grid_sha256").substr(0, 12) +
                           "...): only shards of one grid can be merged");
    }
    if (fs::exists(path + ".journal")) {
      report.warnings.push_back(path +
                                ".journal exists: that sweep was interrupted or is still "
                                "running; finish it with --resume before merging");
    }
    inputs.push_back(std::move(input));
  }

  const std::int64_t total = integer_of(inputs[0].attributes, "points_total", -1);
  if (total < 0) throw InputError(inputs[0].path, 0, "", "has no points_total attribute");
  report.points_total = static_cast<std::size_t>(total);

  // Every point from exactly one input.
  std::vector<int> owner(report.points_total, -1);
  std::vector<std::int64_t> duplicates;
  std::string first_duplicate;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (std::int64_t id : inputs[i].point_ids) {
      if (id < 0 || id >= total) {
        throw InputError(inputs[i].path, 0, "",
                         "holds point " + std::to_string(id) + ", outside the grid's 0.." +
                             std::to_string(total - 1));
      }
      if (owner[id] >= 0) {
        if (duplicates.empty()) {
          first_duplicate = "point " + std::to_string(id) + " is in both " +
                            inputs[owner[id]].path + " and " + inputs[i].path;
        }
        duplicates.push_back(id);
      } else {
        owner[id] = static_cast<int>(i);
      }
    }
  }
  if (!duplicates.empty()) {
    std::sort(duplicates.begin(), duplicates.end());
    duplicates.erase(std::unique(duplicates.begin(), duplicates.end()), duplicates.end());
    throw InputError(options.out, 0, "",
                     "not written: " + std::to_string(duplicates.size()) +
                         " points are in more than one input (" + format_id_ranges(duplicates) +
                         "; " + first_duplicate +
                         "): merge each shard's file once, and shards of one --shard K/N split");
  }
  for (std::int64_t id = 0; id < total; ++id)
    if (owner[id] < 0) report.missing.push_back(id);
  if (!report.missing.empty() && !options.allow_missing) {
    throw InputError(options.out, 0, "",
                     "not written: " + std::to_string(report.missing.size()) + " of " +
                         std::to_string(total) + " points are in no input (" +
                         format_id_ranges(report.missing) + ")" + missing_hints(inputs) +
                         "\n  (--allow-missing writes the points there are, marked incomplete)");
  }
  report.points_merged = static_cast<std::size_t>(total) - report.missing.size();
  for (const Input& input : inputs)
    report.status.insert(report.status.end(), input.status.begin(), input.status.end());

  Attributes attributes = combine_attributes(inputs, report.points_merged);
  write_merged_result_file(options.out, options.inputs, attributes);
  return report;
}

int run_merge_command(int argc, char** argv) {
  MergeOptions options;
  bool quiet = false;
  CLI::App app{
      "Merges the result files of one grid's shards (clustersim sweep --shard K/N) into one file\n"
      "equal in content to an unsharded run's. Refuses files of different grids or schema\n"
      "versions, and reports missing or duplicate points; OUT is written whole or not at all.",
      "clustersim merge"};
  app.add_option("out", options.out, "merged HDF5 result file to write")->required();
  app.add_option("inputs", options.inputs, "result files of the shards (any order)")->required();
  app.add_flag("--overwrite", options.overwrite, "replace OUT if it exists");
  app.add_flag("--allow-missing", options.allow_missing,
               "write OUT even if some points are in no input (it is then marked complete = 0)");
  app.add_flag("--quiet,-q", quiet, "print nothing but errors");

  try {
    app.parse(argc - 1, argv + 1);  // argv[1] ("merge") stands where CLI11 expects the program
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? kExitOk : kExitBadInput;
  }
  try {
    MergeReport report = merge_result_files(options);
    for (const std::string& warning : report.warnings)
      std::cerr << "clustersim merge: warning: " << warning << "\n";
    if (!report.missing.empty()) {
      std::cerr << "clustersim merge: warning: " << report.missing.size()
                << " points are in no input (" << format_id_ranges(report.missing)
                << "); the merged file is marked incomplete\n";
    }
    if (!quiet) {
      std::cout << "merged " << options.inputs.size() << " files into " << options.out << " ("
                << report.points_merged << " of " << report.points_total << " points)\n";
    }
    // Told even under --quiet: the exit status alone does not say which points failed.
    const std::string failures = summarize_failures(report.status);
    if (failures.empty()) return kExitOk;
    std::cerr << "clustersim merge: " << failures << "\n";
    return kExitPointsFailed;
  } catch (const InputError& error) {
    std::cerr << "clustersim merge: error: " << error.what() << "\n";
    return kExitBadInput;
  } catch (const OutputBusyError& error) {
    std::cerr << "clustersim merge: error: " << error.what() << "\n";
    return kExitBusy;
  } catch (const std::exception& error) {
    std::cerr << "clustersim merge: error: " << error.what() << "\n";
    // HDF5's clean-up at exit would crash on a file it could not close (a full disk).
    if (hdf5::file_left_open()) hdf5::leave_without_hdf5_cleanup(kExitFailure);
    return kExitFailure;
  }
}

}  // namespace clustersim::sweep
