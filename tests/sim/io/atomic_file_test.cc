// Outputs are written whole or not at all, all of a run's outputs together (issue 13: a failed
// `run` could leave --jobs-out behind when --timeseries-out then failed).
#include "clustersim/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "clustersim/error.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

class OutputFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("clustersim_output_files_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.insert(entry.path().filename());
    return names;
  }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
};

TEST_F(OutputFilesTest, WritesEveryOutput) {
  OutputFiles files;
  files.add(path("a.csv"), "--a", [](std::ostream& out) { out << "a\n"; });
  files.add(path("b.csv"), "--b", [](std::ostream& out) { out << "b\n"; });
  files.commit();
  EXPECT_EQ(listing(), (std::set<std::string>{"a.csv", "b.csv"}));
  EXPECT_EQ(read(path("a.csv")), "a\n");
  EXPECT_EQ(read(path("b.csv")), "b\n");
}

TEST_F(OutputFilesTest, AFailingOutputLeavesNoneOfThem) {
  std::ofstream(path("a.csv")) << "previous\n";
  OutputFiles files;
  files.add(path("a.csv"), "--a", [](std::ostream& out) { out << "new\n"; });
  files.add(path("b.csv"), "--b", [](std::ostream&) { throw std::runtime_error("disk full"); });
  EXPECT_THROW(files.commit(), std::runtime_error);
  // No temporary, no b.csv, and a.csv still holds what it held.
  EXPECT_EQ(listing(), (std::set<std::string>{"a.csv"}));
  EXPECT_EQ(read(path("a.csv")), "previous\n");
}

TEST_F(OutputFilesTest, OneFileForTwoOutputsIsRefused) {
  OutputFiles files;
  files.add(path("a.csv"), "--jobs-out", [](std::ostream&) {});
  try {
    files.add(dir_.string() + "/./a.csv", "--timeseries-out", [](std::ostream&) {});
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field(), "--timeseries-out");
    EXPECT_NE(error.message().find("--jobs-out"), std::string::npos) << error.what();
  }
}

TEST_F(OutputFilesTest, TemporariesAreUniquePerProcess) {
  const std::string temporary = temporary_path_for(path("a.csv"));
  EXPECT_EQ(temporary.rfind(path("a.csv") + ".tmp.", 0), 0u) << temporary;
  const std::string pid = std::to_string(::getpid());
  EXPECT_EQ(temporary.substr(temporary.size() - pid.size() - 1), '.' + pid) << temporary;
}

TEST_F(OutputFilesTest, BadOutputPathsAreInputErrors) {
  EXPECT_THROW(check_output_path(path("nope/a.csv"), "--jobs-out"), InputError);
  EXPECT_THROW(check_output_path(dir_.string(), "--jobs-out"), InputError);
  EXPECT_THROW(check_output_path("", "--jobs-out"), InputError);
  EXPECT_NO_THROW(check_output_path(path("a.csv"), "--jobs-out"));
}

}  // namespace
}  // namespace clustersim
