// libFuzzer target for the Gavel trace reader (see README.md). The throughput table is parsed
// once, from a small in-memory JSON, and handed to the reader's internal entry point, so every
// input exercises the trace parsing rather than file I/O.
#include <sstream>

#include "../src/workload/internal/gavel_throughputs.h"
#include "fuzz_checks.h"

namespace {

const clustersim::workload_internal::GavelThroughputs& throughputs() {
  static const auto table = [] {
    std::istringstream json(R"json({"v100": {
      "('ResNet-18 (batch size 64)', 1)": {"null": 20.0},
      "('ResNet-18 (batch size 64)', 2)": {"null": 38.5},
      "('Transformer (batch size 128)', 4)": {"null": 1e-300},
      "('A3C', 1)": {"null": 40.0},
      "('LM (batch size 80)', 8)": {"null": 3.25}}})json");
    return clustersim::workload_internal::parse_gavel_throughputs(json, "fuzz-throughputs.json",
                                                                  "v100");
  }();
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustersim::fuzz::fuzz_reader(
      data, size,
      [](std::istream& in, const std::string& source, const clustersim::ReaderOptions& options) {
        return clustersim::workload_internal::read_gavel_with_throughputs(in, source, options,
                                                                          throughputs());
      });
}
