#include "core/event_queue.h"

namespace clustersim::internal {

// Bottom-up: the hole left by the top moves down along the earlier children to a leaf (one
// comparison per level), then the last event climbs back from there. The last event was pushed
// late and usually belongs near the bottom, so it rarely climbs far: fewer comparisons than a
// sift_down that also compares it at every level. The order is total, so the pops are the same.
Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
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

}  // namespace clustersim::internal
