// Per-job rows and time-series samples are written by the rank that computed them, not sent to
// rank 0: each rank appends them, on the thread that ran the simulation, to its own row spool
// (one file per rank and session in the sweep's rows folder, F.h5.rows/) and sends rank 0 only a
// reference (RowsRef: file, offset, size, checksum). Rank 0 thus handles the small metrics and
// the journal whatever the size of the per-point outputs; the one HDF5 result file is built from
// the spools at the end (result_store.h), and resume finds the rows of every journaled point in
// them. A record is whole before its reference leaves the rank, so a kill -9 at any moment leaves
// every referenced record readable; a record lost with a node (never synced) is detected by its
// size and checksum, and its point reruns.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/sweep/point_result.h"

namespace clustersim::sweep {

// F.h5.rows: the folder of the row spools of result file F.h5.
std::string rows_folder_for(const std::string& result_path);
// "s<session>.r<rank>": the spool of one rank in one session (unique within a sweep).
std::string spool_file_name(std::int64_t session, int rank);

// A spool cannot be written (disk full, quota, permissions): the sweep stops with an I/O
// failure (exit status 1), never a failed point, so that --resume reruns what was lost.
class SpoolWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// 64-bit checksum of a record (fast: 8 bytes at a time; it tells torn or lost records only).
std::uint64_t spool_checksum(std::string_view bytes);

class RowSpool {
 public:
  // Opens (creating) FOLDER/NAME for appending; the folder must exist. Throws SpoolWriteError.
  RowSpool(const std::string& folder, const std::string& name);
  ~RowSpool();
  RowSpool(const RowSpool&) = delete;
  RowSpool& operator=(const RowSpool&) = delete;

  // Appends `payload` (encode_result of the point's rows) as one record and returns where it
  // is. Thread-safe; the record is handed to the kernel before this returns. Throws
  // SpoolWriteError (and every later call does too) when the file cannot be written.
  RowsRef append(std::string_view payload, std::uint64_t jobs, std::uint64_t samples);
  // Forces the records to the device (node crashes); called at the end of a session.
  void sync();
  const std::string& name() const { return name_; }
  std::uint64_t bytes_written() const;

 private:
  std::string path_;
  std::string name_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::uint64_t size_ = 0;
  std::string failed_;  // the first write error; later appends repeat it
};

// Reads the rows a reference names (a PointResult holding point_id, jobs and samples). Throws
// std::runtime_error naming the file when the record is missing, torn or corrupt.
PointResult read_spooled_rows(const std::string& folder, const RowsRef& ref);

// For resume: the record a reference names is in its spool, whole (size and checksum). The
// points whose rows fail it (lost with a node that crashed before they reached its disk) rerun.
bool spooled_rows_intact(const std::string& folder, const RowsRef& ref);

}  // namespace clustersim::sweep
