#include "workload/internal/text_parsing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace clustersim::workload_internal {
namespace {

TEST(TextParsing, StrictNumbers) {
  EXPECT_EQ(parse_finite_double("1.5"), 1.5);
  EXPECT_EQ(parse_finite_double(" 2e3 "), 2000.0);
  EXPECT_EQ(parse_finite_double("+4"), 4.0);
  EXPECT_EQ(parse_finite_double("-4"), -4.0);  // sign checks are the caller's
  for (const char* bad : {"", " ", "1.5x", "nan", "inf", "-inf", "1e999", "0x10", "1,5", "++1"}) {
    EXPECT_FALSE(parse_finite_double(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_int64("42"), 42);
  EXPECT_EQ(parse_int64("-7"), -7);
  for (const char* bad : {"", "4.0", "1e3", "99999999999999999999", "12a"}) {
    EXPECT_FALSE(parse_int64(bad).has_value()) << bad;
  }
}

TEST(TextParsing, Datetimes) {
  EXPECT_EQ(parse_datetime_utc("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(parse_datetime_utc("2000-03-01 00:00:00"), 951868800);
  EXPECT_EQ(parse_datetime_utc("2024-02-29 23:59:59"), 1709251199);
  // With a UTC offset (AcmeTrace): 08:00 at +08:00 is midnight UTC; -05:30 adds 5.5 h.
  EXPECT_EQ(parse_datetime_utc("2000-03-01 08:00:00+08:00"), 951868800);
  EXPECT_EQ(parse_datetime_utc("2000-02-29 18:30:00-05:30"), 951868800);
  EXPECT_EQ(parse_datetime_utc("2000-03-01 00:00:00+00:00"), 951868800);
  for (const char* bad :
       {"2023-02-29 00:00:00", "2100-02-29 00:00:00", "2020-04-31 00:00:00", "2020-00-10 00:00:00",
        "2020-01-01 00:60:00", "2020-01-01 00:00:60", "2020-1-01 00:00:00", "2020-01-01",
        "2020-01-01 00:00:00Z", "2020-01-01 0a:00:00", "2020-01-01 00:00:00+15:00",
        "2020-01-01 00:00:00+08:60", "2020-01-01 00:00:00*08:00", "2020-01-01 00:00:00+0800",
        "2020-01-01 00:00:00+08-00"}) {
    EXPECT_FALSE(parse_datetime_utc(bad).has_value()) << bad;
  }
}

TEST(TextParsing, CsvSplitting) {
  std::vector<std::string> f;
  EXPECT_FALSE(split_csv("a, b ,\"c,d\",\"e\"\"f\",", ',', f).has_value());
  EXPECT_EQ(f, (std::vector<std::string>{"a", "b", "c,d", "e\"f", ""}));
  EXPECT_FALSE(split_csv("", ',', f).has_value());
  EXPECT_EQ(f, (std::vector<std::string>{""}));
  EXPECT_TRUE(split_csv("\"abc", ',', f).has_value());
  EXPECT_TRUE(split_csv("\"a\"b,c", ',', f).has_value());
  EXPECT_TRUE(split_csv("a\"b,c", ',', f).has_value());
  split_plain("a\t\tb", '\t', f);
  EXPECT_EQ(f, (std::vector<std::string>{"a", "", "b"}));
}

}  // namespace
}  // namespace clustersim::workload_internal
