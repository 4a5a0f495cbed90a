// Rank 0's plan before the first simulation, and what an earlier session left (resume_plan.h).
#include "resume_plan.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "build_identity.h"
#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
#include "rank_messages.h"

namespace clustersim::sweep::sweep_internal {

namespace {

constexpr std::string_view kDefaultGridName = "sweep/examples/default/grid.toml (embedded)";

}  // namespace

std::string key_values(const std::map<std::string, std::string>& values) {
  return format_journal_fields(values);
}

std::map<std::string, std::string> parse_key_values(const std::string& text) {
  return parse_journal_fields(text);
}

// Where --overwrite keeps an unfinished sweep's journal until the new sweep completes.
std::string replaced_journal_path_for(const std::string& out) { return out + ".journal.old"; }

std::string read_grid_text(const SweepOptions& options) {
  if (options.grid_path.empty()) return std::string(default_grid_text());
  return read_input_file(options.grid_path, "grid file");
}

std::string grid_source_name(const SweepOptions& options) {
  return options.grid_path.empty() ? std::string(kDefaultGridName) : options.grid_path;
}

std::string grid_base_dir(const SweepOptions& options) {
  if (options.grid_path.empty()) return ".";
  std::string dir = std::filesystem::path(options.grid_path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// What the grid's check found that the user should know (settings that cannot act, dropped
// trace rows, pseudo-replicates, runs too short before they start).
void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings)
    std::fprintf(stderr, "sweep: warning: %s\n", warning.c_str());
}

std::map<std::string, std::string> journal_header(const Grid& grid, const SweepOptions& options,
                                                  bool replaces_existing,
                                                  const std::vector<std::string>& warnings) {
  std::map<std::string, std::string> header{
      {"schema_version", std::to_string(kResultSchemaVersion)},
      {"grid_sha256", grid.sha256},
      {"points", std::to_string(grid.size())},
      {"save_jobs", options.save_jobs ? "1" : "0"},
      {"save_timeseries", options.save_timeseries ? "1" : "0"},
      {"whole_run", options.whole_run ? "1" : "0"},
      {"replaces_existing", replaces_existing ? "1" : "0"},
      // What `clustersim snapshot` needs to write a result file from the journal alone.
      {"grid_text", grid.text},
      {"grid_path", grid.source_name}};
  header.merge(this_build().fields());
  if (!options.shard.empty()) header["shard"] = options.shard;
  header["warnings"] = warnings_json(warnings);
  return header;
}

namespace {

// A resumed sweep's points must all come from one build (issue 45): refuses, naming both builds
// and the ways on, when an earlier session that computed points ran another executable, unless
// --resume-any-build lets the builds mix (each point's session then says which one computed it).
void check_same_build(const Plan& plan, const SweepOptions& options, const std::string& journal) {
  std::vector<std::size_t> points_of_session(plan.earlier_sessions.size() + 1, 0);
  for (std::int32_t session : plan.done_session)
    if (session > 0) ++points_of_session[static_cast<std::size_t>(session)];
  std::string others;
  std::size_t other_points = 0;
  for (std::size_t s = 0; s < plan.earlier_sessions.size(); ++s) {
    const SessionBuild& earlier = plan.earlier_sessions[s];
    const std::size_t points = points_of_session[s + 1];
    if (points == 0 || earlier.build.same_as(this_build())) continue;
    other_points += points;
    if (!others.empty()) others += "; ";
    others += std::to_string(points) + " by session " + std::to_string(s + 1) + " (started " +
              earlier.start_time + ": " + earlier.build.describe() + ")";
  }
  if (other_points == 0) return;
  if (options.resume_any_build) {
    // Said even under --quiet: the file will hold two builds' points.
    std::fprintf(stderr,
                 "sweep: warning: resuming with another build (--resume-any-build): %zu points "
                 "were computed by other builds (%s); the /points column `session` and the "
                 "attribute `session_builds` say which build computed each point\n",
                 other_points, others.c_str());
    return;
  }
  const std::string grid = options.grid_path.empty() ? "" : " " + options.grid_path;
  throw InputError(
      options.out, 0, "",
      "this sweep was begun by another build of clustersim: " + std::to_string(other_points) +
          " of its points were computed by another build (" + others + "); this is " +
          this_build().describe() +
          ". Resuming would mix two builds' results in one file. To go on: finish it with the "
          "build that began it (its points are in " +
          journal + "), or start over with this build: clustersim sweep" + grid + " --out " +
          options.out + " --overwrite, or keep both builds' points: clustersim sweep" + grid +
          " --out " + options.out + " --resume --resume-any-build");
}

// Whether the rows of a journaled result are there: always for rows that travelled with it
// (journals of older builds); for spooled rows, their record must be whole in its spool.
bool rows_intact(const std::string& encoded, const std::string& out) {
  PointResult result = decode_result(encoded);
  return !result.rows || spooled_rows_intact(rows_folder_for(out), *result.rows);
}

}  // namespace

// Reads what an earlier session left (journal, else a finished result file). Throws InputError
// when it belongs to another grid or other output options.
void load_previous_session(Plan& plan, const SweepOptions& options) {
  const std::string journal = journal_path_for(options.out);
  const Grid& grid = plan.grid;
  if (std::filesystem::exists(journal)) {
    JournalContents contents = read_journal(journal);
    if (contents.records.empty() || contents.records.front().type != RecordType::kHeader) {
      throw InputError(journal, 0, "", "the journal has no header; remove it or use --overwrite");
    }
    auto header = parse_key_values(contents.records.front().payload);
    if (header["grid_sha256"] != grid.sha256) {
      throw InputError(grid.source_name, 0, "",
                       "the grid file changed since this sweep started (" + options.out +
                           " was begun with grid "
                           "sha256 " +
                           header["grid_sha256"].substr(0, 12) + "..., this grid is " +
                           grid.sha256.substr(0, 12) +
                           "...); resuming would mix two grids. Restore the grid file, "
                           "or write to a new --out, or pass --overwrite to start over");
    }
    for (const std::string flag : {"save_jobs", "save_timeseries", "whole_run"}) {
      std::string now = journal_header(grid, options)[flag];
      // Journals written before --whole-run existed saved every row with --save-jobs.
      const std::string was = header.count(flag) ? header[flag] : "0";
      if (was != now) {
        std::string name = flag;
        std::replace(name.begin(), name.end(), '_', '-');
        throw InputError(journal, 0, "",
                         "this sweep was started " + std::string(was == "1" ? "with" : "without") +
                             " --" + name + "; resume it with the same flags");
      }
    }
    plan.replaces_existing = header["replaces_existing"] == "1";
    check_same_shard(journal, header["shard"], options.shard);
    plan.sessions = 0;
    for (auto& record : contents.records) {
      if (record.type == RecordType::kSession) {
        auto fields = parse_key_values(record.payload);
        if (plan.sessions++ == 0) plan.first_start_time = fields["start_time"];
        // Session records of a clustersim before build ids name no build: the header names
        // the first session's (its commit), a later one's is unknown.
        if (!fields.count("git_commit") && plan.sessions == 1) {
          for (const char* key : {"software_version", "git_commit"})
            if (header.count(key)) fields[key] = header[key];
        }
        plan.earlier_sessions.push_back({fields["start_time"], BuildIdentity::from_fields(fields),
                                         fields["hostname"], fields["slurm_job_id"],
                                         fields["working_directory"]});
      } else if (record.type == RecordType::kPoint) {
        std::uint64_t id = peek_point_id(record.payload);
        if (id >= grid.size())
          throw InputError(journal, 0, "",
                           "names point " + std::to_string(id) + ", not in the grid");
        if (plan.done[id].empty() && !rows_intact(record.payload, options.out)) {
          ++plan.rows_lost;  // its rows did not survive (a node crash): it runs again
          continue;
        }
        if (plan.done[id].empty()) {
          plan.done[id] = std::move(record.payload);
          plan.done_session[id] = static_cast<std::int32_t>(plan.sessions);
          ++plan.already_done;
        }
      }
    }
    ++plan.sessions;
    check_same_build(plan, options, journal);
    return;
  }
  if (std::filesystem::exists(options.out)) {
    ResultFileSummary summary = read_result_file_summary(options.out);
    if (summary.grid_sha256 != grid.sha256) {
      throw InputError(
          grid.source_name, 0, "",
          "the grid file changed since " + options.out +
              " was written; resuming would mix two grids. Use a new --out, or --overwrite");
    }
    check_same_shard(options.out, read_shard_attribute(options.out), options.shard);
    // A finished shard's file holds all of its points (and only those: same grid, same shard).
    if (plan.shard.sharded() ? summary.point_ids.size() != plan.scope_points : !summary.complete) {
      throw InputError(
          options.out, 0, "",
          "is incomplete and its journal " + journal + " is missing; rerun with --overwrite");
    }
    plan.nothing_to_do = true;
    plan.already_done = summary.point_ids.size();
    plan.previous_status = std::move(summary.status);
  }
}

// With the lock held: an existing result (file or journal) is only touched with --resume or
// --overwrite.
void check_existing_output(const SweepOptions& options) {
  bool exists = false;
  for (const std::string& path :
       {options.out, journal_path_for(options.out), replaced_journal_path_for(options.out)}) {
    exists = exists || std::filesystem::exists(path);
  }
  if (exists && !options.resume && !options.overwrite) {
    throw InputError(options.out, 0, "",
                     "already exists (or its journal does): pass --resume to finish that sweep or "
                     "--overwrite to replace it");
  }
}

namespace {

std::string user_name(uid_t uid) {
  if (const passwd* entry = ::getpwuid(uid)) return entry->pw_name;
  return "uid " + std::to_string(uid);
}

}  // namespace

// Renaming onto a file or removing it needs write access to its folder and, in a sticky folder
// (mode 1777, as /scratch or /tmp), to own the file or the folder. A sweep that found out only
// when its last point was done would have run for nothing and left its journal and temporary
// behind (issue 45).
void check_can_replace(const SweepOptions& options) {
  const std::string journal = journal_path_for(options.out);
  if (!options.overwrite && !(options.resume && std::filesystem::exists(journal))) return;
  const std::filesystem::path target(options.out);
  const std::string folder = target.parent_path().empty() ? "." : target.parent_path().string();
  struct stat folder_info {};
  if (::stat(folder.c_str(), &folder_info) != 0) return;  // check_output_path said why
  const uid_t me = ::geteuid();
  const std::string replaced = replaced_journal_path_for(options.out);
  for (const std::string& path :
       {options.out, journal, replaced, rows_folder_for(options.out), rows_folder_for(replaced)}) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) continue;
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
      throw InputError(options.out, 0, "",
                       "cannot replace " + path + ": its folder " + folder +
                           " is not writable for user " + user_name(me) +
                           "; nothing ran. Write to another --out");
    }
    const bool sticky = (folder_info.st_mode & S_ISVTX) != 0;
    if (sticky && me != 0 && info.st_uid != me && folder_info.st_uid != me) {
      throw InputError(options.out, 0, "",
                       "cannot replace " + path + ": it belongs to user " + user_name(info.st_uid) +
                           " and its folder " + folder +
                           " is sticky (only a file's owner may replace or remove it there); "
                           "nothing ran. Ask " +
                           user_name(info.st_uid) + " to remove it, or write to another --out");
    }
    if (path == journal && !options.overwrite && ::access(path.c_str(), W_OK) != 0) {
      throw InputError(options.out, 0, "",
                       "cannot resume: user " + user_name(me) + " may not write its journal " +
                           path + " (owned by " + user_name(info.st_uid) +
                           "; a group folder needs umask 002 for the sweep that began it)");
    }
  }
}

