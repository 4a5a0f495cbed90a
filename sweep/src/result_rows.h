// Private to the sweep's sources: the result file's row tables, /jobs and /timeseries
// (result_rows.cc; the ranks' share of writing them is public, result_store.h).
#pragma once

#include <hdf5.h>

#include <string>
#include <vector>

#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/result_store.h"

namespace clustersim::sweep::hdf5 {

// Creates the row tables `options` asks for in `file` and, with `write_rows`, writes their rows
// (else they are left for write_row_tables_collectively or write_row_block).
void write_row_tables(hid_t file, const std::vector<PointResult>& results,
                      const ResultFileOptions& options, const std::string& rows_folder,
                      bool write_rows);

// The columns components add to /jobs (or /timeseries, with `samples`) in the file's order:
// those declared (declared_columns) in declaration order, then any other by name; each once.
std::vector<std::string> order_added_columns(std::vector<std::string> names, bool samples);
// The built-in columns of row table `group` ("jobs", "timeseries"; none for another group), in
// the order the store writes them, before the added ones.
std::vector<std::string> built_in_row_columns(const std::string& group);

}  // namespace clustersim::sweep::hdf5
