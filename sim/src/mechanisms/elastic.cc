#include "mechanisms/elastic.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "decider/decision_stages.h"
#include "decider/type_choice.h"
#include "mechanisms/keys.h"

namespace clustersim::internal {

void Elastic::bind(DecisionStages& stages) {
  decision_ = &stages;
  view_ = &stages.view();
  planned_ = std::make_unique<PlannedLedger>(view_->cluster());
}

bool Elastic::ranks_before(std::uint32_t a, std::uint32_t b) const {
  return decision_->ordering().before(a, b);
}

bool Elastic::after_pass(Plan& plan) {
  if (decision_->queue_empty()) return false;
  const std::uint32_t head = decision_->head();
  if (!decision_->released() && head == shrink_tried_for_) return false;
  shrink_tried_for_ = head;
  return shrink_for(head, plan);
}

bool Elastic::use_idle(Plan& plan) {
  if (!decision_->queue_empty() || !(decision_->released() || decision_->started())) return false;
  return grow(plan, !decision_->released());
}

template <typename Keep>
void Elastic::collect(int type, Keep keep) {
  jobs_.clear();
  for (std::uint32_t job : view().holders()) {
    if (view().jobs()[job].phase != JobPhase::kRunning || !view().resizable(job)) continue;
    if ((type < 0 || view().type_held(job) == type) && keep(view().jobs()[job]))
      jobs_.push_back(job);
  }
  std::sort(jobs_.begin(), jobs_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return ranks_before(a, b); });
}

bool Elastic::shrink_for(std::uint32_t waiting, Plan& plan) {
  const JobState& head = view().jobs()[waiting];
  const ClusterState& cluster = view().cluster();
  int type = head.gpu_type;
  if (type < 0)
    type = type_with_most(
        static_cast<int>(cluster.gpu_type_names().size()),
        [&](int t) { return cluster.free_gpus(t); },
        [&](int t) { return view().type_speed(waiting, t) > 0.0; });
  const int need = head.gpus - cluster.free_gpus(type);
  if (need <= 0) return false;
  const Admission& admission = decision_->admission();
  if (admission.strict() && !admission.within_quota(head, view().vc_usage()))
    return false;  // its quota, not GPUs, holds it back
  if (decision_->placement().request_of(waiting).fewest_nodes)
    return shrink_on_one_node(waiting, type, plan);
  collect(type, [&](const JobState& job) { return job.gpus > view().min_gpus(job.index); });
  // Lowest-ranked first: what they hold beyond their request, then (only those ranked after the
  // waiting job) down to their minimum.
  std::reverse(jobs_.begin(), jobs_.end());
  cut_.assign(jobs_.size(), 0);
  int left = need;
  for (std::size_t i = 0; i < jobs_.size() && left > 0; ++i) {
    const JobState& job = view().jobs()[jobs_[i]];
    cut_[i] = std::min(left, std::max(0, job.gpus - job.spec->num_gpus));
    left -= cut_[i];
  }
  for (std::size_t i = 0; i < jobs_.size() && left > 0; ++i) {
    const JobState& job = view().jobs()[jobs_[i]];
    if (!ranks_before(waiting, job.index)) continue;
    const int floor = view().min_gpus(job.index);
    const int more = std::min(left, job.gpus - cut_[i] - floor);
    if (more <= 0) continue;
    cut_[i] += more;
    left -= more;
  }
  if (left > 0) return false;
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    if (cut_[i] == 0) continue;
    // Take from its smallest pieces first: it keeps to the fewest nodes.
    const auto held = view().grants_of(jobs_[i]);
    grants_.assign(held.begin(), held.end());
    std::sort(grants_.begin(), grants_.end(), [](const Grant& a, const Grant& b) {
      return a.gpus != b.gpus ? a.gpus < b.gpus : a.node < b.node;
    });
    plan.set(jobs_[i]);
    int cut = cut_[i];
    for (const Grant& grant : grants_) {
      const int take = std::min(cut, grant.gpus);
      cut -= take;
      if (take == grant.gpus) continue;
      const double kept = static_cast<double>(grant.gpus - take) / grant.gpus;
      plan.add_grant({grant.node, grant.gpus - take, grant.cpus * kept, grant.mem_gb * kept,
                      grant.storage_mbps * kept});
    }
  }
  return true;
}

