#include "workload/internal/row_collector.h"

#include <limits>
#include <memory>
#include <utility>

#include "workload/internal/text_parsing.h"

namespace clustersim::workload_internal {

namespace {
// Keeps error messages readable when a fuzzer or a broken file feeds huge fields.
std::string quoted_excerpt(std::string_view text) {
  std::string out(1, '\'');  // not "'" + excerpt(...): GCC 12 warns falsely (-Wrestrict) on that
  out += excerpt(text);
  out += '\'';
  return out;
}
}  // namespace

void RowCollector::add_job(JobSpec job, const std::string& id_field) {
  if (!ids_.insert(job.id).second) {
    fail(job.source_line, id_field, "duplicate job id " + quoted_excerpt(job.id));
  }
  workload_.jobs.push_back(std::move(job));
}

Workload RowCollector::finish() {
  if (workload_.jobs.empty()) {
    std::string message = "no jobs";
    if (workload_.skipped_rows > 0 || workload_.filtered_rows > 0) {
      message += " (" + std::to_string(workload_.skipped_rows) + " rows skipped as invalid, " +
                 std::to_string(workload_.filtered_rows) + " filtered)";
    }
    if (!workload_.skip_reasons.empty()) message += "; first skip: " + workload_.skip_reasons[0];
    throw InputError(source_name_, 0, "", message);
  }
  if (!llm_.empty()) workload_.llm = std::make_shared<const LlmJobTable>(std::move(llm_));
  return std::move(workload_);
}

void RowCollector::fail(std::size_t line, std::string field, std::string message) const {
  // Field names can come from the file (a CSV header cell): keep them short too.
  throw InputError(source_name_, line, excerpt(field, 60), std::move(message));
}

void RowCollector::record_skip(const InputError& error) {
  ++workload_.skipped_rows;
  if (workload_.skip_reasons.size() < kMaxSkipReasons)
    workload_.skip_reasons.push_back(error.what());
}

std::string FieldReader::required_text(std::string_view field, std::string_view text) const {
  text = trim(text);
  if (text.empty()) fail(field, "missing value");
  return std::string(text);
}

double FieldReader::non_negative(std::string_view field, std::string_view text) const {
  if (trim(text).empty()) fail(field, "missing value");
  const auto value = parse_finite_double(text);
  if (!value) fail(field, "not a finite number: " + quoted_excerpt(text));
  if (*value < 0.0) fail(field, "negative value " + quoted_excerpt(text));
  return *value;
}

double FieldReader::positive(std::string_view field, std::string_view text) const {
  const double value = non_negative(field, text);
  if (value <= 0.0) fail(field, "must be > 0, got " + quoted_excerpt(text));
  return value;
}

std::int64_t FieldReader::integer(std::string_view field, std::string_view text, std::int64_t min,
                                  std::int64_t max) const {
  if (trim(text).empty()) fail(field, "missing value");
  const auto value = parse_int64(text);
  if (!value) fail(field, "not an integer: " + quoted_excerpt(text));
  if (*value < min || *value > max) {
    fail(field, "out of range [" + std::to_string(min) + ", " + std::to_string(max) +
                    "]: " + quoted_excerpt(text));
  }
  return *value;
}

double FieldReader::datetime(std::string_view field, std::string_view text) const {
  if (trim(text).empty()) fail(field, "missing value");
  const auto seconds = parse_datetime_utc(text);
  if (!seconds) fail(field, "not a valid 'YYYY-MM-DD HH:MM:SS[+HH:MM]' time: " + quoted_excerpt(text));
  if (*seconds < 0) fail(field, "time before 1970: " + quoted_excerpt(text));
  return static_cast<double>(*seconds);
}

std::size_t read_csv_header(std::istream& in, const RowCollector& rows, bool skip_comments,
                            std::string& line, std::size_t& line_number,
                            std::vector<std::string>& fields) {
  bool have_header = false;
  while (read_line(in, line)) {
    ++line_number;
    if (line_number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // UTF-8 BOM
    const std::string_view text = trim(line);
    if (text.empty() || (skip_comments && text.front() == '#')) continue;
    have_header = true;
    break;
  }
  if (in.bad()) rows.fail(0, "", "read error");
  if (!have_header) rows.fail(0, "", "no header row (empty file)");
  if (auto error = split_csv(line, ',', fields)) rows.fail(line_number, "", "header: " + *error);
  return line_number;
}

}  // namespace clustersim::workload_internal
