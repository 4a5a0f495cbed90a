// The placement study's experiment (placement_study.h): arrivals in trace order or shuffled,
// inflated by clones, one placement attempt each, on the node list's per-GPU ledger.
#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>
#include <tuple>

#include "clustersim/placement_study.h"

namespace clustersim {

namespace {

// The arrival sequence: the workload's pods (shuffled by the seed), then, to reach
// `inflate_to` x capacity, clones of pods drawn uniformly from the workload (as the study's
// tuneUpPods: a draw whose per-GPU share would pass the target ends the cloning), or, above
// it, the workload less pods removed at random (tuneDownPods).
std::vector<std::uint32_t> arrivals(std::span<const StudyPod> pods, const StudyOptions& options,
                                    std::int64_t capacity_milli, Rng& rng) {
  std::vector<std::uint32_t> order(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  if (options.shuffle)
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  if (!(options.inflate_to > 0.0) || pods.empty()) return order;
  std::int64_t demand = 0;
  for (const StudyPod& pod : pods) demand += pod.total_gpu_milli();
  const double target = options.inflate_to * static_cast<double>(capacity_milli);
  while (static_cast<double>(demand) > target && !order.empty()) {
    const std::size_t drop = rng.below(order.size());
    demand -= pods[order[drop]].total_gpu_milli();
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  while (true) {
    const std::uint32_t copy = static_cast<std::uint32_t>(rng.below(pods.size()));
    // The study compares with the per-GPU share but adds the pod's whole demand: kept as it is,
    // so that the arrival sequences are alike.
    if (static_cast<double>(demand + pods[copy].gpu_milli) > target) break;
    demand += pods[copy].total_gpu_milli();
    order.push_back(copy);
  }
  return order;
}

}  // namespace

StudyRun run_placement_study(const NodeList& list, std::span<const JobSpec> jobs,
                             const StudyOptions& options) {
  std::vector<StudyNode> nodes = study_nodes(list);
  std::int64_t capacity_milli = 0;
  for (const StudyNode& node : nodes) capacity_milli += node.gpu_milli_left_total();
  if (capacity_milli <= 0)
    throw std::invalid_argument("the placement study needs GPUs: the node list " + list.source +
                                " has none");

  std::vector<StudyPod> pods;
  pods.reserve(jobs.size());
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, int, std::string>, int> shapes;
  for (const JobSpec& job : jobs) {
    StudyPod pod = study_pod(job);
    const auto key =
        std::make_tuple(pod.cpu_milli, pod.memory_mib, pod.gpu_milli, pod.num_gpus, pod.gpu_spec);
    pod.shape = shapes.emplace(key, static_cast<int>(shapes.size())).first->second;
    pods.push_back(std::move(pod));
  }
  const std::vector<TypicalPod> typical = typical_pods(pods);
  Rng rng(options.seed);
  // Separate streams: the arrival sequence does not depend on the placement's draws.
  Rng placement_rng(stream_seed(options.seed, 0xf6d0ULL));
  const std::vector<std::uint32_t> order = arrivals(pods, options, capacity_milli, rng);
  std::unique_ptr<StudyPlacement> placement =
      make_study_placement(options.placement, StudyContext{typical, &placement_rng});

  std::vector<double> fragment(nodes.size());
  double fragment_total = 0.0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    fragment[i] = node_fragmentation(nodes[i], typical);
    fragment_total += fragment[i];
  }
  const auto capacity = static_cast<double>(capacity_milli);

  StudyRun run;
  RunResult& result = run.result;
  result.jobs.resize(order.size());
  result.samples.reserve(order.size());
  run.workload_index = order;
  std::int64_t arrived_milli = 0, allocated_milli = 0, unplaced_milli = 0;
  double frag_rate_sum = 0.0, alloc_ratio_sum = 0.0;
  std::vector<int> candidates;
  std::vector<std::int64_t> scores;
  for (std::size_t a = 0; a < order.size(); ++a) {
    const StudyPod& pod = pods[order[a]];
    JobRecord& record = result.jobs[a];
    record.index = static_cast<std::uint32_t>(a);
    record.num_gpus = pod.num_gpus;
    arrived_milli += pod.total_gpu_milli();
    candidates.clear();
    for (std::size_t n = 0; n < nodes.size(); ++n)
      if (pod_fits(nodes[n], pod)) candidates.push_back(static_cast<int>(n));
    if (candidates.empty()) {
      record.rejected = true;
      ++result.metrics.rejected;
      unplaced_milli += pod.total_gpu_milli();
    } else {
      placement->score(nodes, candidates, pod, scores);
      std::size_t best = 0;  // the highest score; ties go to the node listed first
      for (std::size_t c = 1; c < candidates.size(); ++c)
        if (scores[c] > scores[best]) best = c;
      const int chosen = candidates[best];
      StudyNode& node = nodes[chosen];
      const std::uint64_t mask = placement->choose_gpus(node, pod);
      if (std::popcount(mask) != pod.num_gpus)
        throw std::logic_error("placement study: the GPU choice does not match the pod");
      place_on(node, pod, mask);
      placement->node_changed(chosen);
      fragment_total -= fragment[chosen];
      fragment[chosen] = node_fragmentation(node, typical);
      fragment_total += fragment[chosen];
      allocated_milli += pod.total_gpu_milli();
      record.start_time = record.finish_time = 0.0;
      record.node = chosen;
      record.gpu_mask = static_cast<int>(mask);
      record.nodes = 1;
      ++result.metrics.jobs;
    }
    Sample sample;
    sample.time = static_cast<double>(arrived_milli) / capacity;
    sample.alloc_ratio = static_cast<double>(allocated_milli) / capacity;
    sample.unallocated_share = 1.0 - sample.alloc_ratio;
    const auto idle = static_cast<double>(capacity_milli - allocated_milli);
    sample.frag_rate = idle > 0.0 ? fragment_total / idle : 0.0;
    sample.running_jobs = static_cast<int>(result.metrics.jobs);
    frag_rate_sum += sample.frag_rate;
    alloc_ratio_sum += sample.alloc_ratio;
    result.samples.push_back(sample);
  }
  if (!order.empty()) {
    result.metrics.frag_rate_mean = frag_rate_sum / static_cast<double>(order.size());
    result.metrics.alloc_ratio_mean = alloc_ratio_sum / static_cast<double>(order.size());
  }
  result.metrics.unplaced_share =
      arrived_milli > 0 ? static_cast<double>(unplaced_milli) / static_cast<double>(arrived_milli)
                        : 0.0;
  result.metrics.window_jobs = order.size();
  result.metrics.window_last = order.empty() ? 0 : order.size() - 1;
  return run;
}

}  // namespace clustersim
