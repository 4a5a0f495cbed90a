#include "clustersim/sweep/row_spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace clustersim::sweep {

namespace {

// Record: magic, reserved u32, u64 payload bytes, u64 checksum of the payload, payload.
constexpr std::uint32_t kRecordMagic = 0x52575343u;  // "CSWR"
constexpr std::size_t kHeaderBytes = 24;

struct RecordHeader {
  std::uint32_t magic = kRecordMagic;
  std::uint32_t reserved = 0;
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;
};
static_assert(sizeof(RecordHeader) == kHeaderBytes);

std::string errno_text() { return std::strerror(errno); }

// Reads exactly `size` bytes at `offset`; false at end of file.
bool read_exact(int fd, void* data, std::size_t size, std::uint64_t offset) {
  auto* out = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string rows_folder_for(const std::string& result_path) { return result_path + ".rows"; }

std::string spool_file_name(std::int64_t session, int rank) {
  std::string name = "s";
  name += std::to_string(session);
  name += ".r";
  name += std::to_string(rank);
  return name;
}

std::uint64_t spool_checksum(std::string_view bytes) {
  constexpr std::uint64_t kPrime = 0x9E3779B97F4A7C15ull;
  std::uint64_t lanes[4] = {1, 2, 3, 4};
  std::size_t i = 0;
  for (; i + 32 <= bytes.size(); i += 32) {
    for (int lane = 0; lane < 4; ++lane) {
      std::uint64_t word;
      std::memcpy(&word, bytes.data() + i + 8 * lane, 8);
      std::uint64_t h = lanes[lane] ^ word;
      lanes[lane] = ((h << 31) | (h >> 33)) * kPrime;
    }
  }
  std::uint64_t h = bytes.size() * kPrime;
  for (std::uint64_t lane : lanes) h = ((h ^ lane) * kPrime) ^ (h >> 29);
  for (; i < bytes.size(); ++i) h = (h ^ static_cast<unsigned char>(bytes[i])) * kPrime;
  h ^= h >> 31;
  h *= kPrime;
  return h ^ (h >> 29);
}

RowSpool::RowSpool(const std::string& folder, const std::string& name)
    : path_(folder + "/" + name), name_(name) {
  // 0666 less the umask: group-writable in a group folder (umask 002), like every sweep file.
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd_ < 0) throw SpoolWriteError(path_ + ": cannot create the row spool: " + errno_text());
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    ::close(fd_);
    throw SpoolWriteError(path_ + ": cannot stat the row spool: " + errno_text());
  }
  size_ = static_cast<std::uint64_t>(info.st_size);
}

RowSpool::~RowSpool() {
  if (fd_ >= 0) ::close(fd_);
}

RowsRef RowSpool::append(std::string_view payload, std::uint64_t jobs, std::uint64_t samples) {
  RecordHeader header;
  header.bytes = payload.size();
  header.checksum = spool_checksum(payload);
  std::lock_guard lock(mutex_);
  if (!failed_.empty()) throw SpoolWriteError(failed_);
  RowsRef ref{name_, size_, payload.size(), header.checksum, jobs, samples};
  // Header and payload in one writev-like sequence under the lock; O_APPEND keeps them at the
  // end. A short write (disk full) leaves a torn record that no reference names.
  const char* parts[2] = {reinterpret_cast<const char*>(&header), payload.data()};
  const std::size_t sizes[2] = {kHeaderBytes, payload.size()};
  for (int part = 0; part < 2; ++part) {
    std::size_t written = 0;
    while (written < sizes[part]) {
      ssize_t n = ::write(fd_, parts[part] + written, sizes[part] - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        failed_ =
            path_ + ": cannot write the row spool (per-job rows of point results): " + errno_text();
        throw SpoolWriteError(failed_);
      }
      written += static_cast<std::size_t>(n);
    }
  }
  size_ += kHeaderBytes + payload.size();
  return ref;
}

void RowSpool::sync() {
  std::lock_guard lock(mutex_);
  if (::fdatasync(fd_) != 0)
    throw SpoolWriteError(path_ + ": cannot sync the row spool: " + errno_text());
}

std::uint64_t RowSpool::bytes_written() const {
  std::lock_guard lock(mutex_);
  return size_;
}

PointResult read_spooled_rows(const std::string& folder, const RowsRef& ref) {
  const std::string path = folder + "/" + ref.file;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw std::runtime_error(path + ": cannot open the row spool: " + errno_text());
  RecordHeader header;
  std::string payload(ref.bytes, '\0');
  if (!read_exact(fd.get(), &header, kHeaderBytes, ref.offset) || header.magic != kRecordMagic ||
      header.bytes != ref.bytes || header.checksum != ref.checksum ||
      !read_exact(fd.get(), payload.data(), payload.size(), ref.offset + kHeaderBytes) ||
      spool_checksum(payload) != ref.checksum) {
    throw std::runtime_error(path + ": the record at offset " + std::to_string(ref.offset) +
                             " is missing or damaged (rows lost with a node?): rerun with "
                             "--resume, which reruns such points");
  }
  PointResult rows = decode_result(payload);
  if (rows.jobs.size() != ref.jobs || rows.samples.size() != ref.samples)
    throw std::runtime_error(path + ": the record at offset " + std::to_string(ref.offset) +
                             " holds other rows than its reference");
  return rows;
}

bool spooled_rows_intact(const std::string& folder, const RowsRef& ref) {
  const std::string path = folder + "/" + ref.file;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  RecordHeader header;
  if (!read_exact(fd.get(), &header, kHeaderBytes, ref.offset) || header.magic != kRecordMagic ||
      header.bytes != ref.bytes || header.checksum != ref.checksum)
    return false;
  std::string payload(ref.bytes, '\0');
  return read_exact(fd.get(), payload.data(), payload.size(), ref.offset + kHeaderBytes) &&
         spool_checksum(payload) == ref.checksum;
}

}  // namespace clustersim::sweep
