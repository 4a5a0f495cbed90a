#include <gtest/gtest.h>

#include <stdexcept>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

TEST(ReadTrace, FormatNamesRoundTrip) {
  for (const TraceFormat format :
       {TraceFormat::kCsv, TraceFormat::kGavel, TraceFormat::kOpenb, TraceFormat::kHelios,
        TraceFormat::kPhilly, TraceFormat::kDag, TraceFormat::kAcme}) {
    EXPECT_EQ(parse_trace_format(trace_format_name(format)), format);
  }
  EXPECT_EQ(trace_format_name(TraceFormat::kHelios), "helios");
  EXPECT_EQ(trace_format_name(TraceFormat::kAcme), "acme");
  EXPECT_THROW(parse_trace_format("CSV"), std::invalid_argument);
  EXPECT_THROW(parse_trace_format(""), std::invalid_argument);
}

TEST(ReadTrace, MissingFileIsInputErrorAtLineZero) {
  testing::expect_input_error([] { read_trace("/nonexistent/trace.csv", TraceFormat::kCsv, {}); },
                              "/nonexistent/trace.csv", 0, "");
  const std::string folder = testing::workload_data("");
  testing::expect_input_error([&] { read_trace(folder, TraceFormat::kCsv, {}); }, folder, 0, "");
}

}  // namespace
}  // namespace clustersim
