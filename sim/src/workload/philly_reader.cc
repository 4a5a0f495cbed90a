// Microsoft Philly job log (msr-fiddle/philly-traces, cluster_job_log): one JSON list of jobs
//
//   [{"status": "Pass", "vc": "6214e9", "jobid": "application_...", "user": "...",
//     "submitted_time": "2017-10-03 02:39:10",
//     "attempts": [{"start_time": "...", "end_time": "...",
//                   "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]}]}, ...]
//
// Times are "YYYY-MM-DD HH:MM:SS" (read as UTC, seconds since 1970) or null.
// Mapping:
// - id = jobid (a non-empty string, unique); vc, user as given (null or absent = empty);
// - submit_time = submitted_time;
// - num_gpus = GPUs of the first attempt (sum over its detail[].gpus lengths; 0 is invalid);
// - duration = sum over attempts of (end_time - start_time): the GPU time the job actually used,
//   retries included (the gaps between attempts are queueing, which the simulator decides);
//   a total of 0 s is invalid. Times must be in order: an attempt that starts before the job's
//   submitted_time, or ends before it starts, makes the job invalid.
// Filtered (valid, counted in filtered_rows): jobs with no attempts, a null submitted_time or an
// attempt with a null start_time or end_time (never ran, or never finished).
// status is not used. Error "lines": JSON elements have no line of their own in nlohmann's DOM, so
// the reader finds the line where each job object starts, and the field names the element path,
// e.g. "jobs[17].attempts[0].end_time". A JSON syntax error reports its line and byte offset.
#include <algorithm>
#include <climits>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "io/internal/json_error.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using nlohmann::json;
using workload_internal::FieldReader;
using workload_internal::RowCollector;

// The 1-based line on which each element of the top-level JSON array starts. `text` is known to be
// valid JSON (it parsed), so a small scanner that tracks strings and nesting depth is enough.
std::vector<std::size_t> top_level_element_lines(const std::string& text) {
  std::vector<std::size_t> lines;
  std::size_t line = 1;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool expect_element = false;
  for (const char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (depth == 1 && expect_element && c != ']') {
      lines.push_back(line);
      expect_element = false;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        ++depth;
        if (depth == 1) expect_element = true;
        break;
      case ']':
      case '}':
        --depth;
        break;
      case ',':
        if (depth == 1) expect_element = true;
        break;
      default:
        break;
    }
  }
  return lines;
}

// Optional string member: absent or null → empty; anything but a string is invalid.
std::string optional_string(const json& job, const char* key, const std::string& path,
                            const FieldReader& field) {
  const auto it = job.find(key);
  if (it == job.end() || it->is_null()) return {};
  if (!it->is_string()) field.fail(path + "." + key, "expected a string");
  return it->get<std::string>();
}

// A time member: null → nullopt (the caller filters the job); absent or malformed → invalid.
std::optional<double> optional_time(const json& object, const char* key, const std::string& path,
                                    const FieldReader& field) {
  const std::string name = path + "." + key;
  const auto it = object.find(key);
  if (it == object.end()) field.fail(name, "missing");
  if (it->is_null()) return std::nullopt;
  if (!it->is_string()) field.fail(name, "expected a 'YYYY-MM-DD HH:MM:SS' string or null");
  return field.datetime(name, it->get_ref<const std::string&>());
}

}  // namespace