// Strict locality: GPUs freed across nodes would not let the waiting job start (it needs them
// on one node), so they are taken on one node only: the node that needs the fewest GPUs given
// back, from its lowest-ranked elastic jobs; nothing when no node can hold the job that way.
bool Elastic::shrink_on_one_node(std::uint32_t waiting, int type, Plan& plan) {
  const JobState& head = view().jobs()[waiting];
  const ClusterState& cluster = view().cluster();
  if (decision_->placement().fewest_nodes(type, head.gpus) > 1) return false;
  // How many GPUs `job` can give back from its grant on `node`.
  const auto cuttable = [&](std::uint32_t job, std::uint32_t node) {
    const JobState& state = view().jobs()[job];
    const int floor = ranks_before(waiting, job)
                          ? view().min_gpus(job)
                          : std::max(view().min_gpus(job), state.spec->num_gpus);
    for (const Grant& grant : view().grants_of(job))
      if (grant.node == node) return std::max(0, std::min(grant.gpus, state.gpus - floor));
    return 0;
  };
  std::uint32_t best = 0;
  int best_need = INT_MAX;
  for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n) {
    const auto& node = cluster.node(n);
    if (node.gpu_type != type || node.gpus < head.gpus || view().node_offline(n)) continue;
    const int need = head.gpus - node.free_gpus;
    if (need <= 0 || need >= best_need) continue;
    int available = 0;
    for (std::uint32_t job : view().holders_on(n)) {
      if (view().jobs()[job].phase != JobPhase::kRunning || !view().resizable(job)) continue;
      available += cuttable(job, n);
    }
    if (available >= need) {
      best = n;
      best_need = need;
    }
  }
  if (best_need == INT_MAX) return false;
  jobs_.clear();
  for (std::uint32_t job : view().holders_on(best))
    if (view().jobs()[job].phase == JobPhase::kRunning && view().resizable(job) &&
        cuttable(job, best) > 0)
      jobs_.push_back(job);
  std::sort(jobs_.begin(), jobs_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return ranks_before(b, a); });
  int left = best_need;
  for (std::uint32_t job : jobs_) {  // lowest-ranked first
    if (left <= 0) break;
    const int take = std::min(left, cuttable(job, best));
    left -= take;
    plan.set(job);
    for (const Grant& grant : view().grants_of(job)) {
      if (grant.node != best) {
        plan.add_grant(grant);
      } else if (take < grant.gpus) {
        const double kept = static_cast<double>(grant.gpus - take) / grant.gpus;
        plan.add_grant({grant.node, grant.gpus - take, grant.cpus * kept, grant.mem_gb * kept,
                        grant.storage_mbps * kept});
      }
    }
  }
  return true;
}

