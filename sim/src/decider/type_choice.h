// The one rule for the GPU type of a job that names none: the type with the most room, the type
// listed first on ties. "Room" is what the caller counts (free GPUs for a start; idle GPUs not yet
// claimed, then capacity, in a preemption round). A job never mixes GPU types. Every decision
// that picks a type for an untyped job (starts, rounds, elastic shrinking, migration) uses it.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

namespace clustersim::internal {

// The type with the most room among `types` types (`room(t)`); the first such on ties.
template <typename Room>
int type_with_most(int types, Room room) {
  int best = 0;
  for (int t = 1; t < types; ++t)
    if (room(t) > room(best)) best = t;
  return best;
}

// The types with room for `gpus` GPUs, most room first (first listed on ties): the order in
// which a start tries them. Fills `out`.
template <typename Room>
void types_with_room(int types, Room room, int gpus, std::vector<int>& out) {
  out.resize(static_cast<std::size_t>(types));
  std::iota(out.begin(), out.end(), 0);
  std::sort(out.begin(), out.end(),
            [&](int a, int b) { return room(a) != room(b) ? room(a) > room(b) : a < b; });
  std::size_t keep = 0;
  while (keep < out.size() && room(out[keep]) >= gpus) ++keep;
  out.resize(keep);
}

}  // namespace clustersim::internal
