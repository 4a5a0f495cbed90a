// Opening the files a user names (configs, grids, traces, profiles, throughput tables) with one
// message per cause: "FILE: cannot open the config file: No such file or directory", "FILE: is a
// directory, not a config file", "FILE: cannot open the config file: Permission denied".
#pragma once

#include <fstream>
#include <string>
#include <string_view>

namespace clustersim {

// Throws InputError(path, 0, "", ...) unless `path` can be opened for reading and is not a
// directory. `what` names the file's role in messages ("config file", "trace file").
void check_input_file(const std::string& path, std::string_view what);

// check_input_file, then the file's whole contents (InputError on a read error).
std::string read_input_file(const std::string& path, std::string_view what);

// check_input_file, then the file opened for reading in binary mode.
std::ifstream open_input_file(const std::string& path, std::string_view what);

}  // namespace clustersim
