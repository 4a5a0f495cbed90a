// One writer per result file. A sweep (rank 0) holds an exclusive flock(2) on F.h5.lock, beside
// the result file F.h5, from before it reads or replaces anything of F.h5 until it exits; a
// second sweep (or any tool that writes F.h5 or its journal) on the same file is refused at once
// with the holder's host, pid, start time, user and Slurm job, which the lock file holds as text.
// A lock file of another user's that this one may not write (umask 022) is still locked and read
// (flock needs no write access): that user's running sweep is reported as busy too.
//
// The kernel drops the lock when its holder dies (kill -9, a node reboot on NFS lease expiry), so
// a lock file left behind by a dead sweep is simply taken over. The holder removes the file when
// it releases the lock; it unlinks it while still holding the lock, and a taker checks that the
// file it locked is still the one at the path, so two processes can never both hold it.
#pragma once

#include <stdexcept>
#include <string>

namespace clustersim::sweep {

// F.h5.lock for result file F.h5.
std::string lock_path_for(const std::string& out);

// Another live process holds the lock. what(): "F.h5: another sweep is writing this result
// file (host H, pid P, started T: COMMAND)...".
class OutputBusyError : public std::runtime_error {
 public:
  OutputBusyError(const std::string& out, const std::string& holder);
  const std::string& holder() const { return holder_; }

 private:
  std::string holder_;
};

class OutputLock {
 public:
  // Takes the lock on `out` (its folder must exist) or throws OutputBusyError. `description`
  // (host, pid, start time, command) is written into the lock file for a refused sweep's message.
  // `previous_holder` receives the description left by a dead holder that was taken over (empty
  // when there was none). Throws std::runtime_error when the lock file cannot be created.
  OutputLock(const std::string& out, const std::string& description,
             std::string* previous_holder = nullptr);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // Removes the lock file and releases the lock (the destructor does it otherwise). Safe before
  // std::_Exit, which runs no destructors.
  void release();
  // False when the file system does not support locks (Lustre without -o flock): the sweep then
  // runs unguarded, and says so.
  bool locked() const { return locked_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool locked_ = false;
};

// This process's Slurm job as squeue and the logs show it: JOB_TASK (SLURM_ARRAY_JOB_ID,
// SLURM_ARRAY_TASK_ID) for an array task, whose SLURM_JOB_ID is a raw id of its own; else
// SLURM_JOB_ID; "" outside Slurm.
std::string slurm_job_as_shown();

// "host H, pid P, started T, user U[, Slurm job J]: COMMAND" for this process (J: SLURM_JOB_ID,
// or JOB_TASK for an array task, as squeue shows it).
std::string describe_this_process(const std::string& start_time, const std::string& command_line);

}  // namespace clustersim::sweep
