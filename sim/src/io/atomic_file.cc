#include "clustersim/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "clustersim/error.h"

namespace clustersim {

namespace {

std::string host_name() {
  char name[256] = {0};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  return name;
}

std::string folder_of(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

void write_temporary(const std::string& path, const std::string& temporary,
                     const OutputFiles::Writer& write) {
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
  write(out);
  out.flush();
  if (!out) throw std::runtime_error(path + ": error while writing: " + std::strerror(errno));
  out.close();
  // On disk before the rename, so a crash never leaves an empty file under the final name.
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(path + ": cannot flush to disk: " + std::strerror(error));
  }
  ::close(fd);
}

}  // namespace

std::string temporary_path_for(const std::string& path) {
  return path + ".tmp." + host_name() + "." + std::to_string(::getpid());
}

void check_output_path(const std::string& path, std::string_view flag) {
  const std::string field(flag);
  if (path.empty()) throw InputError("(empty path)", 0, field, "needs a file name");
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw InputError(path, 0, field, "is a directory; give the name of a file to write");
  }
  const std::string folder = folder_of(path);
  if (!std::filesystem::is_directory(folder, error)) {
    throw InputError(path, 0, field, "the folder '" + excerpt(folder, 80) + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw InputError(
        path, 0, field,
        "cannot write in the folder '" + excerpt(folder, 80) + "': " + std::strerror(errno));
  }
}

void OutputFiles::add(const std::string& path, std::string_view flag, Writer write) {
  for (const Output& output : outputs_) {
    if (std::filesystem::path(output.path).lexically_normal() ==
        std::filesystem::path(path).lexically_normal()) {
      throw InputError(path, 0, std::string(flag),
                       "is also the " + (output.flag.empty() ? "output" : output.flag) +
                           " file; give each output its own file");
    }
  }
  outputs_.push_back({path, std::string(flag), std::move(write)});
}

void OutputFiles::commit() {
  std::vector<std::string> temporaries;
  const auto remove_temporaries = [&] {
    for (const std::string& temporary : temporaries) std::remove(temporary.c_str());
  };
  try {
    for (const Output& output : outputs_) {
      temporaries.push_back(temporary_path_for(output.path));
      write_temporary(output.path, temporaries.back(), output.write);
    }
  } catch (...) {
    remove_temporaries();
    throw;
  }
  // Renames within one folder do not fail for want of space; each replaces its target whole.
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (std::rename(temporaries[i].c_str(), outputs_[i].path.c_str()) != 0) {
      const int error = errno;
      remove_temporaries();
      throw std::runtime_error(outputs_[i].path +
                               ": cannot move the result into place: " + std::strerror(error));
    }
  }
}

}  // namespace clustersim
