// `gpu_clustering` (the study's gpu_clustering_score.go): pods of a kind ("share", "1-gpu",
// "2-gpu", ...) go together. With L the node's free GPU milli, in integers:
//   only this kind on the node: 25 x (8000 - L) / 8000 + 75;
//   this kind among others: ... + 50; no GPU pod yet: ... + 25; only other kinds: ... + 0.
// A CPU-only pod scores 0 everywhere.
#include "study/factories.h"

namespace clustersim::study {

namespace {

class GpuClustering final : public BestFitGpus {
 public:
  void score(std::span<const StudyNode> nodes, std::span<const int> candidates, const StudyPod& pod,
             std::vector<std::int64_t>& scores) override {
    scores.clear();
    const std::string kind =
        pod.shares_a_gpu() ? std::string("share") : std::to_string(pod.num_gpus) + "-gpu";
    for (const int index : candidates) {
      const StudyNode& node = nodes[index];
      if (pod.num_gpus == 0) {
        scores.push_back(0);
        continue;
      }
      const std::int64_t packed = 100 / 4 * (8000 - node.gpu_milli_left_total()) / 8000;
      bool same_kind = false;
      for (const auto& [name, count] : node.affinity) same_kind |= name == kind && count > 0;
      std::int64_t base = 0;
      if (same_kind) {
        base = node.affinity.size() == 1 ? 100 * 3 / 4 : 100 * 2 / 4;
      } else if (node.affinity.empty()) {
        base = 100 / 4;
      }
      scores.push_back(packed + base);
    }
  }
};

}  // namespace

std::unique_ptr<StudyPlacement> make_gpu_clustering(const StudyContext&) {
  return std::make_unique<GpuClustering>();
}

}  // namespace clustersim::study
