// Text helpers shared by the trace readers: line reading, CSV splitting, strict numbers, dates.
// Everything here is strict on purpose: a reader must never guess what a malformed field meant.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::workload_internal {

// Reads one line without its terminator ("\n" or "\r\n"). Returns false at the end of input.
bool read_line(std::istream& in, std::string& line);

// Removes spaces and tabs at both ends.
std::string_view trim(std::string_view text);

// True for lines a CSV reader ignores: empty, only whitespace.
bool is_blank(std::string_view line);

// Splits one CSV record (RFC 4180 style, on one line). A field may be quoted with '"' and then
// hold the delimiter; a doubled quote inside is a literal quote. Unquoted fields are trimmed.
// Returns an error message for malformed quoting, std::nullopt on success.
std::optional<std::string> split_csv(std::string_view line, char delimiter,
                                     std::vector<std::string>& fields);

// Splits on `delimiter` with no quoting at all (Gavel's tab-separated traces).
void split_plain(std::string_view line, char delimiter, std::vector<std::string>& fields);

// The whole (trimmed) text must be a finite number: no trailing garbage, no NaN or infinity.
std::optional<double> parse_finite_double(std::string_view text);
// The whole (trimmed) text must be a base-10 integer that fits in int64.
std::optional<std::int64_t> parse_int64(std::string_view text);

// "YYYY-MM-DD HH:MM:SS" (exactly) as seconds since 1970-01-01 00:00:00 UTC, with every component
// range-checked (month 1-12, day within its month, leap years, hour 0-23, minute and second 0-59),
// optionally followed by a UTC offset "+HH:MM" or "-HH:MM" (hours 0-14), which is subtracted.
std::optional<std::int64_t> parse_datetime_utc(std::string_view text);

}  // namespace clustersim::workload_internal
