// This session and the provenance the result file records of it (sweep_session.h).
#include "sweep_session.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "build_identity.h"
#include "clustersim/sweep/communicator.h"
#include "clustersim/sweep/output_lock.h"
#include "clustersim/sweep/point_runner.h"

namespace clustersim::sweep::sweep_internal {

std::string now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

namespace {

std::string hostname() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

void describe_where_this_runs(SessionInfo& session, const std::string& grid_path) {
  session.hostname = hostname();
  session.slurm_job_id = slurm_job_as_shown();
  std::error_code error;
  session.working_directory = std::filesystem::current_path(error).string();
  session.grid_path_absolute =
      grid_path.empty() ? ""
                        : std::filesystem::absolute(grid_path, error).lexically_normal().string();
}

Provenance make_provenance(const Plan& plan, const SessionInfo& session) {
  Provenance provenance;
  for (const auto& [name, value] : this_build().fields()) provenance.text[name] = value;
  // Every session's build, so a file resumed with --resume-any-build says which build computed
  // which points (its /points column `session` indexes this list, from 1).
  nlohmann::json builds = nlohmann::json::array();
  // Each entry also says where that session ran (host, Slurm job, working directory; "" for a
  // session of a clustersim that did not record them).
  auto add_build = [&](const SessionBuild& session_build) {
    nlohmann::json entry{{"session", builds.size() + 1}, {"start_time", session_build.start_time}};
    for (const auto& [name, value] : session_build.build.fields()) entry[name] = value;
    entry["hostname"] = session_build.hostname;
    entry["slurm_job_id"] = session_build.slurm_job_id;
    entry["working_directory"] = session_build.working_directory;
    builds.push_back(std::move(entry));
  };
  for (const SessionBuild& earlier : plan.earlier_sessions) add_build(earlier);
  add_build({session.start_time, this_build(), session.hostname, session.slurm_job_id,
             session.working_directory});
  provenance.text["session_builds"] = builds.dump();
  provenance.text["start_time"] =
      plan.first_start_time.empty() ? session.start_time : plan.first_start_time;
  provenance.text["session_start_time"] = session.start_time;
  provenance.text["end_time"] = now_iso8601();
  provenance.text["mpi_version"] = MpiSession::library_version();
  provenance.text["hdf5_version"] = hdf5_version();
  provenance.text["tbb_version"] = tbb_version();
  provenance.text["hostname"] = session.hostname;
  provenance.text["command_line"] = session.command_line;
  provenance.text["slurm_job_id"] = session.slurm_job_id;
  // grid_path is the path as given (often relative); these say where it was.
  provenance.text["grid_path_absolute"] = session.grid_path_absolute;
  provenance.text["working_directory"] = session.working_directory;
  std::string threads;
  int total = 0;
  for (std::size_t i = 0; i < session.threads_per_rank.size(); ++i) {
    if (i) threads += ",";
    threads += std::to_string(session.threads_per_rank[i]);
    total += session.threads_per_rank[i];
  }
  provenance.text["threads_per_rank"] = threads;
  provenance.integers["ranks"] = session.ranks;
  provenance.integers["threads"] = total;
  provenance.integers["sessions"] = plan.sessions;
  provenance.text["shard"] = plan.shard.text();
  provenance.integers["shard_points"] = static_cast<std::int64_t>(plan.scope_points);
  provenance.integers["whole_run"] = plan.whole_run ? 1 : 0;
  provenance.text["warnings"] = warnings_json(plan.check.warnings);
  return provenance;
}

}  // namespace clustersim::sweep::sweep_internal
