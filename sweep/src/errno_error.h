// Private to the sweep's sources: the error thrown when a system call on a file fails.
#pragma once

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace clustersim::sweep {

// Throws "PATH: WHAT: strerror(errno)"; call it right after the failed call, before errno changes.
[[noreturn]] inline void fail_errno(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace clustersim::sweep
