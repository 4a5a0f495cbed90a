#include "clustersim/sweep/output_lock.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "clustersim/error.h"
#include "errno_error.h"

namespace clustersim::sweep {

namespace {

std::string read_all(int fd) {
  std::string text;
  char buffer[1024];
  off_t offset = 0;
  while (text.size() < 4096) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

// A holder writes its description right after it takes the lock; give it a moment.
std::string read_holder(int fd) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::string text = read_all(fd);
    if (!text.empty()) return text;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return "a process that has not yet written its name";
}

bool same_file(int fd, const std::string& path) {
  struct stat opened {
  }, named{};
  if (::fstat(fd, &opened) != 0 || ::stat(path.c_str(), &named) != 0) return false;
  return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

bool locks_unsupported(int error) {
  return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL;
}

}  // namespace

std::string lock_path_for(const std::string& out) { return out + ".lock"; }

OutputBusyError::OutputBusyError(const std::string& out, const std::string& holder)
    : std::runtime_error(out + ": another sweep is writing this result file (" +
                         excerpt(holder, 300) + "; lock " + lock_path_for(out) +
                         "). Wait for it to finish, stop it, or write to another --out"),
      holder_(holder) {}

OutputLock::OutputLock(const std::string& out, const std::string& description,
                       std::string* previous_holder)
    : path_(lock_path_for(out)) {
  if (previous_holder) previous_holder->clear();
  // A few rounds: the file may be unlinked by a releasing holder between our open and flock.
  for (int attempt = 0; attempt < 100; ++attempt) {
    // 0666 less the umask: in a group folder (umask 002) a teammate can take the lock over.
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    bool writable = fd_ >= 0;
    if (fd_ < 0 && (errno == EACCES || errno == EPERM)) {
      // Another user's lock file (a sweep of theirs, running or dead): flock needs no write
      // access, so it still tells whether that sweep runs, and names it if it does.
      fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) {
        errno = EACCES;
        fail_errno(path_, "cannot create the lock file");
      }
    }
    if (fd_ < 0) fail_errno(path_, "cannot create the lock file");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      if (error == EWOULDBLOCK) {
        std::string holder = read_holder(fd_);
        ::close(fd_);
        fd_ = -1;
        throw OutputBusyError(out, holder);
      }
      if (!locks_unsupported(error)) {
        errno = error;
        fail_errno(path_, "cannot lock");
      }
      locked_ = false;  // the sweep runs unguarded; the caller warns
    } else {
      locked_ = true;
      if (!same_file(fd_, path_)) {  // released and removed under us: lock the new file
        ::close(fd_);
        fd_ = -1;
        continue;
      }
    }
    if (previous_holder) *previous_holder = read_all(fd_);
    // A dead holder's file we may not write (another user's, umask 022): we hold its lock all
    // the same; the name in it stays the dead holder's.
    if (!writable) return;
    const std::string text = description + "\n";
    if (::ftruncate(fd_, 0) != 0 ||
        ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
      const int error = errno;
      release();
      errno = error;
      fail_errno(path_, "cannot write the lock file");
    }
    return;
  }
  throw std::runtime_error(path_ +
                           ": the lock file keeps being replaced; is another sweep "
                           "starting and stopping on this file?");
}

OutputLock::~OutputLock() { release(); }

void OutputLock::release() {
  if (fd_ < 0) return;
  // Unlink before unlocking: whoever locks the old file afterwards sees that it is gone.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

std::string slurm_job_as_shown() {
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (array_job && array_task && *array_job && *array_task)
    return std::string(array_job) + "_" + array_task;
  const char* id = std::getenv("SLURM_JOB_ID");
  return id ? id : "";
}

std::string describe_this_process(const std::string& start_time, const std::string& command_line) {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown");
  std::string user = "uid " + std::to_string(::geteuid());
  if (const passwd* entry = ::getpwuid(::geteuid())) user = entry->pw_name;
  const std::string job = slurm_job_as_shown();
  // Appended after the start time: "host H, pid P, started T" is the older form, which
  // scripts may match.
  return "host " + std::string(host) + ", pid " + std::to_string(::getpid()) + ", started " +
         start_time + ", user " + user + (job.empty() ? "" : ", Slurm job " + job) + ": " +
         excerpt(command_line, 200);
}

}  // namespace clustersim::sweep
