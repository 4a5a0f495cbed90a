// Private to the sweep's sources: rank 0's plan before the first simulation (Plan): the grid, its
// check, and what an earlier session left (journal, spooled rows, a finished file) when resuming,
// or set aside when overwriting.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "build_identity.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/shard.h"
#include "clustersim/sweep/sweep_command.h"

namespace clustersim::sweep::sweep_internal {

// Key=value lines (journal header and session records).
std::string key_values(const std::map<std::string, std::string>& values);
std::map<std::string, std::string> parse_key_values(const std::string& text);

// Where --overwrite keeps an unfinished sweep's journal until the new sweep completes.
std::string replaced_journal_path_for(const std::string& out);

// A session of the sweep (one run or resume) and the build it ran.
struct SessionBuild {
  std::string start_time;
  BuildIdentity build;
  std::string hostname;  // where it ran ("" when an older clustersim did not record it)
  std::string slurm_job_id;
  std::string working_directory;
};

// Everything rank 0 decided before the first simulation; broadcast so all ranks agree.
struct Plan {
  Grid grid;
  GridCheck check;
  std::vector<std::string> done;  // encoded result per point_id; empty = still to run
  // Per point_id: the session (1 = the first) whose journal record holds `done`; 0 = not done.
  std::vector<std::int32_t> done_session;
  std::vector<SessionBuild> earlier_sessions;  // from the journal, in order (resume)
  std::size_t already_done = 0;
  std::string first_start_time;
  std::int64_t sessions = 1;
  bool nothing_to_do = false;
  // Started with --overwrite over an existing result file: that file stays until this sweep is
  // complete (no partial file replaces it on a signal).
  bool replaces_existing = false;
  std::vector<std::string> previous_status;  // nothing_to_do: the finished file's status column
  ShardSpec shard;                           // --shard: this run's share of the grid (shard.h)
  std::vector<bool> members;                 // per point_id: in this run's share
  std::size_t scope_points = 0;              // points in this run's share (grid.size() unsharded)
  std::size_t rows_lost = 0;  // journaled points whose spooled rows are gone: they rerun
  bool whole_run = false;     // --whole-run (provenance)
};

// The grid file's text, its name in messages and the folder its paths are relative to (the
// embedded default grid without --grid).
std::string read_grid_text(const SweepOptions& options);
std::string grid_source_name(const SweepOptions& options);
std::string grid_base_dir(const SweepOptions& options);

// What the grid's check found that the user should know (settings that cannot act, dropped
// trace rows, pseudo-replicates, runs too short before they start).
void print_warnings(const std::vector<std::string>& warnings);

// The journal's header record: what a resumed sweep must match.
std::map<std::string, std::string> journal_header(const Grid& grid, const SweepOptions& options,
                                                  bool replaces_existing = false,
                                                  const std::vector<std::string>& warnings = {});

// Reads what an earlier session left (journal, else a finished result file). Throws InputError
// when it belongs to another grid or other output options.
void load_previous_session(Plan& plan, const SweepOptions& options);

// With the lock held: an existing result (file or journal) is only touched with --resume or
// --overwrite.
void check_existing_output(const SweepOptions& options);

// With the lock held, before anything runs (--overwrite, or --resume of an unfinished sweep): this
// process will be able to replace and remove the files of the result it replaces or finishes
// (the result file, its journal and rows). Throws InputError naming the file, its owner and the
// folder otherwise (a sticky folder of another user's files, a folder it cannot write).
void check_can_replace(const SweepOptions& options);

// With the lock held, temporaries of the result file (PATH.tmp.HOST.PID, or PATH.tmp of older
// versions) belong to writers that died while writing it: remove them.
void remove_stale_temporaries(const std::string& out);

// --overwrite starts afresh without destroying anything yet (resume_plan.cc).
void set_aside_previous_results(Plan& plan, const SweepOptions& options);

// The journaled results (`plan.done`, indexed by point_id), decoded, in point_id order, each
// with the session that computed it.
std::vector<PointResult> decode_done(const Plan& plan);

}  // namespace clustersim::sweep::sweep_internal
