// Shared by the benchmarks: comma lists, and running one case in a child process so that its
// peak memory (max RSS) is its own.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace clustersim::bench {

inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
  return parts;
}

// Runs `measure()` (returning a trivially copyable result) in a forked child and hands its
// result back through a pipe. False when the child failed; `peak_mb` is the child's max RSS.
template <typename Measure, typename Result = std::invoke_result_t<Measure>>
bool run_in_child(Measure measure, Result& result, double& peak_mb) {
  static_assert(std::is_trivially_copyable_v<Result>);
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    const Result out = measure();
    if (write(fds[1], &out, sizeof out) != sizeof out) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  const bool got = read(fds[0], &result, sizeof result) == sizeof result;
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  peak_mb = usage.ru_maxrss / 1024.0;
  return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace clustersim::bench
