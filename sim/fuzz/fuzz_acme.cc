// libFuzzer target for the acme trace reader (see README.md).
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustersim::fuzz::fuzz_reader(data, size, clustersim::read_acme);
}
