// `best_fit` (the study's best_fit_score.go): 100 x (1 - the node's CPU and GPU left after the
// pod, each over the largest node's (128 cores, 8 GPUs), weighted 1/2 each), truncated, then
// normalised over the fitting nodes (normalize_scores).
#include "study/factories.h"

namespace clustersim::study {

namespace {

constexpr double kMaxSpecCpuMilli = 128000.0;
constexpr double kMaxSpecGpuMilli = 8000.0;

class BestFit final : public BestFitGpus {
 public:
  void score(std::span<const StudyNode> nodes, std::span<const int> candidates, const StudyPod& pod,
             std::vector<std::int64_t>& scores) override {
    scores.clear();
    for (const int index : candidates) {
      const StudyNode& node = nodes[index];
      const double cpu_after =
          static_cast<double>(node.cpu_milli_left) - static_cast<double>(pod.score_cpu_milli());
      const double gpu_after = static_cast<double>(node.gpu_milli_left_total()) -
                               static_cast<double>(pod.total_gpu_milli());
      double slack = 0.0;
      slack += cpu_after / kMaxSpecCpuMilli * 0.5;
      slack += gpu_after / kMaxSpecGpuMilli * 0.5;
      scores.push_back(static_cast<std::int64_t>((1.0 - slack) * 100.0));
    }
    normalize_scores(scores);
  }
};

}  // namespace

void normalize_scores(std::vector<std::int64_t>& scores) {
  if (scores.empty()) return;
  std::int64_t highest = scores.front(), lowest = scores.front();
  for (const std::int64_t s : scores) {
    highest = std::max(highest, s);
    lowest = std::min(lowest, s);
  }
  for (std::int64_t& s : scores)
    s = highest == lowest ? 0 : (s - lowest) * 100 / (highest - lowest);
}

std::unique_ptr<StudyPlacement> make_best_fit(const StudyContext&) {
  return std::make_unique<BestFit>();
}

}  // namespace clustersim::study
