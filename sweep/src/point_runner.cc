#include "clustersim/sweep/point_runner.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/version.h>
#include <sched.h>

#include <cstdlib>
#include <string>

namespace clustersim::sweep {

int choose_thread_count(int requested) {
  if (requested > 0) return requested;
  if (const char* slurm = std::getenv("SLURM_CPUS_PER_TASK")) {
    // Checked like --threads (1..4096); anything else is ignored rather than wrapped by atoi.
    char* end = nullptr;
    const long cpus = std::strtol(slurm, &end, 10);
    if (end != slurm && *end == '\0' && cpus > 0 && cpus <= 4096) return static_cast<int>(cpus);
  }
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
    int cpus = CPU_COUNT(&mask);
    if (cpus > 0) return cpus;
  }
  return std::max(1, tbb::info::default_concurrency());
}

std::string tbb_version() { return TBB_runtime_version(); }

struct PointRunner::Arena {
  // The main thread never joins the arena (it polls MPI), so no slot is reserved for it and the
  // global limit leaves room for n workers plus the main thread; otherwise TBB gives n - 1.
  explicit Arena(int threads)
      : limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads) + 1),
        arena(threads, 0) {}
  tbb::global_control limit;
  tbb::task_arena arena;
};

PointRunner::PointRunner(int threads, RunPoint run_point)
    : threads_(std::max(1, threads)),
      run_point_(std::move(run_point)),
      arena_(std::make_unique<Arena>(threads_)) {}

PointRunner::~PointRunner() {
  std::unique_lock lock(mutex_);
  completed_signal_.wait(lock, [&] { return running_ == 0; });
}

void PointRunner::submit(std::uint64_t point_id) {
  {
    std::lock_guard lock(mutex_);
    ++running_;
  }
  arena_->arena.enqueue([this, point_id] {
    PointResult result = run_point_(point_id);
    std::lock_guard lock(mutex_);
    completed_.push_back(std::move(result));
    --running_;
    completed_signal_.notify_all();
  });
}

std::size_t PointRunner::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::vector<PointResult> PointRunner::take_completed() {
  std::lock_guard lock(mutex_);
  std::vector<PointResult> results;
  results.swap(completed_);
  return results;
}

void PointRunner::wait_for_completion(std::chrono::microseconds timeout) {
  std::unique_lock lock(mutex_);
  completed_signal_.wait_for(lock, timeout, [&] { return !completed_.empty(); });
}

}  // namespace clustersim::sweep
