// Private to the sweep's sources: the error thrown when a system call on a file fails.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace clustersim::sweep {

// Throws "PATH: WHAT: strerror(errno)"; call it right after the failed call, before errno changes.
[[noreturn]] inline void fail_errno(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(errno));
}

// Renames a written temporary onto `path`; on failure removes the temporary (nothing half-done
// stays behind) and throws naming both, with the system's reason.
inline void rename_into_place(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) == 0) return;
  const int error = errno;
  std::remove(temporary.c_str());
  errno = error;
  fail_errno(path, "cannot replace it with the finished " + temporary);
}

}  // namespace clustersim::sweep
