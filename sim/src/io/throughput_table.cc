// Reads a throughput table in the format of Gavel's simulation_throughputs.json
// (throughput_table.h).
#include "clustersim/throughput_table.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "io/internal/json_error.h"

namespace clustersim {

ThroughputTable parse_throughput_table(std::istream& in, const std::string& source) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw InputError(source, 0, "", "error while reading the throughput table");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // syntax error, or a number overflow
    throw io_internal::json_parse_error(source, text, error);
  }
  if (!json.is_object())
    throw InputError(source, 0, "throughputs", "expected a JSON object of GPU types");
  ThroughputTable table;
  table.source = source;
  for (const auto& [gpu_type, entries] : json.items()) {
    if (!entries.is_object()) continue;
    auto& rates = table.steps_per_second[gpu_type];
    for (const auto& [key, entry] : entries.items()) {
      if (!entry.is_object()) continue;
      const auto alone = entry.find("null");
      if (alone == entry.end()) continue;  // only co-located measurements: not usable alone
      const std::string field = excerpt(gpu_type + "/" + key, 60) + "/null";
      if (!alone->is_number()) throw InputError(source, 0, field, "not a number");
      const double steps_per_second = alone->get<double>();
      if (!std::isfinite(steps_per_second) || steps_per_second < 0.0)
        throw InputError(source, 0, field,
                         "steps/s must be a finite number >= 0 (0: cannot run on this type)");
      rates.emplace(key, steps_per_second);
    }
  }
  return table;
}

ThroughputTable load_throughput_table(const std::string& path) {
  std::ifstream file = open_input_file(path, "throughput table");
  return parse_throughput_table(file, path);
}

}  // namespace clustersim
