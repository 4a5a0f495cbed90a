#include "storage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

namespace ckbench {

std::runtime_error sys_error(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

namespace {

std::size_t file_size(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) throw sys_error("cannot stat", path);
  return static_cast<std::size_t>(st.st_size);
}

}  // namespace

void write_test_file(const std::string& path, std::size_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw sys_error("cannot create", path);
  std::vector<std::uint64_t> chunk(1 << 17);  // 1 MiB
  std::mt19937_64 rng(12345);
  std::size_t written = 0;
  while (written < bytes) {
    for (auto& w : chunk) w = rng();
    const std::size_t n = std::min(bytes - written, chunk.size() * sizeof(std::uint64_t));
    const ssize_t r = ::write(fd, chunk.data(), n);
    if (r < 0) {
      ::close(fd);
      throw sys_error("cannot write", path);
    }
    written += static_cast<std::size_t>(r);
  }
  ::fsync(fd);
  ::close(fd);
}

BlockReader::BlockReader(const std::string& path, bool cold) : cold_(cold) {
  if (cold) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECT);
    direct_ = fd_ >= 0;
  }
  if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDONLY);
  if (fd_ < 0) throw sys_error("cannot open", path);
}

BlockReader::~BlockReader() {
  if (fd_ >= 0) ::close(fd_);
  std::free(bounce_);
}

void BlockReader::read(std::size_t offset, std::size_t bytes, std::uint8_t* dst) {
  std::uint8_t* target = dst;
  std::size_t start = offset, length = bytes;
  if (direct_) {
    start = offset / kDirectIoAlignment * kDirectIoAlignment;
    length = round_up_to_direct_io(offset + bytes - start);
    if (bounce_bytes_ < length) {
      std::free(bounce_);
      bounce_ = static_cast<std::uint8_t*>(std::aligned_alloc(kDirectIoAlignment, length));
      if (bounce_ == nullptr) throw std::bad_alloc();
      bounce_bytes_ = length;
    }
    target = bounce_;
  }
  std::size_t done = 0;
  while (done < length) {
    const ssize_t r = ::pread(fd_, target + done, length - done, static_cast<off_t>(start + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("pread: ") + std::strerror(errno));
    }
    if (r == 0) break;  // end of file (the last aligned block may be short)
    done += static_cast<std::size_t>(r);
  }
  if (!direct_ && cold_) {
    // Drop what we just read so that the next pass is cold again.
    ::posix_fadvise(fd_, static_cast<off_t>(start), static_cast<off_t>(length),
                    POSIX_FADV_DONTNEED);
  }
  if (direct_) std::memcpy(dst, bounce_ + (offset - start), bytes);
}

ReadResult read_file(const std::string& path, std::size_t block, ReadMode mode, int threads,
                     bool random_order, std::uint32_t seed) {
  if (block == 0 || threads < 1) throw std::invalid_argument("read_file: block 0 or no threads");
  block = round_up_to_direct_io(block);
  std::size_t size = 0;
  {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw sys_error("cannot open", path);
    size = file_size(fd, path);
    if (mode == ReadMode::kCold) {
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    } else {
      // Warm the page cache with one full buffered pass.
      std::vector<std::uint8_t> buf(1 << 20);
      while (::read(fd, buf.data(), buf.size()) > 0) {
      }
    }
    ::close(fd);
  }
  const std::size_t blocks = size / block;
  if (blocks == 0) throw std::runtime_error(path + ": file smaller than one block");
  std::vector<std::size_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  if (random_order) std::shuffle(order.begin(), order.end(), std::mt19937(seed));

  std::atomic<std::size_t> next{0};
  std::vector<std::string> errors(threads);
  std::atomic<bool> any_direct{false}, all_direct{true};
  std::vector<std::thread> pool;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t]() {
      try {
        BlockReader reader(path, mode == ReadMode::kCold);
        if (reader.direct()) {
          any_direct = true;
        } else {
          all_direct = false;
        }
        std::vector<std::uint8_t> dst(block);
        for (std::size_t i = next++; i < blocks; i = next++) {
          reader.read(order[i] * block, block, dst.data());
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : pool) th.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& e : errors) {
    if (!e.empty()) throw std::runtime_error(e);
  }
  ReadResult r;
  r.bytes = blocks * block;
  r.seconds = seconds;
  r.bytes_per_s = static_cast<double>(r.bytes) / seconds;
  if (mode == ReadMode::kWarm) {
    r.method = "buffered";
  } else {
    r.method = all_direct ? "o_direct" : (any_direct ? "mixed" : "fadvise_dontneed");
  }
  return r;
}

double memory_cache_read(const std::vector<std::uint8_t>& cache, std::size_t record_bytes,
                         int threads, std::size_t samples, std::uint32_t seed) {
  if (record_bytes == 0 || record_bytes > cache.size() || threads < 1) {
    throw std::invalid_argument("memory_cache_read: bad record size or threads");
  }
  const std::size_t records = cache.size() / record_bytes;
  std::vector<std::thread> pool;
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> checksum{0};
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t]() {
      std::vector<std::uint8_t> dst(record_bytes);
      std::mt19937_64 rng(seed * 31u + t);
      std::uint64_t sum = 0;
      while (next++ < samples) {
        const std::size_t r = rng() % records;
        std::memcpy(dst.data(), cache.data() + r * record_bytes, record_bytes);
        sum += dst[record_bytes / 2];  // keep the copy observable
      }
      checksum += sum;
    });
  }
  for (auto& th : pool) th.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(samples) * record_bytes / seconds;
}

}  // namespace ckbench
