// One InputError for every JSON file the readers parse (Philly logs, Gavel's throughput table,
// profiles) that nlohmann::json cannot parse.
#pragma once

#include <exception>
#include <string>

#include "clustersim/error.h"

namespace clustersim::io_internal {

// `error` came from nlohmann::json::parse(text). The result names the line of the failing byte
// (a syntax error) or of the offending number (a number too large for a double, which nlohmann
// reports without a position), and a short message with any echoed input cut to an excerpt.
InputError json_parse_error(const std::string& file, const std::string& text,
                            const std::exception& error, const std::string& field = "");

// The line on which the value at `path` ("reference.cpus_per_gpu", "throughput[2][0]") starts in
// the JSON `text` (which must have parsed), or where its nearest existing parent does (a missing
// member); 0 when not even the root is found. nlohmann's DOM keeps no positions, so semantic
// errors (a wrong type, a missing field) get their line from here.
std::size_t json_path_line(const std::string& text, const std::string& path);

}  // namespace clustersim::io_internal