Workload read_philly(std::istream& in, const std::string& source_name,
                     const ReaderOptions& options) {
  RowCollector rows(source_name, options);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) rows.fail(0, "", "read error");

  const std::vector<std::size_t> element_lines = top_level_element_lines(text);

  // Each job is checked as soon as the parser completes it and then dropped (the callback returns
  // false), so memory holds the text and one job, not a DOM of the whole log (Philly's full log
  // is over 100k jobs).
  bool top_level_is_array = false;
  std::size_t index = 0;
  const auto process_job = [&](const json& entry) {
    const std::size_t line = index < element_lines.size() ? element_lines[index] : 0;
    const std::string path = "jobs[" + std::to_string(index) + "]";
    ++index;
    rows.row([&] {
      const FieldReader field{rows, line};
      if (!entry.is_object()) field.fail(path, "expected a job object");

      JobSpec job;
      job.source_line = line;
      job.id = optional_string(entry, "jobid", path, field);
      if (job.id.empty()) field.fail(path + ".jobid", "missing job id");
      job.vc = optional_string(entry, "vc", path, field);
      job.user = optional_string(entry, "user", path, field);
      optional_string(entry, "status", path, field);  // type-checked only

      const std::optional<double> submitted = optional_time(entry, "submitted_time", path, field);
      const auto attempts = entry.find("attempts");
      if (attempts == entry.end()) field.fail(path + ".attempts", "missing");
      if (!attempts->is_array()) field.fail(path + ".attempts", "expected a list");

      bool ran = submitted.has_value() && !attempts->empty();
      double duration = 0.0;
      for (std::size_t a = 0; a < attempts->size(); ++a) {
        const std::string attempt_path = path + ".attempts[" + std::to_string(a) + "]";
        const json& attempt = (*attempts)[a];
        if (!attempt.is_object()) field.fail(attempt_path, "expected an attempt object");
        const auto start = optional_time(attempt, "start_time", attempt_path, field);
        const auto end = optional_time(attempt, "end_time", attempt_path, field);
        if (!start || !end) {
          ran = false;
          continue;
        }
        if (*end < *start) field.fail(attempt_path + ".end_time", "ends before it starts");
        if (submitted && *start < *submitted) {
          field.fail(attempt_path + ".start_time",
                     "starts " + std::to_string(static_cast<std::int64_t>(*submitted - *start)) +
                         " s before the job's submitted_time");
        }
        duration += *end - *start;

        if (a != 0) continue;
        const auto detail = attempt.find("detail");
        if (detail == attempt.end() || !detail->is_array()) {
          field.fail(attempt_path + ".detail", "expected a list of {ip, gpus}");
        }
        std::int64_t gpus = 0;
        for (std::size_t d = 0; d < detail->size(); ++d) {
          const std::string detail_path = attempt_path + ".detail[" + std::to_string(d) + "]";
          const json& host = (*detail)[d];
          if (!host.is_object()) field.fail(detail_path, "expected an {ip, gpus} object");
          const auto host_gpus = host.find("gpus");
          if (host_gpus == host.end() || !host_gpus->is_array()) {
            field.fail(detail_path + ".gpus", "expected a list of GPUs");
          }
          gpus += static_cast<std::int64_t>(host_gpus->size());
        }
        if (gpus < 1 || gpus > INT_MAX) {
          field.fail(attempt_path + ".detail", "the first attempt holds no GPUs");
        }
        job.num_gpus = static_cast<int>(gpus);
      }
      if (!ran) {  // never ran, or an attempt never finished: nothing to replay
        rows.add_filtered();
        return;
      }
      job.submit_time = *submitted;
      job.duration = duration;
      if (!(job.duration > 0.0)) field.fail(path + ".attempts", "the attempts total 0 s");
      rows.add_job(std::move(job), path + ".jobid");
    });
  };
  const json::parser_callback_t on_parse_event = [&](int depth, json::parse_event_t event,
                                                     json& parsed) {
    if (depth == 0 && event == json::parse_event_t::array_start) top_level_is_array = true;
    if (depth != 1 || !top_level_is_array) return true;
    if (event != json::parse_event_t::object_end && event != json::parse_event_t::array_end &&
        event != json::parse_event_t::value) {
      return true;
    }
    process_job(parsed);
    return false;  // drop the element from the document
  };

  json document;
  try {
    document = json::parse(text, on_parse_event);
  } catch (const json::exception& error) {
    // A syntax error, or a number too large for a double (which no skip can get past).
    throw io_internal::json_parse_error(source_name, text, error);
  }
  if (!document.is_array()) rows.fail(1, "", "expected a JSON list of jobs");
  return rows.finish();
}

}  // namespace clustersim
