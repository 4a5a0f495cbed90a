#include "clustersim/sweep/snapshot.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
#include "hdf5_file.h"
#include "sweep_session.h"

namespace clustersim::sweep {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kJournalSuffix = ".journal";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string default_snapshot_path(const std::string& results) {
  std::string stem = ends_with(results, ".h5") ? results.substr(0, results.size() - 3) : results;
  return stem + ".snapshot.h5";
}

bool same_file_path(const fs::path& a, const fs::path& b) {
  std::error_code ignored;
  return fs::weakly_canonical(a, ignored) == fs::weakly_canonical(b, ignored);
}

std::int64_t to_integer(const std::string& text, std::int64_t fallback) {
  try {
    return text.empty() ? fallback : std::stoll(text);
  } catch (const std::exception&) {
    return fallback;
  }
}

}  // namespace

SnapshotSummary write_snapshot(const SnapshotOptions& options) {
  const bool given_journal = ends_with(options.results, kJournalSuffix);
  const std::string results =
      given_journal ? options.results.substr(0, options.results.size() - kJournalSuffix.size())
                    : options.results;
  const std::string journal = journal_path_for(results);
  if (!fs::exists(journal)) {
    if (fs::exists(results)) {
      throw InputError(results, 0, "",
                       "has no journal (" + journal +
                           "): the sweep has finished, so read this file itself, or it never "
                           "started");
    }
    throw InputError(journal, 0, "", "no such sweep journal (is the sweep's --out right?)");
  }
  SnapshotSummary summary;
  summary.out = options.out.empty() ? default_snapshot_path(results) : options.out;
  if (same_file_path(summary.out, results) || same_file_path(summary.out, journal)) {
    throw InputError(summary.out, 0, "",
                     "the snapshot would replace the sweep's own files; choose another --out");
  }
  if (fs::exists(summary.out) && !options.overwrite) {
    throw InputError(summary.out, 0, "", "already exists: pass --overwrite to replace it");
  }
  const fs::path parent = fs::path(summary.out).parent_path();
  if (!parent.empty() && !fs::is_directory(parent)) {
    throw InputError(summary.out, 0, "",
                     "the output folder " + parent.string() + " does not exist");
  }

  JournalContents contents = read_journal(journal);
  if (contents.records.empty() || contents.records.front().type != RecordType::kHeader) {
    throw InputError(journal, 0, "", "the journal has no header");
  }
  auto header = parse_journal_fields(contents.records.front().payload);
  const std::int64_t schema = to_integer(header["schema_version"], 0);
  if (schema > kResultSchemaVersion) {
    throw InputError(journal, 0, "",
                     "written by a newer clustersim (result schema " + std::to_string(schema) +
                         "; this one writes " + std::to_string(kResultSchemaVersion) + ")");
  }
  if (!header.count("grid_text")) {
    throw InputError(journal, 0, "",
                     "this journal's header has no grid text (it was begun by a clustersim "
                     "without `snapshot`); finish the sweep with --resume to get its result file");
  }
  const std::string grid_path = header["grid_path"];
  std::string base_dir = fs::path(grid_path).parent_path().string();
  Grid grid = parse_grid(header["grid_text"], grid_path, base_dir.empty() ? "." : base_dir);
  if (grid.sha256 != header["grid_sha256"]) {
    throw InputError(journal, 0, "", "the grid text in the header does not match its sha256");
  }

  std::vector<PointResult> results_done;
  std::vector<bool> seen(grid.size(), false);
  std::int64_t sessions = 0;
  std::map<std::string, std::string> first_session, last_session;
  nlohmann::json session_builds = nlohmann::json::array();  // as make_provenance writes it
  for (const JournalRecord& record : contents.records) {
    if (record.type == RecordType::kSession) {
      last_session = parse_journal_fields(record.payload);
      if (sessions++ == 0) first_session = last_session;
      nlohmann::json entry{{"session", sessions}, {"start_time", last_session["start_time"]}};
      for (const char* key : {"software_version", "git_commit", "git_dirty", "binary_sha256",
                              "hostname", "slurm_job_id", "working_directory"})
        entry[key] = last_session.count(key) ? last_session[key] : std::string();
      session_builds.push_back(std::move(entry));
    } else if (record.type == RecordType::kPoint) {
      PointResult result;
      try {
        result = decode_result(record.payload);
      } catch (const std::exception& error) {
        throw InputError(journal, 0, "",
                         std::string("a point record cannot be decoded (") + error.what() + ")");
      }
      if (result.point_id >= grid.size()) {
        throw InputError(journal, 0, "",
                         "names point " + std::to_string(result.point_id) + ", not in the grid");
      }
      // The sweep keeps the first record of a point; so does its snapshot.
      if (seen[result.point_id]) continue;
      seen[result.point_id] = true;
      result.session = static_cast<std::int32_t>(sessions);
      results_done.push_back(std::move(result));
    }
  }
  std::sort(results_done.begin(), results_done.end(),
            [](const PointResult& a, const PointResult& b) { return a.point_id < b.point_id; });

  // Provenance: what the journal records. Attributes of the final file that only the finishing
  // session knows (end_time, hostname, thread counts, library versions) are absent.
  Provenance provenance;
  for (const char* key :
       {"software_version", "git_commit", "git_dirty", "binary_sha256", "shard", "warnings"}) {
    if (header.count(key)) provenance.text[key] = header[key];
  }
  provenance.text["session_builds"] = session_builds.dump();
  provenance.text["start_time"] = first_session["start_time"];
  provenance.text["session_start_time"] = last_session["start_time"];
  provenance.text["command_line"] = last_session["command_line"];
  provenance.text["hdf5_version"] = hdf5_version();
  provenance.text["snapshot_of"] = journal;
  provenance.text["snapshot_time"] = sweep_internal::now_iso8601();
  provenance.integers["sessions"] = sessions;
  provenance.integers["ranks"] = to_integer(last_session["ranks"], 0);
  provenance.integers["snapshot"] = 1;

  ResultFileOptions file_options;
  file_options.save_jobs = header["save_jobs"] == "1";
  file_options.save_timeseries = header["save_timeseries"] == "1";
  // Spooled rows (row_spool.h) are read from the sweep's rows folder; a running sweep only ever
  // appends to its spools, and a journaled reference names a record that is whole.
  write_result_file(summary.out, grid, results_done, file_options, provenance,
                    rows_folder_for(results));
  summary.points_done = results_done.size();
  summary.points_total = grid.size();
  return summary;
}

