// `clustersim snapshot`: the result file of a sweep that is still running (or was killed), built
// from its journal by the same code that writes the final file. Readers such as the analysis
// package (analysis/) thus never decode the journal themselves: one decoder, one schema.
#pragma once

#include <cstddef>
#include <string>

namespace clustersim::sweep {

struct SnapshotOptions {
  std::string results;  // the sweep's --out (RESULTS.h5), or its journal (RESULTS.h5.journal)
  std::string out;      // empty: RESULTS.snapshot.h5 beside RESULTS.h5
  bool overwrite = false;
  bool quiet = false;
};

struct SnapshotSummary {
  std::string out;
  std::size_t points_done = 0;
  std::size_t points_total = 0;
};

// Writes options.out (whole, or not at all) from the journal as it is now; a torn last record
// (a write in flight) is left out. Throws InputError when there is no journal, it is not one, it
// predates snapshots (no grid text in its header), it comes from a newer schema, or the output
// would replace the sweep's own files or an existing file without `overwrite`.
SnapshotSummary write_snapshot(const SnapshotOptions& options);

// Entry point from `clustersim` main: argv[1] == "snapshot". Returns 0, 2 (bad input) or 1.
int run_snapshot_command(int argc, char** argv);

}  // namespace clustersim::sweep
