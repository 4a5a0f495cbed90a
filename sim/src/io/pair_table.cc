// The CSV reader of [sharing]'s pair table (io/internal/pair_table.h).
#include "io/internal/pair_table.h"

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/input_file.h"

namespace clustersim::io_internal {

PairTable read_pair_table(const std::string& path) {
  return parse_pair_table(read_input_file(path, "sharing.table"), path);
}

PairTable parse_pair_table(const std::string& text, const std::string& path) {
  std::vector<std::pair<std::pair<std::string, std::string>, double>> pairs;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  const auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return std::string(s);
  };
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    std::vector<std::string> fields;
    std::size_t from = 0;
    for (std::size_t comma; (comma = line.find(',', from)) != std::string::npos; from = comma + 1)
      fields.push_back(trim(std::string_view(line).substr(from, comma - from)));
    fields.push_back(trim(std::string_view(line).substr(from)));
    if (number == 1) {
      if (fields != std::vector<std::string>{"model", "other", "factor"})
        throw InputError(path, number, "", "expected the header model,other,factor");
      continue;
    }
    if (fields.size() != 3) throw InputError(path, number, "", "expected 3 fields");
    if (fields[0].empty()) throw InputError(path, number, "model", "empty");
    if (fields[1].empty()) throw InputError(path, number, "other", "empty");
    char* end = nullptr;
    const double factor = std::strtod(fields[2].c_str(), &end);
    if (fields[2].empty() || end != fields[2].c_str() + fields[2].size() || !(factor > 0.0) ||
        !(factor <= 1.0))
      throw InputError(path, number, "factor",
                       "must be a number in (0, 1], got '" + excerpt(fields[2]) + "'");
    for (const auto& [models, known] : pairs)
      if (models.first == fields[0] && models.second == fields[1])
        throw InputError(path, number, "other", "pair listed twice");
    pairs.push_back({{fields[0], fields[1]}, factor});
  }
  if (pairs.empty()) throw InputError(path, number, "", "no pairs");
  return pairs;
}

}  // namespace clustersim::io_internal
