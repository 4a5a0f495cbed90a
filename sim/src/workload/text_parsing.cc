#include "workload/internal/text_parsing.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace clustersim::workload_internal {

bool read_line(std::istream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool is_blank(std::string_view line) {
  for (const char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

std::optional<std::string> split_csv(std::string_view line, char delimiter,
                                     std::vector<std::string>& fields) {
  fields.clear();
  std::size_t pos = 0;
  while (true) {
    // Skip leading blanks so that `a, "b,c"` works as well as `a,"b,c"`.
    std::size_t start = pos;
    while (start < line.size() && line[start] == ' ') ++start;
    if (start < line.size() && line[start] == '"') {
      std::string value;
      std::size_t i = start + 1;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            value.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        value.push_back(line[i++]);
      }
      if (!closed) return "unterminated quoted field (fields cannot span lines)";
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != delimiter) return "unexpected text after a closing quote";
      fields.push_back(std::move(value));
      if (i >= line.size()) return std::nullopt;
      pos = i + 1;
      continue;
    }
    const std::size_t end = line.find(delimiter, pos);
    const std::string_view raw =
        line.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (raw.find('"') != std::string_view::npos) {
      return "quote inside an unquoted field (quote the whole field and double inner quotes)";
    }
    fields.emplace_back(trim(raw));
    if (end == std::string_view::npos) return std::nullopt;
    pos = end + 1;
  }
}

void split_plain(std::string_view line, char delimiter, std::vector<std::string>& fields) {
  fields.clear();
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = line.find(delimiter, pos);
    if (end == std::string_view::npos) {
      fields.emplace_back(line.substr(pos));
      return;
    }
    fields.emplace_back(line.substr(pos, end - pos));
    pos = end + 1;
  }
}

std::optional<double> parse_finite_double(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  // from_chars rejects a leading '+'; accept it because spreadsheets write it.
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0.0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;  // "inf", "nan"
  return value;
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Reads exactly `width` ASCII digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::optional<std::int64_t> parse_datetime_utc(std::string_view text) {
  text = trim(text);
  // An optional UTC offset "+HH:MM" or "-HH:MM" (AcmeTrace writes "+08:00"): local = UTC + offset.
  std::int64_t offset_s = 0;
  if (text.size() == 25) {
    const char sign = text[19];
    const auto offset_h = digits(text, 20, 2);
    const auto offset_m = digits(text, 23, 2);
    if ((sign != '+' && sign != '-') || text[22] != ':' || !offset_h || !offset_m ||
        *offset_h > 14 || *offset_m > 59) {
      return std::nullopt;
    }
    offset_s = (sign == '+' ? 1 : -1) * (*offset_h * 3600 + *offset_m * 60);
    text = text.substr(0, 19);
  }
  // YYYY-MM-DD HH:MM:SS
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  const auto year = digits(text, 0, 4);
  const auto month = digits(text, 5, 2);
  const auto day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2);
  const auto minute = digits(text, 14, 2);
  const auto second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1) return std::nullopt;
  static constexpr int kDaysInMonth[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int month_days = kDaysInMonth[*month - 1] + (*month == 2 && is_leap(*year) ? 1 : 0);
  if (*day > month_days || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  const std::int64_t days =
      days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  return days * 86400 + *hour * 3600 + *minute * 60 + *second - offset_s;
}

}  // namespace clustersim::workload_internal
