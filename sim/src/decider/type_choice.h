// The one rule for the GPU type of a job that names none: the type with the most room, the type
// listed first on ties ([scheduler] type_choice = "most_free", the default). Where the throughput
// model makes speed depend on the type (View::type_speed), a job never goes to a type it cannot
// run on, and a start may order the types by speed instead: "fastest" (the job's fastest type
// with room, then most room) or "speedup" (the type where the job's speed, relative to its best
// type, most exceeds that of the jobs arrived so far: each type goes to the jobs that gain most
// from it, as Gavel's heterogeneity-aware policies do in the LP). "Room" is what the caller counts
// (free GPUs for a start; idle GPUs not yet claimed, then capacity, in a preemption round). A job
// never mixes GPU types. Every decision that picks a type for an untyped job (starts, rounds,
// elastic shrinking, migration) uses it.
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

// type_with_most over the types a job may run on (`allowed(t)`); -1 when none is allowed.
template <typename Room, typename Allowed>
int type_with_most(int types, Room room, Allowed allowed) {
  int best = -1;
  for (int t = 0; t < types; ++t)
    if (allowed(t) && (best < 0 || room(t) > room(best))) best = t;
  return best;
}

// The types with room for `gpus` GPUs and a score > 0 (0: the job cannot run there), highest
// score first, then most room, then first listed: a start's order by speed. Fills `out`.
template <typename Room, typename Score>
void types_by_score(int types, Room room, Score score, int gpus, std::vector<int>& out) {
  out.clear();
  for (int t = 0; t < types; ++t)
    if (room(t) >= gpus && score(t) > 0.0) out.push_back(t);
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    if (score(a) != score(b)) return score(a) > score(b);
    return room(a) != room(b) ? room(a) > room(b) : a < b;
  });
}

}  // namespace clustersim::internal
