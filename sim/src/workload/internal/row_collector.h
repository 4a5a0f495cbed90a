// Shared bookkeeping of the trace readers: strict per-row validation with optional skipping,
// duplicate-id detection and the "no jobs" check at the end.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/job.h"
#include "clustersim/workload.h"
#include "workload/internal/text_parsing.h"

namespace clustersim::workload_internal {

// How many skip messages a Workload keeps for the report.
inline constexpr std::size_t kMaxSkipReasons = 20;

class RowCollector {
 public:
  RowCollector(const std::string& source_name, const ReaderOptions& options)
      : source_name_(source_name), skip_invalid_(options.skip_invalid) {}

  // Runs `parse_row` (which adds a job, filters the row, or throws InputError). With skip_invalid
  // the InputError is counted and its message kept; otherwise it propagates.
  template <typename ParseRow>
  void row(ParseRow&& parse_row) {
    try {
      parse_row();
    } catch (const InputError& error) {
      if (!skip_invalid_) throw;
      record_skip(error);
    }
  }

  // Adds a validated job; a repeated id is an InputError at the job's line naming `id_field`.
  void add_job(JobSpec job, const std::string& id_field);
  // The LLM columns of the job added last (Workload::llm).
  void add_llm_job(const LlmJob& job) {
    llm_.emplace_back(static_cast<std::uint32_t>(workload_.jobs.size() - 1), job);
  }
  // A valid row that is not a GPU job to replay (CPU-only pod, job that never ran, ...).
  void add_filtered() { ++workload_.filtered_rows; }

  // The workload; a trace that yields no job at all is an InputError (line 0, "no jobs").
  Workload finish();

  // Throws InputError(source, line, field, message).
  [[noreturn]] void fail(std::size_t line, std::string field, std::string message) const;

  const std::string& source_name() const { return source_name_; }

 private:
  void record_skip(const InputError& error);

  const std::string& source_name_;
  bool skip_invalid_;
  Workload workload_;
  std::unordered_set<std::string> ids_;
  LlmJobTable llm_;
};

// Validating field converters for a row at `line` of `rows`' source. Each throws InputError naming
// `field` when `text` is not what is asked for.
struct FieldReader {
  const RowCollector& rows;
  std::size_t line;

  [[noreturn]] void fail(std::string_view field, std::string message) const {
    rows.fail(line, std::string(field), std::move(message));
  }
  // Non-empty after trimming.
  std::string required_text(std::string_view field, std::string_view text) const;
  // Finite number >= 0.
  double non_negative(std::string_view field, std::string_view text) const;
  // Finite number > 0.
  double positive(std::string_view field, std::string_view text) const;
  // Integer in [min, max].
  std::int64_t integer(std::string_view field, std::string_view text, std::int64_t min,
                       std::int64_t max) const;
  // "YYYY-MM-DD HH:MM:SS" UTC (or with a "+HH:MM" offset), not before 1970, as seconds since the
  // epoch.
  double datetime(std::string_view field, std::string_view text) const;
};

// Reads a CSV trace's header row into `fields`: the first line that is not blank (nor, with
// `skip_comments`, a '#' comment), without a UTF-8 byte-order mark. Advances `line_number` and
// returns the header's line number. An empty file, a read error or bad quoting fails via `rows`.
std::size_t read_csv_header(std::istream& in, const RowCollector& rows, bool skip_comments,
                            std::string& line, std::size_t& line_number,
                            std::vector<std::string>& fields);

// Where each of `names` stands in `header` (-1 when absent); a name given twice fails via `rows`.
template <std::size_t N>
std::array<int, N> locate_columns(const std::vector<std::string>& header,
                                  const std::array<std::string_view, N>& names,
                                  const RowCollector& rows, std::size_t header_line) {
  std::array<int, N> index_of{};
  index_of.fill(-1);
  for (std::size_t i = 0; i < header.size(); ++i) {
    for (std::size_t c = 0; c < N; ++c) {
      if (header[i] != names[c]) continue;
      if (index_of[c] >= 0) rows.fail(header_line, header[i], "column appears twice in header");
      index_of[c] = static_cast<int>(i);
    }
  }
  return index_of;
}

// Reads the data rows that follow a CSV header: each non-blank line is split into `fields`
// (which must then hold `field_count` fields) and handed to `parse(field_reader)` under
// `rows.row`, so a bad row is an error or, with skip_invalid, a counted skip.
template <typename Parse>
void for_each_csv_row(std::istream& in, RowCollector& rows, std::size_t& line_number,
                      std::size_t field_count, std::vector<std::string>& fields, Parse&& parse) {
  std::string line;
  while (read_line(in, line)) {
    ++line_number;
    if (is_blank(line)) continue;
    rows.row([&] {
      const FieldReader field{rows, line_number};
      if (auto error = split_csv(line, ',', fields)) field.fail("", *error);
      if (fields.size() != field_count) {
        field.fail("", "row has " + std::to_string(fields.size()) + " fields, header has " +
                           std::to_string(field_count));
      }
      parse(field);
    });
  }
  if (in.bad()) rows.fail(0, "", "read error");
}

}  // namespace clustersim::workload_internal
