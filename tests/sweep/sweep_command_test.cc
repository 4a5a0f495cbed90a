// The one-line summary of failed points that goes with exit status 3.
#include "clustersim/sweep/sweep_command.h"

#include <gtest/gtest.h>

namespace clustersim::sweep {
namespace {

TEST(SweepFailureSummary, EmptyWhenEveryPointSucceeded) {
  EXPECT_EQ(summarize_failures({"ok", "ok"}), "");
  EXPECT_EQ(summarize_failures({}), "");
}

TEST(SweepFailureSummary, CountsByReasonMostFrequentFirst) {
  EXPECT_EQ(summarize_failures({"ok", "t.csv:3: field 'num_gpus': too big", "b", "ok",
                                "t.csv:3: field 'num_gpus': too big"}),
            "sweep: 3 of 5 points failed (status column of /points): 2 x t.csv:3: field "
            "'num_gpus': too big; 1 x b");
}

TEST(SweepFailureSummary, StaysOneShortLine) {
  std::vector<std::string> status = {std::string(1000, 'x') + "\nsecond line", "r1", "r2", "r3"};
  const std::string line = summarize_failures(status);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_LT(line.size(), 400u) << line;
  EXPECT_NE(line.find("and 1 other reasons"), std::string::npos) << line;
}

}  // namespace
}  // namespace clustersim::sweep
