// write_file_atomically: write to a temporary file beside the target, then rename it into place.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace clustersim {

template <typename WriteFn>
void write_file_atomically(const std::string& path, WriteFn&& write) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    write(out);
    out.flush();
    if (!out) throw std::runtime_error("error while writing '" + path + "'");
    out.close();
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
      throw std::runtime_error("cannot move the result into '" + path + "'");
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
}

}  // namespace clustersim
