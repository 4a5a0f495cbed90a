// Result files are written whole or not at all: each to a temporary file beside its target
// (named PATH.tmp.HOST.PID, unique per process even on a shared file system), flushed to disk,
// then renamed into place. OutputFiles does this for all the outputs of one run together: every
// temporary is written before the first rename, so a failure leaves none of them behind.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

// PATH.tmp.HOST.PID: the temporary file this process writes `path` through.
std::string temporary_path_for(const std::string& path);

// Throws InputError(path, 0, flag, ...) when `path` cannot be an output file: empty, a directory,
// in a folder that does not exist or cannot be written. Called before the work, so a bad output
// path costs nothing.
void check_output_path(const std::string& path, std::string_view flag);

class OutputFiles {
 public:
  using Writer = std::function<void(std::ostream&)>;

  // Throws InputError when `path` was added already (two outputs cannot share one file).
  void add(const std::string& path, std::string_view flag, Writer write);
  // Writes every temporary, then renames them all into place. On a failure it removes the
  // temporaries and throws std::runtime_error naming the file; no target has been touched.
  void commit();

 private:
  struct Output {
    std::string path;
    std::string flag;
    Writer write;
  };
  std::vector<Output> outputs_;
};

template <typename WriteFn>
void write_file_atomically(const std::string& path, WriteFn&& write) {
  OutputFiles files;
  files.add(path, "", std::forward<WriteFn>(write));
  files.commit();
}

}  // namespace clustersim
