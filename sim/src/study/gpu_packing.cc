// `gpu_packing` (the study's gpu_packing_score.go): prefer GPUs already shared, then free GPUs on
// a node already in use, then an idle node:
//   - idle node (every GPU fully free): max(33 - free GPUs, free GPUs);
//   - the pod needs fully free GPUs (taking the tightest GPUs that fit): max(50 - those, 33);
//   - only shared GPUs: max(100 - (sum of their free percent) / 10, 50).
// A CPU-only pod scores 0 everywhere.
#include <algorithm>
#include <numeric>

#include "study/factories.h"

namespace clustersim::study {

namespace {

std::int64_t packing_score(const StudyNode& node, const StudyPod& pod) {
  const int free_gpus = node.fully_free_gpus();
  if (free_gpus == static_cast<int>(node.gpu_milli_left.size()))
    return std::max<std::int64_t>(100 / 3 - free_gpus, free_gpus);
  std::vector<std::size_t> order(node.gpu_milli_left.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return node.gpu_milli_left[a] < node.gpu_milli_left[b];
  });
  int wanted = pod.num_gpus;
  int free_used = 0;
  std::int64_t free_percent_of_used = 0;
  for (const std::size_t i : order) {
    if (wanted == 0) break;
    const std::int64_t left = node.gpu_milli_left[i];
    if (pod.gpu_milli <= left) {
      --wanted;
      free_percent_of_used += left * 100 / 1000;
      if (left == 1000) ++free_used;
    }
  }
  if (wanted != 0) return 0;
  if (free_used > 0) return std::max<std::int64_t>(100 / 2 - free_used, 100 / 3);
  return std::max<std::int64_t>(100 - free_percent_of_used / 10, 100 / 2);
}

class GpuPacking final : public BestFitGpus {
 public:
  void score(std::span<const StudyNode> nodes, std::span<const int> candidates, const StudyPod& pod,
             std::vector<std::int64_t>& scores) override {
    scores.clear();
    for (const int index : candidates)
      scores.push_back(pod.gpu_milli <= 0 ? 0 : packing_score(nodes[index], pod));
  }
};

}  // namespace

std::unique_ptr<StudyPlacement> make_gpu_packing(const StudyContext&) {
  return std::make_unique<GpuPacking>();
}

}  // namespace clustersim::study
