// The side-file readers' shared loop (io/internal/headed_csv.h): columns in any order, optional
// ones, comments and blank lines skipped, and each malformed header or row an error naming the
// line and the field.
#include "io/internal/headed_csv.h"

#include <gtest/gtest.h>

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/error.h"

namespace clustersim::io_internal {
namespace {

enum TestColumn { kName, kCount, kNote };
constexpr std::array<CsvColumn, 3> kTestColumns = {{{"name"}, {"count"}, {"note", false}}};

// Every row as "name=count[/note]"; the error's text when reading fails.
std::vector<std::string> rows_of(const std::string& text) {
  std::istringstream in(text);
  HeadedCsv csv(in, "t.csv", kTestColumns, "name,count[,note]");
  std::vector<std::string> out;
  while (csv.next_row())
    out.push_back(csv[kName] + "=" + csv[kCount] + (csv.has(kNote) ? "/" + csv[kNote] : ""));
  return out;
}

std::string error_of(const std::string& text) {
  try {
    rows_of(text);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(HeadedCsv, ReadsColumnsInAnyOrderSkippingCommentsAndBlankLines) {
  EXPECT_EQ(rows_of("# a comment\n\ncount, name\n3,a\n# another\n4,b\n"),
            (std::vector<std::string>{"a=3", "b=4"}));
  EXPECT_EQ(rows_of("name,note,count\na,x,1\n"), (std::vector<std::string>{"a=1/x"}));
}

TEST(HeadedCsv, NamesTheLineAndTheFieldOfEachError) {
  EXPECT_EQ(error_of("name,count,colour\n"),
            "t.csv:1: field 'colour': unknown column (expected name,count[,note])");
  EXPECT_EQ(error_of("# c\nname,count,name\n"),
            "t.csv:2: field 'name': column appears twice in header");
  EXPECT_EQ(error_of("name,note\n"), "t.csv:1: field 'count': required column missing");
  EXPECT_EQ(error_of("name,count\na,1\nb\n"), "t.csv:3: row has 1 fields, header has 2");
  EXPECT_EQ(error_of("# only a comment\n"), "t.csv: no header (expected name,count[,note])");
}

TEST(HeadedCsv, RowErrorsOfTheCallerNameTheCurrentLine) {
  std::istringstream in("name,count\na,1\n\nb,x\n");
  HeadedCsv csv(in, "t.csv", kTestColumns, "name,count[,note]");
  ASSERT_TRUE(csv.next_row());
  EXPECT_EQ(csv.line(), 2u);
  ASSERT_TRUE(csv.next_row());
  EXPECT_EQ(csv.line(), 4u);
  try {
    csv.fail("count", "expected a number");
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "t.csv:4: field 'count': expected a number");
  }
  EXPECT_FALSE(csv.next_row());
}

}  // namespace
}  // namespace clustersim::io_internal
