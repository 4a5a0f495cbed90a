// JSON writing, the results table and the command-line parser of the benchmarks.
#include "ckbench/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ckbench/cli.h"

namespace ckbench {
namespace {

TEST(Json, ScalarsAndEscaping) {
  EXPECT_EQ(Json().dump(), "null");
  EXPECT_EQ(Json(true).dump(), "true");
  EXPECT_EQ(Json(3).dump(), "3");
  EXPECT_EQ(Json(0.25).dump(), "0.25");
  EXPECT_EQ(Json(1e20).dump(), "1e+20");
  EXPECT_EQ(Json(std::numeric_limits<double>::infinity()).dump(), "null");
  EXPECT_EQ(Json(std::nan("")).dump(), "null");
  EXPECT_EQ(Json("a\"b\\c\nd\x01").dump(), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

TEST(Json, ObjectsKeepOrderAndArraysOfScalarsStayFlat) {
  Json j = Json::object();
  j["schema"] = "x";
  j["axis"] = std::vector<double>{1, 2.5};
  j["nested"]["k"] = 1;
  Json rows = Json::array();
  rows.push_back(Json(std::vector<double>{1, 2}));
  rows.push_back(Json(std::vector<double>{3, 4}));
  j["m"] = rows;
  j["schema"] = "y";  // overwrite keeps the position
  EXPECT_EQ(j.dump(2),
            "{\n"
            "  \"schema\": \"y\",\n"
            "  \"axis\": [1, 2.5],\n"
            "  \"nested\": {\n"
            "    \"k\": 1\n"
            "  },\n"
            "  \"m\": [\n"
            "    [1, 2],\n"
            "    [3, 4]\n"
            "  ]\n"
            "}");
  EXPECT_EQ(j.dump(-1),
            "{\"schema\":\"y\",\"axis\":[1,2.5],\"nested\":{\"k\":1},\"m\":[[1,2],[3,4]]}");
  EXPECT_EQ(Json::object().dump(), "{}");
  EXPECT_EQ(Json::array().dump(), "[]");
}

TEST(Json, TypeMisuseThrows) {
  Json a = Json::array();
  EXPECT_THROW(a["k"], std::logic_error);
  Json o = Json::object();
  EXPECT_THROW(o.push_back(1), std::logic_error);
}

TEST(Table, AlignsColumns) {
  Table t({"model", "samples/s"});
  t.add_row({"resnet50", "1234.5"});
  t.add_row({"m5", "9.0"});
  EXPECT_EQ(t.str(),
            "|    model | samples/s |\n"
            "|----------|-----------|\n"
            "| resnet50 |    1234.5 |\n"
            "|       m5 |       9.0 |\n");
  EXPECT_EQ(fmt(1.23456, 2), "1.23");
  EXPECT_EQ(fmt_pct(0.0123), "1.23%");
}

TEST(Args, ParsesValuesFlagsAndLists) {
  const char* argv[] = {"prog",   "--model",   "resnet50", "--max-noise=1.5",
                        "--keep", "--threads", "1,2,4"};
  Args a(7, const_cast<char**>(argv), {"model", "max-noise", "threads"}, {"keep"});
  EXPECT_EQ(a.str("model", ""), "resnet50");
  EXPECT_DOUBLE_EQ(a.num("max-noise", 0), 1.5);
  EXPECT_TRUE(a.has("keep"));
  EXPECT_EQ(a.nums("threads", {}), (std::vector<double>{1, 2, 4}));
  EXPECT_DOUBLE_EQ(a.num("absent", 7), 7.0);
}

TEST(Args, RejectsUnknownAndMalformed) {
  const char* bad1[] = {"prog", "--nope", "1"};
  EXPECT_THROW(Args(3, const_cast<char**>(bad1), {"model"}), std::invalid_argument);
  const char* bad2[] = {"prog", "--model"};
  EXPECT_THROW(Args(2, const_cast<char**>(bad2), {"model"}), std::invalid_argument);
  const char* bad3[] = {"prog", "--batch", "x12"};
  Args a(3, const_cast<char**>(bad3), {"batch"});
  EXPECT_THROW(a.num("batch", 0), std::invalid_argument);
}

}  // namespace
}  // namespace ckbench
