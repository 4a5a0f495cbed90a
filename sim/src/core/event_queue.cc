#include "core/event_queue.h"

namespace clustersim::internal {

// Small heaps (the common case: about one event per running job) pop bottom-up: the hole left
// by the top moves down along the earlier children to a leaf (one comparison per level), then
// the last event climbs back from there; it was pushed late and belongs near the bottom, so it
// rarely climbs far. Large heaps (tens of thousands of running jobs, or many stale events) out
// of cache pop with a plain sift-down, which stops a level or two above the leaves instead of
// reaching them (measured: 2,048 events, 3M pop-and-push pairs, 87 vs 92 ns per pair for
// bottom-up vs sift-down; 65,536 events 280 vs 235 ns; even at 8,192-16,384). The order is
// total, so either pops the same events.
Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  if (n > kBottomUpLimit) {
    heap_.front() = last;
    sift_down(0);
    return top;
  }
  std::size_t i = 0;
  for (std::size_t child = 1; child < n; child = 2 * i + 1) {
    if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;  // the earlier child
    heap_[i] = heap_[child];
    i = child;
  }
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(last, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = last;
  return top;
}

void EventQueue::sift_up(std::size_t i) {
  const Event moving = heap_[i];
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
  const Event moving = heap_[i];
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;  // the earlier child
    if (!before(heap_[child], moving)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = moving;
}

}  // namespace clustersim::internal
