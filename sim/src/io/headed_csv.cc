#include "io/internal/headed_csv.h"

#include <utility>

#include "clustersim/error.h"
#include "workload/internal/text_parsing.h"

namespace clustersim::io_internal {

using workload_internal::trim;

HeadedCsv::HeadedCsv(std::istream& in, std::string source, std::span<const CsvColumn> columns,
                     std::string expected)
    : in_(in),
      source_(std::move(source)),
      columns_(columns),
      expected_(std::move(expected)),
      position_(columns.size(), -1) {}

bool HeadedCsv::next_row() {
  while (workload_internal::read_line(in_, text_)) {
    ++line_;
    const std::string_view text = trim(text_);
    if (text.empty() || text.front() == '#') continue;
    if (auto error = workload_internal::split_csv(text_, ',', fields_)) fail("", *error);
    if (width_ == 0) {
      read_header();
      continue;
    }
    if (fields_.size() != width_)
      fail("", "row has " + std::to_string(fields_.size()) + " fields, header has " +
                   std::to_string(width_));
    return true;
  }
  if (in_.bad()) throw InputError(source_, 0, "", "read error");
  if (width_ == 0) throw InputError(source_, 0, "", "no header (expected " + expected_ + ")");
  return false;
}

void HeadedCsv::read_header() {
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    std::size_t c = 0;
    while (c < columns_.size() && columns_[c].name != trim(fields_[i])) ++c;
    if (c == columns_.size()) fail(fields_[i], "unknown column (expected " + expected_ + ")");
    if (position_[c] >= 0) fail(fields_[i], "column appears twice in header");
    position_[c] = static_cast<int>(i);
  }
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].required && position_[c] < 0) fail(columns_[c].name, "required column missing");
  width_ = fields_.size();
}

const std::string& HeadedCsv::operator[](std::size_t column) const {
  return fields_[static_cast<std::size_t>(position_[column])];
}

void HeadedCsv::fail(std::string_view field, const std::string& message) const {
  throw InputError(source_, line_, std::string(field), message);
}

}  // namespace clustersim::io_internal
