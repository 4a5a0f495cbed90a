// The pair table of [sharing] interference = "table" (pair_table.cc).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clustersim::io_internal {

// [sharing] interference = "table": the pair table, `model,other,factor` (a header row, then
// one row per pair; `*` = any model): read from `path`, or parsed from its text.
using PairTable = std::vector<std::pair<std::pair<std::string, std::string>, double>>;
PairTable read_pair_table(const std::string& path);
PairTable parse_pair_table(const std::string& text, const std::string& path);

}  // namespace clustersim::io_internal
