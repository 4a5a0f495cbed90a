// The engine's event queue: a binary heap ordered by (time, kind, job, sequence), so events at
// the same instant are handled in one documented, deterministic order. Storage is reused: after
// warm-up, pushing and popping allocate nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

// Lower kinds run first among events at the same time: resources are freed before they are
// handed out again, and the cluster is sampled after the scheduler has acted.
enum class EventKind : std::uint8_t {
  kCompletion = 0,      // a job finishes its work
  kCheckpointDone = 1,  // a preempted job has saved its state; its GPUs are released
  kRestoreDone = 2,     // a paused job (restore, migration, resize, re-launch, save) resumes
  kSaveDue = 3,         // a running job's periodic checkpoint is due
  kNodeDown = 4,        // a node fails (`job` is the node); its jobs roll back and re-queue
  kNodeUp = 5,          // a failed node is repaired
  kArrival = 6,         // (arrivals come from the sorted workload, not the heap)
  kRound = 7,           // a lease boundary: preemptive policies reconsider who runs
  kPlan = 8,            // a planning boundary (scheduler.plan_interval_s > 0)
  kDefrag = 9,          // a periodic defragmentation pass ([mechanisms] migration = "periodic")
  kSample = 10,         // time-series sample
};

struct Event {
  Time time = 0.0;
  EventKind kind = EventKind::kCompletion;
  std::uint32_t job = 0;    // job index (unused for rounds and samples)
  std::uint32_t epoch = 0;  // the job's epoch when scheduled; a stale event is dropped
  std::uint64_t sequence = 0;
};

class EventQueue {
 public:
  void reserve(std::size_t capacity) { heap_.reserve(capacity); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  void push(Time time, EventKind kind, std::uint32_t job = 0, std::uint32_t epoch = 0);
  Event pop();

 private:
  static bool before(const Event& a, const Event& b);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace clustersim
