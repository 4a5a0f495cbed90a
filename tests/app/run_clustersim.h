// Runs the built `clustersim` binary with arguments (stderr dropped) and returns its exit code and
// standard output: the app tests' view of the command line.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace clustersim::testing {

struct Outcome {
  int exit_code;
  std::string out;
};

inline Outcome run_clustersim(const std::string& arguments) {
  const std::string command =
      std::string(CLUSTERSIM_BIN_DIR) + "/clustersim " + arguments + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace clustersim::testing
