// FGD's typical pods and node fragmentation (placement_study.h), as the study's simulator
// computes them (pkg/utils/frag.go: GetTypicalPods, NodeGpuShareFragAmount).
#include <algorithm>
#include <map>
#include <tuple>

#include "clustersim/placement_study.h"

namespace clustersim {

namespace {

// A pod's shape as the study keys typical pods: CPU (as scored), GPU share, GPU count, spec.
using Shape = std::tuple<std::int64_t, std::int64_t, int, std::string>;

Shape shape_of(const StudyPod& pod) {
  return {pod.score_cpu_milli(), pod.gpu_milli, pod.num_gpus, pod.gpu_spec};
}

}  // namespace

std::vector<TypicalPod> typical_pods(std::span<const StudyPod> pods) {
  std::map<Shape, std::int64_t> counts;
  for (const StudyPod& pod : pods) ++counts[shape_of(pod)];
  std::vector<std::pair<Shape, std::int64_t>> ranked(counts.begin(), counts.end());
  // Most frequent first; equal counts: the larger shape first (CPU, share, count, spec), as the
  // study's reversed sort.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  // Shapes one at a time until they cover 95% of the pods.
  const double wanted = 95.0 * static_cast<double>(pods.size()) / 100.0;
  double covered = 0.0;
  std::size_t taken = 0;
  while (covered < wanted && taken < ranked.size()) covered += ranked[taken++].second;
  std::vector<TypicalPod> typical;
  for (std::size_t i = 0; i < taken; ++i) {
    TypicalPod t;
    const auto& [cpu, milli, gpus, spec] = ranked[i].first;
    t.pod.cpu_milli = cpu;
    t.pod.gpu_milli = milli;
    t.pod.num_gpus = gpus;
    t.pod.gpu_spec = spec;
    t.share = static_cast<double>(ranked[i].second) / covered;
    typical.push_back(std::move(t));
  }
  return typical;
}

double node_fragmentation(const StudyNode& node, std::span<const TypicalPod> typical) {
  const auto idle = static_cast<double>(node.gpu_milli_left_total());
  double fragment = 0.0;
  for (const TypicalPod& t : typical) {
    const StudyPod& pod = t.pod;
    // A CPU-only typical pod (and one the node's model excludes) can use none of the idle GPUs.
    if (pod.gpu_milli == 0 || !model_admits(pod.gpu_spec, node.model)) {
      fragment += t.share * idle;
      continue;
    }
    int usable = 0;
    std::int64_t too_small = 0;  // GPUs with less than the pod's share left
    for (const std::int64_t left : node.gpu_milli_left) {
      if (left >= pod.gpu_milli) {
        ++usable;
      } else {
        too_small += left;
      }
    }
    const bool gpus_fit = usable >= pod.num_gpus;
    const bool cpu_fits = node.cpu_milli_left >= pod.cpu_milli;
    fragment += t.share * (gpus_fit && cpu_fits ? static_cast<double>(too_small) : idle);
  }
  return fragment;
}

}  // namespace clustersim
