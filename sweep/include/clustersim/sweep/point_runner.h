// The only file that talks oneTBB: runs a rank's points concurrently in a task_arena while the
// main thread stays free for MPI and HDF5 (MPI_THREAD_FUNNELED, HDF5 not thread-safe).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "clustersim/sweep/point_result.h"

namespace clustersim::sweep {

// --threads, else SLURM_CPUS_PER_TASK, else the CPUs in this process' affinity mask.
int choose_thread_count(int requested);
std::string tbb_version();

class PointRunner {
 public:
  using RunPoint = std::function<PointResult(std::uint64_t point_id)>;

  // `run_point` is called on arena threads, concurrently; it must not throw (errors go into the
  // result) and must not call MPI or HDF5.
  PointRunner(int threads, RunPoint run_point);
  // Waits for the points still running.
  ~PointRunner();
  PointRunner(const PointRunner&) = delete;
  PointRunner& operator=(const PointRunner&) = delete;

  int threads() const { return threads_; }
  void submit(std::uint64_t point_id);
  std::size_t running() const;
  // Results finished since the last call, in completion order.
  std::vector<PointResult> take_completed();
  // Sleeps until a point completes or `timeout` passes.
  void wait_for_completion(std::chrono::microseconds timeout);

 private:
  struct Arena;
  int threads_;
  RunPoint run_point_;
  mutable std::mutex mutex_;
  std::condition_variable completed_signal_;
  std::vector<PointResult> completed_;
  std::size_t running_ = 0;
  std::unique_ptr<Arena> arena_;
};

}  // namespace clustersim::sweep
