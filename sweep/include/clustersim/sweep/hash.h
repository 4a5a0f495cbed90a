// Fixed, platform-independent hashes: seeds must not depend on std::hash (implementation-defined)
// and the grid file's fingerprint must be comparable across machines and releases.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace clustersim::sweep {

// One step of the splitmix64 generator: a bijective 64-bit mixer with good avalanche.
std::uint64_t splitmix64(std::uint64_t x);

// Lower-case hex SHA-256 of `data` (FIPS 180-4).
std::string sha256_hex(std::string_view data);

}  // namespace clustersim::sweep
