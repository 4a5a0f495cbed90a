// Storage and memory-cache read throughput (plain C++, POSIX).
//   cold: reads bypass the page cache with O_DIRECT (or, where the file system refuses it,
//         posix_fadvise(DONTNEED) before the pass, flagged as such in the result)
//   warm: a second buffered pass over a file already in the page cache
//   memory cache: copies of random sample-sized records out of an in-memory dataset cache
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckbench {

// O_DIRECT transfers: buffer address, file offset and length are multiples of this.
inline constexpr std::size_t kDirectIoAlignment = 4096;
inline constexpr std::size_t round_up_to_direct_io(std::size_t bytes) {
  return (bytes + kDirectIoAlignment - 1) / kDirectIoAlignment * kDirectIoAlignment;
}

// "WHAT PATH: strerror(errno)", for a failed system call on a file.
std::runtime_error sys_error(const std::string& what, const std::string& path);

// A file of `bytes` pseudo-random bytes (incompressible), written once and fsync'ed.
void write_test_file(const std::string& path, std::size_t bytes);

struct ReadResult {
  double bytes_per_s = 0.0;
  std::size_t bytes = 0;
  double seconds = 0.0;
  std::string method;  // "o_direct", "fadvise_dontneed" (cache may still help), "buffered"
};

enum class ReadMode { kCold, kWarm };

// Reads the file in `block` bytes per request by `threads` threads. `random_order` reads blocks
// in a shuffled order (as a data loader reading random samples does). One trial.
ReadResult read_file(const std::string& path, std::size_t block, ReadMode mode, int threads,
                     bool random_order, std::uint32_t seed = 1);

// Copies `samples` random records of `record_bytes` out of a `cache_bytes` buffer with `threads`
// threads; returns bytes/s of one trial. `cache` must hold cache_bytes bytes.
double memory_cache_read(const std::vector<std::uint8_t>& cache, std::size_t record_bytes,
                         int threads, std::size_t samples, std::uint32_t seed = 1);

// A random-access reader for one file; cold (O_DIRECT when the file system allows it).
class BlockReader {
 public:
  BlockReader(const std::string& path, bool cold);
  ~BlockReader();
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;
  // Reads [offset, offset + bytes) into `dst` (offset and bytes multiples of 4096 when cold).
  void read(std::size_t offset, std::size_t bytes, std::uint8_t* dst);
  bool direct() const { return direct_; }

 private:
  int fd_ = -1;
  bool direct_ = false;
  bool cold_ = false;
  std::uint8_t* bounce_ = nullptr;  // aligned buffer for O_DIRECT
  std::size_t bounce_bytes_ = 0;
};

}  // namespace ckbench