int run_snapshot_command(int argc, char** argv) {
  SnapshotOptions options;
  CLI::App app{
      "Writes the HDF5 result file of a sweep still running (or stopped) from its journal: the\n"
      "points done so far, in the schema of the final file (sweep/README.md).",
      "clustersim snapshot"};
  app.add_option("results", options.results,
                 "the sweep's result file (its --out) or its journal (RESULTS.h5.journal)")
      ->required();
  app.add_option("--out,-o", options.out, "snapshot file (default: RESULTS.snapshot.h5)");
  app.add_flag("--overwrite", options.overwrite, "replace an existing snapshot file");
  app.add_flag("--quiet,-q", options.quiet, "print nothing on success");
  // argv[0] is the program, argv[1] is "snapshot".
  try {
    app.parse(argc - 1, argv + 1);  // argv[1] ("snapshot") stands where CLI11 expects the program
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    SnapshotSummary summary = write_snapshot(options);
    if (!options.quiet) {
      std::cout << "wrote " << summary.out << " (" << summary.points_done << " of "
                << summary.points_total << " points)\n";
    }
    return 0;
  } catch (const InputError& error) {
    std::cerr << "clustersim snapshot: error: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "clustersim snapshot: error: " << error.what() << '\n';
    // HDF5's clean-up at exit would crash on a file it could not close (a full disk).
    if (hdf5::file_left_open()) hdf5::leave_without_hdf5_cleanup(1);
    return 1;
  }
}

}  // namespace clustersim::sweep
