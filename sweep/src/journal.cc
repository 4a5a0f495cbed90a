#include "clustersim/sweep/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "clustersim/error.h"
#include "errno_error.h"

namespace clustersim::sweep {

namespace {

constexpr std::string_view kMagic = "CSWJRNL1";

// FNV-1a, 32 bits: enough to tell a torn record from a whole one.
std::uint32_t checksum(std::string_view bytes) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 16777619u;
  }
  return hash;
}

void append_u32(std::string& out, std::uint32_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

std::uint32_t read_u32(const std::string& bytes, std::size_t offset) {
  std::uint32_t value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

}  // namespace

std::string journal_path_for(const std::string& result_path) { return result_path + ".journal"; }

std::string format_journal_fields(const std::map<std::string, std::string>& fields) {
  std::string text;
  for (const auto& [key, value] : fields) {
    text += key;
    text += '=';
    for (char c : value) {
      switch (c) {
        case '\\':
          text += "\\\\";
          break;
        case '\n':
          text += "\\n";
          break;
        case '\r':
          text += "\\r";
          break;
        default:
          text += c;
      }
    }
    text += '\n';
  }
  return text;
}

std::map<std::string, std::string> parse_journal_fields(std::string_view text) {
  std::map<std::string, std::string> fields;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    std::string value;
    for (std::size_t i = equals + 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        const char escaped = line[++i];
        value += escaped == 'n' ? '\n' : escaped == 'r' ? '\r' : escaped;
      } else {
        value += line[i];
      }
    }
    fields[std::string(line.substr(0, equals))] = std::move(value);
  }
  return fields;
}

JournalContents read_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open the sweep journal");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string bytes = text.str();
  if (bytes.compare(0, kMagic.size(), kMagic) != 0) {
    throw InputError(path, 0, "", "not a clustersim sweep journal");
  }
  JournalContents contents;
  std::size_t offset = kMagic.size();
  // Record: u32 payload size (type byte included), u32 checksum, type byte, payload.
  while (bytes.size() - offset >= 8) {
    std::uint32_t size = read_u32(bytes, offset);
    std::uint32_t sum = read_u32(bytes, offset + 4);
    if (size == 0 || bytes.size() - offset - 8 < size) break;
    std::string_view body(bytes.data() + offset + 8, size);
    if (checksum(body) != sum) break;
    contents.records.push_back({static_cast<RecordType>(body[0]), std::string(body.substr(1))});
    offset += 8 + size;
  }
  contents.valid_bytes = offset;
  contents.torn_tail = offset != bytes.size();
  return contents;
}

JournalWriter::JournalWriter(const std::string& path, bool append, std::uint64_t valid_bytes)
    : path_(path) {
  // A new journal is written beside its name and renamed onto it by the first flush, so it
  // appears with its magic and first records whole: a sweep killed before (kill -9 in its first
  // milliseconds) leaves no journal, and --resume starts afresh (it had journaled nothing),
  // where an empty or header-less journal would stop every resume.
  if (!append) unplaced_path_ = path + ".new";
  const std::string& open_path = append ? path : unplaced_path_;
  // O_APPEND: every write lands whole at the end of the file, never over an earlier record.
  // 0666 less the umask: group-writable under umask 002, so a teammate can resume the sweep.
  fd_ = ::open(open_path.c_str(),
               O_WRONLY | O_CREAT | O_APPEND | (append ? 0 : O_TRUNC) | O_CLOEXEC, 0666);
  if (fd_ < 0) fail_errno(path, "cannot open the sweep journal for writing");
  if (append) {
    // Drop a torn tail so new records follow the last whole one.
    if (::ftruncate(fd_, static_cast<off_t>(valid_bytes)) != 0) fail_errno(path, "cannot truncate");
  } else {
    buffer_.assign(kMagic);
  }
}

JournalWriter::~JournalWriter() {
  try {
    flush();
  } catch (...) {
    // Destructors must not throw; whatever was not written is rerun on resume.
  }
  if (fd_ >= 0) ::close(fd_);
  // A journal never put in place (its first write failed) holds nothing a resume needs.
  if (!unplaced_path_.empty()) ::unlink(unplaced_path_.c_str());
}

void JournalWriter::add(RecordType type, std::string_view payload) {
  // The record's size field is 32 bits: a larger record would wrap it and corrupt the journal.
  if (payload.size() >= kMaxJournalRecordBytes) {
    throw std::length_error(path_ + ": a journal record of " + std::to_string(payload.size()) +
                            " bytes is over the limit of " +
                            std::to_string(kMaxJournalRecordBytes) + " bytes");
  }
  std::string body;
  body.reserve(payload.size() + 1);
  body.push_back(static_cast<char>(type));
  body.append(payload);
  append_u32(buffer_, static_cast<std::uint32_t>(body.size()));
  append_u32(buffer_, checksum(body));
  buffer_ += body;
}

void JournalWriter::flush() {
  // One write() for the whole batch of whole records (a regular file takes it whole unless the
  // disk is full); a remainder after a short write is appended right after it.
  std::size_t written = 0;
  while (written < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      // A later flush (the destructor's) goes on after what did reach the file, so a record
      // torn by a full disk is not followed by a second copy of its first bytes.
      const int error = errno;
      buffer_.erase(0, written);
      errno = error;
      fail_errno(path_, "cannot write the sweep journal");
    }
    written += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  if (!unplaced_path_.empty()) {
    if (::rename(unplaced_path_.c_str(), path_.c_str()) != 0)
      fail_errno(path_, "cannot put the new sweep journal in place");
    unplaced_path_.clear();
  }
}

void JournalWriter::sync() {
  flush();
  if (::fdatasync(fd_) != 0) fail_errno(path_, "cannot sync the sweep journal");
}

}  // namespace clustersim::sweep
