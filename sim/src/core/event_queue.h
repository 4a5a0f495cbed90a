// The engine's event queue: a binary heap ordered by (time, rank, subject, sequence), so events
// at the same instant are handled in one documented, deterministic order (host.h, TimerPhase).
// Storage is reused: after warm-up, pushing and popping allocate nothing. Private to the engine.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/job.h"

namespace clustersim::internal {

// Lower ranks run first among events at the same time. The engine's own job events take the
// lowest ranks (resources are freed before they are handed out again); timers of mechanisms
// and deciders take the ranks the engine assigns to their kinds (Engine::timer_rank).
struct Event {
  Time time = 0.0;
  std::uint8_t rank = 0;
  std::uint32_t subject = 0;  // a job or a node (what it is about), or 0
  std::uint32_t tag = 0;      // e.g. the job's epoch when scheduled: a stale event is dropped
  std::uint64_t sequence = 0;
};

class EventQueue {
 public:
  void reserve(std::size_t capacity) { heap_.reserve(capacity); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  void push(Time time, std::uint8_t rank, std::uint32_t subject = 0, std::uint32_t tag = 0);
  Event pop();

 private:
  static bool before(const Event& a, const Event& b);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace clustersim::internal
