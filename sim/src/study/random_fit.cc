// `random_fit` (the study's random_score.go with gpuSelMethod "random"): a node drawn uniformly
// among those that fit scores 100, the others 0; a GPU-sharing pod gets a GPU drawn uniformly
// among those it fits on, other pods the first fully free GPUs. Draws come from the run's seeded
// generator.
#include "study/factories.h"

namespace clustersim::study {

namespace {

class RandomFit final : public StudyPlacement {
 public:
  explicit RandomFit(Rng& rng) : rng_(rng) {}

  void score(std::span<const StudyNode>, std::span<const int> candidates, const StudyPod&,
             std::vector<std::int64_t>& scores) override {
    scores.assign(candidates.size(), 0);
    if (!candidates.empty()) scores[rng_.below(candidates.size())] = 100;
  }

  std::uint64_t choose_gpus(const StudyNode& node, const StudyPod& pod) override {
    if (pod.num_gpus == 0) return 0;
    if (!pod.shares_a_gpu()) return first_free_gpus(node, pod);
    std::uint64_t mask = 0;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < node.gpu_milli_left.size(); ++i) {
      if (node.gpu_milli_left[i] < pod.gpu_milli) continue;
      if (rng_.below(++seen) == 0) mask = std::uint64_t{1} << i;
    }
    return mask;
  }

 private:
  Rng& rng_;
};

}  // namespace

std::unique_ptr<StudyPlacement> make_random_fit(const StudyContext& context) {
  return std::make_unique<RandomFit>(*context.rng);
}

}  // namespace clustersim::study
