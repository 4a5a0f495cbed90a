// libFuzzer target for the Gavel trace reader (see README.md). The throughput table is parsed
// once, from a small in-memory JSON, and handed to the reader's internal entry point, so every
// input exercises the trace parsing rather than file I/O. Any exception other than InputError
// or std::invalid_argument, any sanitizer report and any broken invariant is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../src/workload/internal/gavel_throughputs.h"
#include "clustersim/error.h"
#include "clustersim/workload.h"
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
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool skip_invalid : {false, true}) {
    std::istringstream in(text);
    clustersim::ReaderOptions options;
    options.skip_invalid = skip_invalid;
    try {
      clustersim::fuzz::check_workload(clustersim::workload_internal::read_gavel_with_throughputs(
          in, "fuzz-input", options, throughputs()));
    } catch (const clustersim::InputError&) {
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
