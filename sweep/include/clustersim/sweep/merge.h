// `clustersim merge OUT.h5 IN.h5...`: joins the result files of one grid's shards (`clustersim
// sweep --shard K/N`, shard.h) into one file whose content equals an unsharded run's: every
// dataset bit for bit, every root attribute but the provenance ones listed in sweep/README.md
// ("Merging shards"), which are combined (earliest start, latest end, summed ranks...). Files of
// different grids or schema versions are refused, missing and duplicate points are reported, and
// OUT is written whole or not at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim::sweep {

struct MergeOptions {
  std::string out;
  std::vector<std::string> inputs;
  bool overwrite = false;      // replace an existing OUT
  bool allow_missing = false;  // write OUT even if points are missing (then complete = 0)
};

struct MergeReport {
  std::size_t points_total = 0;       // of the grid
  std::size_t points_merged = 0;      // rows of OUT's /points
  std::vector<std::int64_t> missing;  // point ids in no input (only with allow_missing)
  std::vector<std::string> warnings;  // e.g. an input whose journal remains
  // Every merged point's status ("ok" or why it failed), in input order: a merge of shards with
  // failed points exits kExitPointsFailed, as the one-job sweep of the grid would.
  std::vector<std::string> status;
};

// Checks the inputs and writes OUT, holding OUT's lock (output_lock.h: OutputBusyError while a
// sweep or another merge writes OUT). Throws InputError (nothing written) for: no input, OUT among
// the inputs, OUT existing without `overwrite`, an unreadable input, different schema versions
// or one this build does not know, different grids (grid_sha256), any other attribute that must
// agree but differs (save_jobs, software version, ...), a point in more than one input, and
// missing points unless `allow_missing`.
MergeReport merge_result_files(const MergeOptions& options);

// Entry point from `clustersim` main: argv[1] == "merge". Exit status (as the sweep's): 0 merged;
// 3 merged, but some points failed (their status column says why); 2 refused (nothing written:
// e.g. a shard incomplete or absent, named); 4 OUT is being written by another process; 1 I/O
// failure.
int run_merge_command(int argc, char** argv);

// "3, 5-9, 12" (at most `limit` items, then "... (N in all)").
std::string format_id_ranges(const std::vector<std::int64_t>& sorted_ids, std::size_t limit = 12);

}  // namespace clustersim::sweep