// With the lock held, temporaries of the result file (PATH.tmp.HOST.PID, or PATH.tmp of older
// versions) belong to writers that died while writing it: remove them.
void remove_stale_temporaries(const std::string& out) {
  const std::filesystem::path target(out);
  const std::filesystem::path folder = target.parent_path().empty() ? "." : target.parent_path();
  const std::string prefix = target.filename().string() + ".tmp";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name == prefix || name.rfind(prefix + ".", 0) == 0) {
      std::filesystem::remove(entry.path(), error);
    }
  }
}

// --overwrite starts afresh without destroying anything yet: the old result file stays until the
// new one is renamed over it, an unfinished sweep's journal is kept as F.h5.journal.old until
// then (if one is kept already, from an earlier --overwrite that never finished, that older one
// stays and the newer, unfinished replacement is dropped).
void set_aside_previous_results(Plan& plan, const SweepOptions& options) {
  const std::string journal = journal_path_for(options.out);
  const std::string replaced = replaced_journal_path_for(options.out);
  // The spooled rows go with their journal.
  const std::string rows = rows_folder_for(options.out);
  const std::string replaced_rows = rows_folder_for(replaced);
  if (std::filesystem::exists(journal)) {
    if (std::filesystem::exists(replaced)) {
      std::filesystem::remove(journal);
      std::filesystem::remove_all(rows);
    } else {
      std::filesystem::remove_all(replaced_rows);
      std::filesystem::rename(journal, replaced);
      if (std::filesystem::exists(rows)) std::filesystem::rename(rows, replaced_rows);
    }
  }
  plan.replaces_existing = std::filesystem::exists(options.out);
}

std::vector<PointResult> decode_done(const Plan& plan) {
  std::vector<PointResult> results;
  for (std::size_t id = 0; id < plan.done.size(); ++id) {
    if (plan.done[id].empty()) continue;
    results.push_back(decode_result(plan.done[id]));
    results.back().session = plan.done_session[id];
  }
  return results;  // in point_id order, since `done` is indexed by point_id
}

}  // namespace clustersim::sweep::sweep_internal
