// `dot_product` (Tetris' alignment, the study's dot_product_score.go with dimExtMethod "merge"
// and normMethod "max", as its experiments run it): the node's free (CPU, GPU milli) and the
// pod's request, each over the largest node's (128 cores, 8 GPUs); score 100 x (1 - their dot
// product / 2), truncated. Note the sign, kept from the study: the node whose free resources
// align least with the pod wins (Tetris itself prefers the most aligned).
#include "study/factories.h"

namespace clustersim::study {

namespace {

class DotProduct final : public BestFitGpus {
 public:
  void score(std::span<const StudyNode> nodes, std::span<const int> candidates, const StudyPod& pod,
             std::vector<std::int64_t>& scores) override {
    scores.clear();
    const double pod_cpu = static_cast<double>(pod.score_cpu_milli()) / 128000.0;
    const double pod_gpu = static_cast<double>(pod.total_gpu_milli()) / 8000.0;
    for (const int index : candidates) {
      const StudyNode& node = nodes[index];
      if (node.cpu_milli_left < pod.score_cpu_milli()) {  // the study's match groups are empty
        scores.push_back(0);
        continue;
      }
      const double node_cpu = static_cast<double>(node.cpu_milli_left) / 128000.0;
      const double node_gpu = static_cast<double>(node.gpu_milli_left_total()) / 8000.0;
      const double dot = (node_cpu * pod_cpu + node_gpu * pod_gpu) / 2.0;
      scores.push_back(static_cast<std::int64_t>(100.0 * (1.0 - dot)));
    }
  }
};

}  // namespace

std::unique_ptr<StudyPlacement> make_dot_product(const StudyContext&) {
  return std::make_unique<DotProduct>();
}

}  // namespace clustersim::study
