// [supply]'s traces: grid carbon intensity (Electricity Maps' hourly CSV) and irradiance (an
// NSRDB PSM4 CSV), each into a StepSeries on one clock: trace time 0 is 00:00 UTC of the first
// row's date, so both 2023 traces start at 1 January 2023, 00:00 UTC (NSRDB's rows are local
// time: its first row, 00:00 at UTC-7, is trace time 7 h).
#include "io/internal/energy_traces.h"

#include <array>
#include <charconv>
#include <sstream>
#include <unordered_set>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "io/internal/headed_csv.h"
#include "workload/internal/text_parsing.h"

namespace clustersim::io_internal {

namespace {

using workload_internal::trim;

// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

int number(std::string_view text, std::size_t at, std::size_t width, bool& ok) {
  int value = 0;
  if (at + width > text.size()) {
    ok = false;
    return 0;
  }
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + width, value);
  ok = ok && error == std::errc() && end == text.data() + at + width;
  return value;
}

// "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS[+-HH:MM]": seconds since 1970 UTC, and the
// UTC second of that (local) date's midnight.
struct Stamp {
  double utc_s = 0.0;
  double local_midnight_utc_s = 0.0;
};
std::optional<Stamp> parse_stamp(std::string_view text) {
  bool ok = text.size() >= 19 && text[4] == '-' && text[7] == '-' &&
            (text[10] == ' ' || text[10] == 'T') && text[13] == ':' && text[16] == ':';
  const int year = number(text, 0, 4, ok), month = number(text, 5, 2, ok),
            day = number(text, 8, 2, ok), hour = number(text, 11, 2, ok),
            minute = number(text, 14, 2, ok), second = number(text, 17, 2, ok);
  double offset_s = 0.0;
  if (ok && text.size() > 19) {
    const char sign = text[19];
    ok = (sign == '+' || sign == '-') && text.size() == 25 && text[22] == ':';
    const int oh = number(text, 20, 2, ok), om = number(text, 23, 2, ok);
    offset_s = (sign == '-' ? -1.0 : 1.0) * (oh * 3600.0 + om * 60.0);
  }
  if (!ok || month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  const double midnight_local =
      static_cast<double>(
          days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day))) *
      86400.0;
  Stamp stamp;
  stamp.local_midnight_utc_s = midnight_local - offset_s;
  stamp.utc_s = midnight_local + hour * 3600.0 + minute * 60.0 + second - offset_s;
  return stamp;
}

// Reads `value_column` of a CSV with a timestamp in `time_column` (matched by prefix) at a
// constant step.
StepSeries read_series(const std::string& path, std::string_view what, std::string_view time_prefix,
                       std::string_view value_column, double min_value) {
  std::istringstream in(read_input_file(path, what));
  StepSeries series;
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  int time_at = -1, value_at = -1;
  double first_s = 0.0, previous_s = 0.0;
  const auto fail = [&](std::string_view field, const std::string& message) {
    throw InputError(path, line_number, std::string(field), message);
  };
  while (workload_internal::read_line(in, line)) {
    ++line_number;
    if (trim(line).empty()) continue;
    if (auto error = workload_internal::split_csv(line, ',', fields)) fail("", *error);
    if (time_at < 0) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = trim(fields[i]);
        if (time_at < 0 && name.substr(0, time_prefix.size()) == time_prefix)
          time_at = static_cast<int>(i);
        if (name == value_column) value_at = static_cast<int>(i);
      }
      if (time_at < 0) fail(time_prefix, "required column missing");
      if (value_at < 0) fail(value_column, "required column missing");
      continue;
    }
    if (fields.size() <= static_cast<std::size_t>(std::max(time_at, value_at)))
      fail("", "row has too few fields");
    const auto stamp = parse_stamp(trim(fields[time_at]));
    if (!stamp) fail(fields[time_at], "expected a timestamp YYYY-MM-DD HH:MM:SS");
    const auto value = workload_internal::parse_finite_double(fields[value_at]);
    if (!value || *value < min_value)
      fail(value_column, "expected a number >= 0, got '" + excerpt(fields[value_at]) + "'");
    if (series.values.empty()) {
      first_s = stamp->utc_s;
      series.origin_s = stamp->utc_s - stamp->local_midnight_utc_s;
    } else {
      const double step = stamp->utc_s - previous_s;
      if (series.values.size() == 1) {
        if (!(step > 0.0)) fail(fields[time_at], "timestamps must increase");
        series.step_s = step;
      } else if (step != series.step_s) {
        fail(fields[time_at], "rows must be evenly spaced (" +
                                  std::to_string(static_cast<long long>(series.step_s)) +
                                  " s apart, as the first two)");
      }
    }
    previous_s = stamp->utc_s;
    series.values.push_back(*value);
  }
  (void)first_s;
  if (series.values.size() < 2) throw InputError(path, 0, "", "expected at least two rows");
  return series;
}

}  // namespace

std::vector<JobValue> read_job_values(const std::string& path) {
  std::istringstream in(read_input_file(path, "job values table"));
  enum Column { kJobId, kValue, kDeadline, kDeferrable };
  constexpr std::array<CsvColumn, 4> kColumns = {
      {{"job_id"}, {"value"}, {"deadline_s", false}, {"deferrable", false}}};
  std::vector<JobValue> values;
  std::unordered_set<std::string> seen;
  HeadedCsv csv(in, path, kColumns, "job_id,value[,deadline_s][,deferrable]");
  while (csv.next_row()) {
    JobValue row;
    row.job_id = std::string(trim(csv[kJobId]));
    if (!seen.insert(row.job_id).second)
      csv.fail("job_id", "job '" + excerpt(row.job_id) + "' twice");
    const auto number = [&](Column column) {
      const auto v = workload_internal::parse_finite_double(csv[column]);
      if (!v || *v < 0.0)
        csv.fail(kColumns[column].name,
                 "expected a number >= 0, got '" + excerpt(csv[column]) + "'");
      return *v;
    };
    row.value = number(kValue);
    if (csv.has(kDeadline)) row.deadline_s = number(kDeadline);
    if (csv.has(kDeferrable)) {
      const std::string_view text = trim(csv[kDeferrable]);
      if (text == "true" || text == "1") {
        row.deferrable = true;
      } else if (text == "false" || text == "0") {
        row.deferrable = false;
      } else {
        csv.fail("deferrable", "expected true or false, got '" + excerpt(csv[kDeferrable]) + "'");
      }
    }
    values.push_back(std::move(row));
  }
  return values;
}

StepSeries read_carbon_trace(const std::string& path, const std::string& column) {
  return read_series(path, "carbon intensity trace", "Datetime",
                     column == "lca" ? "Carbon Intensity gCO₂eq/kWh (LCA)"
                                     : "Carbon Intensity gCO₂eq/kWh (direct)",
                     0.0);
}

StepSeries read_irradiance_trace(const std::string& path) {
  return read_series(path, "irradiance trace", "timestamp", "ghi_w_m2", 0.0);
}

}  // namespace clustersim::io_internal
