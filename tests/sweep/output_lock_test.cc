// One writer per result file: the lock refuses a second holder, names the first, and is taken
// over when its holder died (kill -9) or left its file behind.
#include "clustersim/sweep/output_lock.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;

class OutputLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("clustersim_lock_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = (dir_ / "r.h5").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string out_;
};

TEST_F(OutputLockTest, ASecondHolderIsRefusedWithTheFirstOnesName) {
  OutputLock first(out_, "host h1, pid 11, started T1: clustersim sweep a.toml");
  EXPECT_TRUE(first.locked());
  EXPECT_TRUE(fs::exists(lock_path_for(out_)));
  try {
    OutputLock second(out_, "host h2, pid 22, started T2: clustersim sweep b.toml");
    FAIL() << "the second lock was granted";
  } catch (const OutputBusyError& error) {
    EXPECT_EQ(error.holder(), "host h1, pid 11, started T1: clustersim sweep a.toml");
    EXPECT_NE(std::string(error.what()).find("another sweep is writing this result file"),
              std::string::npos);
  }
  first.release();
  EXPECT_FALSE(fs::exists(lock_path_for(out_))) << "release leaves no lock file";
  std::string previous;
  OutputLock third(out_, "host h3, pid 33, started T3: x", &previous);
  EXPECT_TRUE(previous.empty()) << previous;
}

TEST_F(OutputLockTest, ALockFileWithoutALiveHolderIsTakenOver) {
  std::ofstream(lock_path_for(out_)) << "host h0, pid 99999, started T0: clustersim sweep\n";
  std::string previous;
  OutputLock lock(out_, "host h1, pid 1, started T1: x", &previous);
  EXPECT_EQ(previous, "host h0, pid 99999, started T0: clustersim sweep");
  std::ifstream in(lock_path_for(out_));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "host h1, pid 1, started T1: x\n");
}

TEST_F(OutputLockTest, TheLockOfAProcessKilledWithSigkillIsTakenOver) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    OutputLock lock(out_, "host h, pid child, started T: killed");
    const char byte = 'r';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  EXPECT_THROW(OutputLock(out_, "host h, pid 2, started T: second"), OutputBusyError);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  std::string previous;
  OutputLock lock(out_, "host h, pid 3, started T: third", &previous);
  EXPECT_EQ(previous, "host h, pid child, started T: killed");
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_F(OutputLockTest, TheDescriptionNamesHostPidStartUserAndSlurmJob) {
  ::unsetenv("SLURM_JOB_ID");
  ::unsetenv("SLURM_ARRAY_JOB_ID");
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  const passwd* me = ::getpwuid(::geteuid());
  ASSERT_NE(me, nullptr);
  const std::string user = me->pw_name;
  std::string text = describe_this_process("2026-01-01T00:00:00Z", "clustersim sweep g.toml");
  EXPECT_EQ(text.rfind("host ", 0), 0u) << text;
  EXPECT_NE(text.find(", pid " + std::to_string(::getpid()) +
                      ", started 2026-01-01T00:00:00Z, user " + user + ": clustersim sweep g.toml"),
            std::string::npos)
      << text;
  // Inside Slurm: the job, and an array task as squeue shows it (JOB_TASK).
  ::setenv("SLURM_JOB_ID", "4711", 1);
  text = describe_this_process("T", "c");
  EXPECT_NE(text.find(", user " + user + ", Slurm job 4711: c"), std::string::npos) << text;
  ::setenv("SLURM_ARRAY_JOB_ID", "4700", 1);
  ::setenv("SLURM_ARRAY_TASK_ID", "11", 1);
  text = describe_this_process("T", "c");
  EXPECT_NE(text.find(", Slurm job 4700_11: c"), std::string::npos) << text;
  ::unsetenv("SLURM_JOB_ID");
  ::unsetenv("SLURM_ARRAY_JOB_ID");
  ::unsetenv("SLURM_ARRAY_TASK_ID");
}

}  // namespace
}  // namespace clustersim::sweep
