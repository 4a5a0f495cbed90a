// The crash-safe record of a sweep in progress: an append-only file of checksummed records beside
// the result file (results.h5.journal). Rank 0 appends each result as it arrives; a SIGKILL can
// at worst tear the last record, which the reader detects and drops. HDF5 1.10 offers no such
// guarantee (a killed writer can leave the whole file unreadable), which is why the HDF5 file is
// built from the journal at the end (or on SIGTERM/SIGUSR1) rather than updated in place.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::sweep {

enum class RecordType : char {
  kHeader = 'H',   // first record: what the sweep is (grid hash, options), text key=value lines
  kSession = 'S',  // one per run or resume: start time, ranks, threads
  kPoint = 'P',    // one PointResult (encode_result bytes)
};

// A record's size is stored in 32 bits.
inline constexpr std::uint64_t kMaxJournalRecordBytes = 0xFFFFFFF0u;

struct JournalRecord {
  RecordType type;
  std::string payload;
};

struct JournalContents {
  std::vector<JournalRecord> records;
  std::uint64_t valid_bytes = 0;  // file prefix holding whole, checksummed records
  bool torn_tail = false;         // bytes after valid_bytes were dropped (an interrupted write)
};

// The journal of the result file `result_path` (the sweep's --out): result_path + ".journal".
std::string journal_path_for(const std::string& result_path);

// Header and session records are text, one `key=value` line per field. Values are escaped
// (backslash, newline, carriage return), so a multi-line value such as the grid text stays on one
// line; values without those characters read the same as before escaping existed.
std::string format_journal_fields(const std::map<std::string, std::string>& fields);
std::map<std::string, std::string> parse_journal_fields(std::string_view text);

// Reads every whole record; stops at the first torn or corrupt one. Throws InputError when the
// file cannot be read or is not a journal.
JournalContents read_journal(const std::string& path);

class JournalWriter {
 public:
  // Creates `path` (truncating; written as `path`.new and renamed onto `path` by the first
  // flush, so a journal never exists without its magic and first records), or with `append`
  // reopens it, cutting it to `valid_bytes` first.
  JournalWriter(const std::string& path, bool append, std::uint64_t valid_bytes = 0);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Buffers a record (std::length_error past kMaxJournalRecordBytes); flush() hands buffered
  // records to the kernel in one write to the end of the file (O_APPEND; they then survive the
  // death of this process), sync() also forces them to the device (node crashes). Only the
  // holder of the result file's OutputLock writes its journal.
  void add(RecordType type, std::string_view payload);
  void flush();
  void sync();
  std::size_t buffered() const { return buffer_.size(); }

 private:
  std::string path_;
  std::string unplaced_path_;  // a new journal's file until its first flush renames it to path_
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace clustersim::sweep
