// The placement study's placements (placement_study.h), one file each; registry.cc names them.
#pragma once

#include <memory>

#include "clustersim/placement_study.h"

namespace clustersim::study {

std::unique_ptr<StudyPlacement> make_fgd(const StudyContext& context);
std::unique_ptr<StudyPlacement> make_best_fit(const StudyContext& context);
std::unique_ptr<StudyPlacement> make_dot_product(const StudyContext& context);
std::unique_ptr<StudyPlacement> make_gpu_packing(const StudyContext& context);
std::unique_ptr<StudyPlacement> make_gpu_clustering(const StudyContext& context);
std::unique_ptr<StudyPlacement> make_random_fit(const StudyContext& context);

// The study's NormalizeScore: scores mapped onto [0, 100] by (s - lowest) x 100 / (highest -
// lowest) in integers (all 0 when they are equal); used by best_fit.
void normalize_scores(std::vector<std::int64_t>& scores);

// Placements that choose the tightest GPU for a share and the first free GPUs otherwise.
class BestFitGpus : public StudyPlacement {
 public:
  std::uint64_t choose_gpus(const StudyNode& node, const StudyPod& pod) override {
    return best_fit_gpus(node, pod);
  }
};

}  // namespace clustersim::study