bool Elastic::grow(Plan& plan, bool only_not_begun) {
  const ClusterState& cluster = view().cluster();
  if (cluster.free_gpus() == 0) return false;
  collect(-1, [&](const JobState& job) {
    return job.gpus < view().max_gpus(job.index) &&
           (!only_not_begun || view().not_begun(job.index));
  });
  if (jobs_.empty()) return false;
  planned_->clear();
  const Admission& admission = decision_->admission();
  const bool strict_quota = admission.strict();
  const auto held_now = view().vc_usage();
  std::vector<double> usage(held_now.begin(), held_now.end());
  const Time now = view().now();
  bool grew = false;
  for (std::uint32_t index : jobs_) {
    const JobState& job = view().jobs()[index];
    const int type = view().type_held(index);
    int want = view().max_gpus(index) - job.gpus;
    if (strict_quota)
      want = std::min(want, static_cast<int>(admission.quota()[job.vc] - usage[job.vc]));
    if (want <= 0 || cluster.free_gpus(type) == 0) continue;
    PlacementRequest request = decision_->placement().request_of(index);
    request.gpu_type = type;
    const std::size_t mark = planned_->mark();
    int added = 0;
    // The most of `room` GPUs of `node` whose resources fit next to what is planned.
    const auto extra_on = [&](std::uint32_t node, int room, Grant& extra) {
      for (int gpus = std::min(room, planned_->free_gpus(node)); gpus > 0; --gpus) {
        extra = cluster.grant_for(node, request, gpus);
        if (planned_->fits(extra)) return true;
      }
      return false;
    };
    const auto held = view().grants_of(index);
    grants_.assign(held.begin(), held.end());
    for (Grant& grant : grants_) {  // its own nodes first: no new node to span
      Grant extra;
      if (added == want || !extra_on(grant.node, want - added, extra)) continue;
      planned_->take(extra);
      grant.gpus += extra.gpus;
      grant.cpus += extra.cpus;
      grant.mem_gb += extra.mem_gb;
      grant.storage_mbps += extra.storage_mbps;
      added += extra.gpus;
    }
    if (added < want && !view().options().strict_locality) {  // the roomiest others
      nodes_.clear();
      for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n) {
        if (cluster.node(n).gpu_type != type || cluster.node(n).free_gpus == 0) continue;
        bool own = false;
        for (const Grant& grant : held) own = own || grant.node == n;
        if (!own) nodes_.push_back(n);
      }
      std::sort(nodes_.begin(), nodes_.end(), [&](std::uint32_t a, std::uint32_t b) {
        const int fa = planned_->free_gpus(a), fb = planned_->free_gpus(b);
        return fa != fb ? fa > fb : a < b;
      });
      for (std::uint32_t n : nodes_) {
        Grant extra;
        if (added == want) break;
        if (!extra_on(n, want - added, extra)) continue;
        planned_->take(extra);
        grants_.push_back(extra);
        added += extra.gpus;
      }
    }
    if (added == 0) continue;
    // Worth it only if it finishes sooner, the resize's pause included.
    const double left = job.remaining_at(now);
    const double grown_rate = view().rate_if(index, grants_);
    if (!(left / grown_rate + view().expected_overhead_s(OverheadKind::kResize, index) <
          left / job.rate)) {
      planned_->rollback(mark);
      continue;
    }
    plan.set(index);
    for (const Grant& grant : grants_) plan.add_grant(grant);
    usage[job.vc] += added;
    grew = true;
  }
  return grew;
}

}  // namespace clustersim::internal

namespace clustersim::options {

// ---- Elastic jobs ----
void declare_elastic_keys(KeyRegistry& keys) {
  mechanism_key(
      keys, "elastic", "elastic", [](auto& o) -> auto& { return o.mechanisms.elastic; })
      .doc(
          "Jobs with `min_gpus < max_gpus` shrink to admit jobs ranked before them and grow "
          "into idle GPUs.");
  mechanism_key(
      keys, "elastic", "parallel_fraction",
      [](auto& o) -> auto& { return o.mechanisms.parallel_fraction; })
      .range(0.0, 1.0)
      .doc(
          "Elastic speed-up with g GPUs by Amdahl's law, 1 / ((1 - p) + p / g), for models "
          "without a `[mechanisms.scaling]` table.");
  custom(keys, "mechanisms.scaling", KeyType::kTable)
      .component("mechanism elastic")
      .training_only()
      .default_note("none")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        for (const auto& [model, points] : o.mechanisms.scaling) {
          if (points.empty()) return "model '" + model + "': expected [[GPUs, speed-up], ...]";
          for (std::size_t i = 0; i < points.size(); ++i)
            if (points[i].first < 1 || !(points[i].second > 0.0) ||
                !std::isfinite(points[i].second) ||
                (i > 0 && points[i].first <= points[i - 1].first))
              return "model '" + model +
                     "': expected [GPUs, speed-up] pairs: GPUs >= 1 ascending, speed-ups > 0";
        }
        return "";
      })
      .doc(
          "`[mechanisms.scaling] MODEL = [[gpus, speedup], ...]`: a model's speed-up with that "
          "many GPUs, relative to 1 GPU (GPUs >= 1 ascending, speed-ups > 0; interpolated "
          "linearly, flat beyond the ends), instead of Amdahl's law.");
}

}  // namespace clustersim::options
