// libFuzzer target for the openb trace reader (see README.md). Any exception other than InputError
// or std::invalid_argument, any sanitizer report and any broken invariant is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool skip_invalid : {false, true}) {
    std::istringstream in(text);
    clustersim::ReaderOptions options;
    options.skip_invalid = skip_invalid;
    try {
      clustersim::fuzz::check_workload(clustersim::read_openb(in, "fuzz-input", options));
    } catch (const clustersim::InputError&) {
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
