// The rows of a CSV side file whose first line names its columns: the loop the side-file readers
// (availability and failure traces, the failure mix, job values) share.
//
//   HeadedCsv csv(in, path, kColumns, "node,down,up");
//   while (csv.next_row()) { ... csv[kNode] ... csv.fail("node", "...") ... }
//
// Blank lines and lines starting with '#' are skipped. The header names each column once, every
// name one of `columns` (surrounding spaces ignored), the required ones all present; every row
// has as many fields as the header. Errors are InputErrors naming the source, the line and the
// field: an unknown or repeated column, a required one missing, a row of another width, a file
// with no header, a read error. `expected` words the columns for them ("component,category,
// interruptions[,percent][,cause]").
#pragma once

#include <cstddef>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::io_internal {

struct CsvColumn {
  std::string_view name;
  bool required = true;
};

class HeadedCsv {
 public:
  HeadedCsv(std::istream& in, std::string source, std::span<const CsvColumn> columns,
            std::string expected);

  // The next data row (the header read first); false at the end of the input.
  bool next_row();
  // Whether the header has columns[column]; the current row's field of it.
  bool has(std::size_t column) const { return position_[column] >= 0; }
  const std::string& operator[](std::size_t column) const;
  std::size_t line() const { return line_; }
  [[noreturn]] void fail(std::string_view field, const std::string& message) const;

 private:
  void read_header();

  std::istream& in_;
  std::string source_;
  std::span<const CsvColumn> columns_;
  std::string expected_;
  std::vector<int> position_;  // by column: its place in a row, -1 if absent
  std::size_t width_ = 0;      // fields per row; 0 until the header is read
  std::size_t line_ = 0;
  std::string text_;
  std::vector<std::string> fields_;
};

}  // namespace clustersim::io_internal
