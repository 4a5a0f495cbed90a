#include "clustersim/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "clustersim/error.h"

namespace clustersim {

void check_input_file(const std::string& path, std::string_view what) {
  if (path.empty()) throw InputError("(empty path)", 0, "", "no " + std::string(what) + " named");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw InputError(path, 0, "",
                     "cannot open the " + std::string(what) + ": " + std::strerror(errno));
  }
  struct stat info {};
  const bool is_directory = ::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode);
  ::close(fd);
  if (is_directory) throw InputError(path, 0, "", "is a directory, not a " + std::string(what));
}

std::string read_input_file(const std::string& path, std::string_view what) {
  std::ifstream in = open_input_file(path, what);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "", "error while reading the " + std::string(what));
  return text.str();
}

std::ifstream open_input_file(const std::string& path, std::string_view what) {
  check_input_file(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, 0, "",
                     "cannot open the " + std::string(what) + ": " + std::strerror(errno));
  }
  return in;
}

}  // namespace clustersim
