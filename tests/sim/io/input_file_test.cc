// Files a user names are said to be missing, a directory, or unreadable, as such.
#include "clustersim/input_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "clustersim/error.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

std::string message_of(const std::string& path) {
  try {
    read_input_file(path, "config file");
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), path);
    EXPECT_EQ(error.line(), 0u);
    return error.message();
  }
  ADD_FAILURE() << "expected an InputError for " << path;
  return "";
}

TEST(InputFile, SaysWhyAFileCannotBeRead) {
  const fs::path dir =
      fs::temp_directory_path() / ("clustersim_input_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_EQ(message_of((dir / "missing.toml").string()),
            "cannot open the config file: No such file or directory");
  EXPECT_EQ(message_of(dir.string()), "is a directory, not a config file");
  const std::string locked = (dir / "locked.toml").string();
  std::ofstream(locked) << "x";
  fs::permissions(locked, fs::perms::none);
  if (::geteuid() != 0) {  // root reads anything
    EXPECT_EQ(message_of(locked), "cannot open the config file: Permission denied");
  }
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_EQ(read_input_file(locked, "config file"), "x");
  fs::remove_all(dir);
}

TEST(InputFile, ExcerptCutsAndEscapes) {
  EXPECT_EQ(excerpt("short"), "short");
  EXPECT_EQ(excerpt(std::string(100, 'x'), 10), "xxxxxxxxxx...");
  EXPECT_EQ(excerpt("a\nb\x01"), "a\\x0ab\\x01");
  // Never half a UTF-8 character: "é" is two bytes.
  EXPECT_EQ(excerpt("ab\xC3\xA9", 3), "ab...");
}

}  // namespace
}  // namespace clustersim
