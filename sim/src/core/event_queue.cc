#include "core/event_queue.h"

#include <utility>

namespace clustersim::internal {

bool EventQueue::before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.rank != b.rank) return a.rank < b.rank;
  if (a.subject != b.subject) return a.subject < b.subject;
  return a.sequence < b.sequence;
}

void EventQueue::push(Time time, std::uint8_t rank, std::uint32_t subject, std::uint32_t tag) {
  heap_.push_back(Event{time, rank, subject, tag, next_sequence_++});
  sift_up(heap_.size() - 1);
}

Event EventQueue::pop() {
  Event top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return top;
}

void EventQueue::sift_up(std::size_t i) {
  Event moving = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  Event moving = heap_[i];
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], moving)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = moving;
}

}  // namespace clustersim::internal
