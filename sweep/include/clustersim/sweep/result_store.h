// The sweep's HDF5 result file (schema in sweep/README.md). Only a rank's main thread calls
// this (rank 0's; the others' for their share of the row tables): Debian's HDF5 is not
// thread-safe. The file is written whole to a temporary
// (PATH.tmp.HOST.PID, unique per process) and renamed into place, so readers never see a
// half-written file; the crash-safe record of a sweep in progress is the journal (journal.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_result.h"

namespace clustersim::sweep {

inline constexpr std::int64_t kResultSchemaVersion = 1;

struct ResultFileOptions {
  bool save_jobs = false;        // /jobs table
  bool save_timeseries = false;  // /timeseries table
};

// Root attributes besides the ones the store derives from the grid and the results.
struct Provenance {
  std::map<std::string, std::string> text;
  std::map<std::string, std::int64_t> integers;
};

// Writes the file. `results`: sorted by point_id, each point at most once. A result's jobs and
// samples are its own, or, where it holds a RowsRef, read from the row spool it names in
// `rows_folder` (row_spool.h); the /jobs and /timeseries tables are written chunk by chunk, so
// memory does not grow with their size.
void write_result_file(const std::string& path, const Grid& grid,
                       const std::vector<PointResult>& results, const ResultFileOptions& options,
                       const Provenance& provenance, const std::string& rows_folder = "");

// The final file of a sweep on a few ranks (below 16, issue 27): rank 0 writes the skeleton
// (write_result_skeleton, below), the other ranks compress the row tables' blocks (8 chunks
// each, counted over /jobs and then /timeseries; block i is worker i % workers') and write them
// into it in turn, block by block, each opening the file and closing it before the next (plain
// HDF5: no MPI-IO, and a file system's close-to-open consistency is all it needs). `results`
// (ids, row counts, spool references) must be those the skeleton was written from.
std::size_t count_row_blocks(const std::vector<PointResult>& results,
                             const ResultFileOptions& options);
void compress_row_blocks(
    const std::vector<PointResult>& results, const ResultFileOptions& options,
    const std::string& rows_folder, int worker, int workers,
    const std::function<void(std::size_t block, std::vector<std::string> chunks)>& deliver);
void write_row_block(const std::string& temporary, const std::vector<PointResult>& results,
                     const ResultFileOptions& options, std::size_t index,
                     const std::vector<std::string>& chunks);

// The final file of a sweep on several ranks, written by all of them (issue 27): rank 0 writes
// everything but the rows of /jobs and /timeseries to `temporary` (their datasets are created),
// then every rank of MPI_COMM_WORLD opens it through MPI-IO and writes an equal share of those
// rows (whole chunks, each deflated by its writer) with collective writes, reading them from the
// row spools in `rows_folder`. `results` must be the same, in the same order, on every rank;
// every result's rows must be spooled (RowsRef). Rank 0 renames `temporary` into place after.
void write_result_skeleton(const std::string& temporary, const Grid& grid,
                           const std::vector<PointResult>& results,
                           const ResultFileOptions& options, const Provenance& provenance);
void write_row_tables_collectively(const std::string& temporary,
                                   const std::vector<PointResult>& results,
                                   const ResultFileOptions& options,
                                   const std::string& rows_folder);

// The Markdown table of the columns components may add to /jobs and /timeseries (table,
// column, unit, component, meaning), from their declarations (ComponentDescriptor::job_columns,
// sample_columns), in the order the file appends them: sweep/README.md holds it between
// <!-- columns:begin --> and <!-- columns:end --> (a test checks that the two agree).
std::string added_columns_markdown();

struct ResultFileSummary {
  std::int64_t schema_version = 0;
  std::string grid_sha256;
  bool complete = false;
  std::vector<std::int64_t> point_ids;
  std::vector<std::string> status;  // per point: "ok" or why it failed
};

// Throws InputError if `path` cannot be opened or is not a sweep result file.
ResultFileSummary read_result_file_summary(const std::string& path);
// One /points (or other) 1-D numeric dataset as doubles, e.g. "points/jct_mean" (for tests/tools).
std::vector<double> read_numeric_column(const std::string& path, const std::string& dataset);
std::string read_text_attribute(const std::string& path, const std::string& name);

std::string hdf5_version();

// ---- Reading and merging whole result files (`clustersim merge`, merge.h) --------------------

// A root (or group, or dataset) attribute as the store writes them: int64, float64 or UTF-8 text.
using AttributeValue = std::variant<std::int64_t, double, std::string>;
using Attributes = std::map<std::string, AttributeValue>;

// Every root attribute of a result file. Throws InputError if the file cannot be opened or holds
// an attribute that is not a scalar integer, float or string.
Attributes read_root_attributes(const std::string& path);

// Writes `out` from `inputs`, generically (whatever groups and columns they hold): every group
// (/points, /jobs, /timeseries, ...) with the rows of all inputs ordered by their point_id column
// (stably: a point's rows keep their order, as in a file written by one sweep), each dataset in
// the inputs' order, type and filters, group and dataset attributes copied from the first input,
// and `attributes` as the root attributes. Throws InputError, naming the input at fault, when the
// inputs' groups, datasets or types differ, or a group has no point_id column. Written to a
// temporary beside `out` and renamed into place: on any failure nothing is left behind.
void write_merged_result_file(const std::string& out, const std::vector<std::string>& inputs,
                              const Attributes& attributes);

}  // namespace clustersim::sweep
