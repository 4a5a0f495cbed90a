// `fgd`: Fragmentation Gradient Descent (the study's fgd_score.go). A node scores
// sigmoid((F_before - F_after) / 1000) x 100, truncated, where F is the node's fragmentation
// against the typical pods (node_fragmentation) before and after the pod lands: the node where
// fragmentation grows least wins. A GPU-sharing pod tries each GPU it fits on and keeps the best
// (the first of equals); other pods land as the study's NodeResource.Sub packs them (the
// tightest GPUs first) and get the first fully free GPUs.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "study/factories.h"

namespace clustersim::study {

namespace {

std::int64_t fgd_score(double before, double after) {
  const double sigmoid = 1.0 / (1.0 + std::exp(-(before - after) / 1000.0));
  return static_cast<std::int64_t>(sigmoid * 100.0);
}

// The node once the pod has landed on it as the study's Sub() computes it (CPU as scored).
StudyNode packed(const StudyNode& node, const StudyPod& pod) {
  StudyNode out = node;
  out.cpu_milli_left -= pod.score_cpu_milli();
  std::vector<std::size_t> order(out.gpu_milli_left.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return out.gpu_milli_left[a] < out.gpu_milli_left[b];
  });
  int wanted = pod.num_gpus;
  for (const std::size_t i : order) {
    if (wanted <= 0) break;
    if (out.gpu_milli_left[i] >= pod.gpu_milli) {
      out.gpu_milli_left[i] -= pod.gpu_milli;
      --wanted;
    }
  }
  return out;
}

class Fgd final : public StudyPlacement {
 public:
  explicit Fgd(std::span<const TypicalPod> typical) : typical_(typical.begin(), typical.end()) {}

  void score(std::span<const StudyNode> nodes, std::span<const int> candidates, const StudyPod& pod,
             std::vector<std::int64_t>& scores) override {
    scores.clear();
    if (memo_.size() < nodes.size()) memo_.resize(nodes.size());
    for (const int index : candidates) scores.push_back(remembered(nodes[index], index, pod).score);
  }

  void node_changed(int node) override {
    if (static_cast<std::size_t>(node) < memo_.size()) memo_[node].clear();
  }

  std::uint64_t choose_gpus(const StudyNode& node, const StudyPod& pod) override {
    if (pod.num_gpus == 0) return 0;
    if (pod.shares_a_gpu()) return best(node, pod).gpu_mask;  // scored again: no index here
    return first_free_gpus(node, pod);
  }

 private:
  struct Choice {
    std::int64_t score = 0;
    std::uint64_t gpu_mask = 0;
  };
  // A node's score for a pod of a shape stays the same until a pod lands on the node: scoring
  // every node for every pod would cost nodes x GPUs x typical pods each time.
  Choice remembered(const StudyNode& node, int index, const StudyPod& pod) {
    if (pod.shape < 0) return best(node, pod);
    auto& memo = memo_[index];
    if (const auto hit = memo.find(pod.shape); hit != memo.end()) return hit->second;
    const Choice choice = best(node, pod);
    memo.emplace(pod.shape, choice);
    return choice;
  }

  Choice best(const StudyNode& node, const StudyPod& pod) const {
    const double before = node_fragmentation(node, typical_);
    if (!pod.shares_a_gpu())
      return {fgd_score(before, node_fragmentation(packed(node, pod), typical_)), 0};
    Choice choice;
    bool found = false;
    StudyNode trial = node;
    trial.cpu_milli_left -= pod.score_cpu_milli();
    for (std::size_t i = 0; i < node.gpu_milli_left.size(); ++i) {
      if (node.gpu_milli_left[i] < pod.gpu_milli) continue;
      trial.gpu_milli_left[i] -= pod.gpu_milli;
      const std::int64_t score = fgd_score(before, node_fragmentation(trial, typical_));
      trial.gpu_milli_left[i] += pod.gpu_milli;
      if (!found || score > choice.score) {
        choice = {score, std::uint64_t{1} << i};
        found = true;
      }
    }
    return choice;
  }

  std::vector<TypicalPod> typical_;
  std::vector<std::unordered_map<int, Choice>> memo_;  // by node: shape -> its choice
};

}  // namespace

std::unique_ptr<StudyPlacement> make_fgd(const StudyContext& context) {
  return std::make_unique<Fgd>(context.typical);
}

}  // namespace clustersim::study
