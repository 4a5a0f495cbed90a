#include "throughput/llm_rate_model.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "options/declare.h"

namespace clustersim::internal {

namespace {
constexpr double kUnlimited = std::numeric_limits<double>::infinity();
}  // namespace

int LlmRateModel::domain_gpus(int gpu_type) const {
  return fabric_.scale_up_gpus > 0 ? fabric_.scale_up_gpus : type_domain_[gpu_type];
}

void LlmRateModel::build_fabric() {
  const ClusterState& cluster = view_->cluster();
  std::vector<int> node_gpus;
  for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n)
    node_gpus.push_back(cluster.node(n).gpus);
  topology_ = fabric_topology(fabric_, node_gpus);
  link_flows_.assign(topology_.links(), {});
  link_seen_.assign(topology_.links(), 0);
  link_left_.assign(topology_.links(), 0.0);
  link_weight_.assign(topology_.links(), 0.0);
  link_load_.assign(topology_.links(), 0.0);
}

void LlmRateModel::build_domains() {
  const ClusterState& cluster = view_->cluster();
  std::vector<int> node_gpus, node_type;
  for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n) {
    node_gpus.push_back(cluster.node(n).gpus);
    node_type.push_back(cluster.node(n).gpu_type);
  }
  if (!domains_span_nodes(node_gpus, fabric_.scale_up_gpus)) return;  // a node is a domain
  std::string wrong = scale_up_domains(node_gpus, node_type, fabric_.scale_up_gpus, domain_of_);
  if (wrong.empty() && fabric_.contention())
    wrong = domains_within_leaves(domain_of_, topology_.leaf_of);
  if (!wrong.empty()) throw std::invalid_argument("fabric.scale_up_gpus: " + wrong);
}

int LlmRateModel::least_held_per_domain(std::span<const Grant> grants) {
  if (domain_of_.empty()) {  // a node is a domain
    int held = grants.front().gpus;
    for (const Grant& grant : grants) held = std::min(held, grant.gpus);
    return held;
  }
  domain_held_.clear();
  for (const Grant& grant : grants) domain_held_.emplace_back(domain_of_[grant.node], grant.gpus);
  std::sort(domain_held_.begin(), domain_held_.end());
  int held = std::numeric_limits<int>::max();
  for (std::size_t i = 0; i < domain_held_.size();) {
    int in_domain = 0;
    const std::uint32_t domain = domain_held_[i].first;
    for (; i < domain_held_.size() && domain_held_[i].first == domain; ++i)
      in_domain += domain_held_[i].second;
    held = std::min(held, in_domain);
  }
  return held;
}

void LlmRateModel::jobs_loaded(std::size_t from) {
  const std::span<const JobState> jobs = view_->jobs();
  const ClusterState& cluster = view_->cluster();
  if (type_domain_.empty()) {
    // Without fabric.scale_up_gpus a domain is a node: the largest node of each type.
    type_domain_.assign(cluster.gpu_type_names().size(), 1);
    for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n)
      type_domain_[cluster.node(n).gpu_type] =
          std::max(type_domain_[cluster.node(n).gpu_type], cluster.node(n).gpus);
    if (fabric_.contention()) build_fabric();
    build_domains();
    // Each type's efficiency at each precision: the table's, else fabric.efficiency, else the
    // built-in one (types without a peak keep 0: peak_of refuses their LLM jobs first).
    type_efficiency_.assign(2 * cluster.gpu_type_names().size(), 0.0);
    for (std::size_t type = 0; type < cluster.gpu_type_names().size(); ++type) {
      const GpuPeak* peak = gpu_peak(cluster.gpu_type_names()[type]);
      if (!peak) continue;
      for (const Precision precision : {Precision::kBf16, Precision::kFp8}) {
        const auto entry = fabric_.efficiency_by_type.find(std::string(peak->name) + "_" +
                                                           std::string(precision_name(precision)));
        type_efficiency_[2 * type + (precision == Precision::kFp8)] =
            entry != fabric_.efficiency_by_type.end() ? entry->second
            : fabric_.efficiency > 0                  ? fabric_.efficiency
                                                      : default_llm_efficiency(*peak, precision);
      }
    }
  }
  slot_.resize(jobs.size(), -1);
  for (const auto& [index, llm] : *fabric_.llm_jobs) {
    if (index < from || index >= jobs.size()) continue;
    slot_[index] = static_cast<std::int32_t>(entries_.size());
    Entry& entry = entries_.emplace_back();
    entry.job = llm;
    entry.job_index = index;
    const int type = std::max(jobs[index].gpu_type, 0);
    entries_.back().ref_s = iteration_s(index, type, domain_gpus(type), kUnlimited);
  }
  slot_seen_.resize(entries_.size(), 0);
}

const GpuPeak& LlmRateModel::peak_of(std::uint32_t job, int gpu_type) const {
  const std::string& name = view_->cluster().gpu_type_names()[gpu_type];
  const GpuPeak* peak = gpu_peak(name);
  if (!peak) {
    const JobSpec& spec = *view_->jobs()[job].spec;
    throw std::invalid_argument(
        "fabric: GPU type '" + name + "' has no peak FLOP/s for LLM job '" + spec.id + "'" +
        (spec.source_line > 0 ? " (trace line " + std::to_string(spec.source_line) + ")" : "") +
        ": name the cluster's types a100, h100, h200, b200 or gb200");
  }
  return *peak;
}

double LlmRateModel::iteration_s(std::uint32_t job, int gpu_type, int gpus_per_domain,
                                 double dp_bytes_per_s) const {
  const LlmJob& llm = entries_[slot_[job]].job;
  const GpuPeak& peak = peak_of(job, gpu_type);
  const double efficiency = type_efficiency_[2 * gpu_type + (llm.precision == Precision::kFp8)];
  LlmRates rates = packed_llm_rates(llm, peak, gpus_per_domain,
                                    fabric_.scale_out_gbytes_per_s * 1e9, efficiency);
  rates.tp_exposed = fabric_.tp_exposed;
  rates.collectives = fabric_.collectives.get();
  rates.dp_bytes_per_s = std::min(rates.dp_bytes_per_s, dp_bytes_per_s);
  return llm_iteration(llm, peak, rates).total();
}

double LlmRateModel::factor(std::uint32_t job) {
  if (slot_[job] < 0) return 1.0;
  Entry& entry = entries_[slot_[job]];
  const Time now = view_->now();
  fold(entry, now);
  entry.alone_s = entry.actual_s = 0.0;
  const std::span<const Grant> grants = view_->grants_of(job);
  if (grants.empty()) return 1.0;
  if (first_start_ < 0) first_start_ = links_since_ = now;
  const int type = view_->type_held(job);
  // A group fits a domain when the job holds that many GPUs in each domain it uses (its groups
  // laid out in order over its domains).
  const int held = least_held_per_domain(grants);
  entry.gpus = 0;
  for (const Grant& grant : grants) entry.gpus += grant.gpus;
  const int domain = std::max(1, std::min(held, domain_gpus(type)));
  const double share = entry.flows && !entry.links.empty() ? entry.share : kUnlimited;
  entry.actual_s = iteration_s(job, type, domain, share);
  // Alone: the same holdings with its NIC's bandwidth (the same value when nothing is shared).
  entry.alone_s = share == kUnlimited ? entry.actual_s : iteration_s(job, type, domain, kUnlimited);
  return entry.ref_s / entry.actual_s;
}

void LlmRateModel::fold(Entry& entry, Time now) {
  const double dt = now - entry.since;
  entry.since = now;
  if (entry.actual_s <= 0.0 || dt <= 0.0) return;
  entry.run_s += dt;
  entry.alone_integral += dt * entry.alone_s;
  entry.actual_integral += dt * entry.actual_s;
  entry.slowdown_integral += dt * entry.actual_s / entry.alone_s;
  entry.lost_gpu_s += entry.gpus * dt * (1.0 - entry.alone_s / entry.actual_s);
}

void LlmRateModel::fold_links(Time now) {
  if (first_start_ < 0) return;
  for (int tier = 0; tier < 2; ++tier)
    tier_integral_[tier] += (now - links_since_) * tier_load_[tier];
  links_since_ = now;
}

void LlmRateModel::update_load(std::uint32_t link) {
  double carried = 0.0;
  for (const auto& [slot, gpus] : link_flows_[link]) carried += gpus * entries_[slot].share;
  const double capacity = is_pod_link(link)
                              ? topology_.pod_uplink[link - topology_.leaf_uplink.size()]
                              : topology_.leaf_uplink[link];
  const double load = carried / capacity;
  tier_load_[is_pod_link(link) ? 1 : 0] += load - link_load_[link];
  link_load_[link] = load;
}

void LlmRateModel::add_flows(std::int32_t slot, std::uint32_t job) {
  Entry& entry = entries_[slot];
  entry.flows = true;
  entry.share = fabric_.scale_out_gbytes_per_s * 1e9;
  entry.links.clear();
  // GPUs behind each leaf and pod; a tier's uplinks carry the job's DP traffic only when the
  // job spans more than one of its switches.
  const auto add = [&](std::uint32_t link, double gpus) {
    for (auto& [l, g] : entry.links)
      if (l == link) {
        g += gpus;
        return;
      }
    entry.links.emplace_back(link, gpus);
  };
  for (const Grant& grant : view_->grants_of(job)) {
    const std::uint32_t leaf = topology_.leaf_of[grant.node];
    add(leaf, grant.gpus);
    if (!topology_.pod_uplink.empty())
      add(topology_.pod_link(topology_.pod_of_leaf[leaf]), grant.gpus);
  }
  const auto tier_size = [&](bool pods) {
    return std::count_if(entry.links.begin(), entry.links.end(), [&](const auto& link) {
      return (link.first >= topology_.leaf_uplink.size()) == pods;
    });
  };
  const bool cross_leaves = tier_size(false) > 1, cross_pods = tier_size(true) > 1;
  std::erase_if(entry.links, [&](const auto& link) {
    return link.first >= topology_.leaf_uplink.size() ? !cross_pods : !cross_leaves;
  });
  for (const auto& [link, gpus] : entry.links) {
    link_flows_[link].emplace_back(slot, gpus);
    dirty_links_.push_back(link);
  }
}

void LlmRateModel::remove_flows(std::int32_t slot) {
  Entry& entry = entries_[slot];
  if (!entry.flows) return;
  for (const auto& [link, gpus] : entry.links) {
    std::erase_if(link_flows_[link], [slot](const auto& flow) { return flow.first == slot; });
    dirty_links_.push_back(link);
  }
  entry.links.clear();
  entry.flows = false;
}

void LlmRateModel::on_released(std::uint32_t job) {
  if (slot_[job] < 0) return;
  Entry& entry = entries_[slot_[job]];
  fold(entry, view_->now());
  entry.alone_s = entry.actual_s = 0.0;
  last_release_ = view_->now();
  if (fabric_.contention()) remove_flows(slot_[job]);
}

void LlmRateModel::take_affected(std::vector<std::uint32_t>& out) {
  if (!fabric_.contention()) return;
  // Jobs that started on a touched node have their flows registered now.
  for (std::uint32_t node : touched_nodes_)
    for (std::uint32_t job : view_->holders_on(node))
      if (slot_[job] >= 0 && !entries_[slot_[job]].flows) add_flows(slot_[job], job);
  touched_nodes_.clear();
  if (dirty_links_.empty()) return;
  // The connected part of the job-uplink graph around the changed uplinks.
  ++pass_;
  comp_links_.clear();
  comp_slots_.clear();
  for (std::uint32_t link : dirty_links_)
    if (link_seen_[link] != pass_) {
      link_seen_[link] = pass_;
      comp_links_.push_back(link);
    }
  dirty_links_.clear();
  for (std::size_t i = 0; i < comp_links_.size(); ++i)
    for (const auto& [slot, gpus] : link_flows_[comp_links_[i]]) {
      if (slot_seen_[slot] == pass_) continue;
      slot_seen_[slot] = pass_;
      comp_slots_.push_back(slot);
      for (const auto& [link, g] : entries_[slot].links)
        if (link_seen_[link] != pass_) {
          link_seen_[link] = pass_;
          comp_links_.push_back(link);
        }
    }
  fold_links(view_->now());
  water_fill();
  for (std::uint32_t link : comp_links_) update_load(link);
  for (std::int32_t slot : comp_slots_) out.push_back(entries_[slot].job_index);
}

void LlmRateModel::on_sample(Time now) {
  if (!fabric_.contention()) return;
  const double leaves = static_cast<double>(topology_.leaf_uplink.size());
  const double pods = static_cast<double>(topology_.pod_uplink.size());
  sample_leaf_util_.push_back(leaves > 0 ? tier_load_[0] / leaves : 0.0);
  sample_spine_util_.push_back(pods > 0 ? tier_load_[1] / pods : 0.0);
  (void)now;
}

void LlmRateModel::conclude(RunResult& result) {
  const Time now = view_->now();
  // The measured span ends with the last LLM job's release, unless one still runs.
  bool running = false;
  for (const Entry& entry : entries_) running = running || entry.actual_s > 0.0;
  fold_links(running ? now : last_release_);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t jobs = slot_.size();
  RunResult::Column alone{"iter_alone_s", std::vector<double>(jobs, nan)};
  RunResult::Column actual{"iter_s", std::vector<double>(jobs, nan)};
  RunResult::Column slowdown{"contention_slowdown", std::vector<double>(jobs, nan)};
  for (Entry& entry : entries_) {
    fold(entry, now);
    if (entry.run_s <= 0.0) continue;  // never ran: no iteration to tell
    alone.values[entry.job_index] = entry.alone_integral / entry.run_s;
    actual.values[entry.job_index] = entry.actual_integral / entry.run_s;
    slowdown.values[entry.job_index] = entry.actual_integral / entry.alone_integral;
  }
  result.job_columns.push_back(std::move(alone));
  result.job_columns.push_back(std::move(actual));
  result.job_columns.push_back(std::move(slowdown));
  if (fabric_.contention() && !sample_leaf_util_.empty()) {
    result.sample_columns.push_back({"leaf_uplink_util", std::move(sample_leaf_util_)});
    result.sample_columns.push_back({"spine_uplink_util", std::move(sample_spine_util_)});
  }
}

void LlmRateModel::report(std::span<JobRecord> records, RunMetrics& metrics) const {
  (void)records;
  double run_s = 0.0, slowdown = 0.0, lost = 0.0;
  for (const Entry& entry : entries_) {
    run_s += entry.run_s;
    slowdown += entry.slowdown_integral;
    lost += entry.lost_gpu_s;
  }
  metrics.contention_slowdown_mean = run_s > 0.0 ? slowdown / run_s : 0.0;
  metrics.contention_gpu_hours_lost = lost / 3600.0;
  const double span = first_start_ >= 0 ? links_since_ - first_start_ : 0.0;
  const double leaves = static_cast<double>(topology_.leaf_uplink.size());
  const double pods = static_cast<double>(topology_.pod_uplink.size());
  metrics.link_util_leaf = span > 0.0 && leaves > 0 ? tier_integral_[0] / (span * leaves) : 0.0;
  metrics.link_util_spine = span > 0.0 && pods > 0 ? tier_integral_[1] / (span * pods) : 0.0;
}

// Max-min fair shares by progressive filling: every GPU's DP flow of an unfrozen job rises at
// one rate (a ring runs at its slowest member's pace) until an uplink is full (its jobs
// freeze) or a job reaches its own bound, the scale-out bandwidth of one GPU.
void LlmRateModel::water_fill() {
  const double bound = fabric_.scale_out_gbytes_per_s * 1e9;
  for (std::uint32_t link : comp_links_) {
    link_left_[link] = link < topology_.leaf_uplink.size()
                           ? topology_.leaf_uplink[link]
                           : topology_.pod_uplink[link - topology_.leaf_uplink.size()];
    link_weight_[link] = 0.0;
  }
  frozen_.assign(comp_slots_.size(), 0);
  for (std::int32_t slot : comp_slots_)
    for (const auto& [link, gpus] : entries_[slot].links) link_weight_[link] += gpus;
  std::size_t left = comp_slots_.size();
  double level = 0.0;
  while (left > 0) {
    // The next level: the first uplink to fill, or the bound.
    double next = bound;
    for (std::uint32_t link : comp_links_)
      if (link_weight_[link] > 0)
        next = std::min(next, level + link_left_[link] / link_weight_[link]);
    for (std::uint32_t link : comp_links_) link_left_[link] -= link_weight_[link] * (next - level);
    level = next;
    const std::size_t before = left;
    for (std::size_t i = 0; i < comp_slots_.size(); ++i) {
      if (frozen_[i]) continue;
      Entry& entry = entries_[comp_slots_[i]];
      bool full = level >= bound;
      for (const auto& [link, gpus] : entry.links)
        full = full || link_left_[link] <= 1e-9 * link_weight_[link] * level;
      if (!full) continue;
      frozen_[i] = 1;
      --left;
      entry.share = level;
      for (const auto& [link, gpus] : entry.links) link_weight_[link] -= gpus;
    }
    if (left == before) {  // rounding left no uplink exactly full: the rest share this level
      for (std::size_t i = 0; i < comp_slots_.size(); ++i)
        if (!frozen_[i]) entries_[comp_slots_[i]].share = level;
      break;
    }
  }
}

}  // namespace clustersim::internal

namespace clustersim::options {

void declare_fabric_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "fabric.scale_up_gpus", [](auto& o) -> auto& { return o.fabric.scale_up_gpus; })
      .range(0, 1 << 20)
      .component("fabric")
      .training_only()
      .doc(
          "GPUs of one scale-up (NVLink) domain for LLM jobs' collectives; 0: one node's GPUs. "
          "Larger than a node: consecutive whole nodes, under one leaf (72: an NVL72 rack of "
          "18 nodes of 4) ([`sim/README.md`](sim/README.md#llm-jobs)).");
  field<SimOptions>(
      keys, "fabric.scale_out_gbytes_per_s",
      [](auto& o) -> auto& { return o.fabric.scale_out_gbytes_per_s; })
      .range(1e-6, 1e6)
      .component("fabric")
      .training_only()
      .doc("Bandwidth per GPU and direction beyond its scale-up domain (GB/s; 50 = 400 Gb/s).");
  field<SimOptions>(
      keys, "fabric.efficiency", [](auto& o) -> auto& { return o.fabric.efficiency; })
      .range(0.0, 1.0)
      .component("fabric")
      .training_only()
      .doc(
          "Achieved share of the peak FLOP/s on an LLM job's model FLOPs; 0: the built-in "
          "table (H100 FP8 fitted on NeMo's published step times).");
  custom(keys, "fabric.efficiency_by_type", KeyType::kTable)
      .component("fabric")
      .training_only()
      .default_note("—")
      .doc(
          "`[fabric.efficiency_by_type] TYPE_PRECISION = share` (`h100_fp8 = 0.425`, "
          "`a100_bf16 = 0.5`; types a100, h100, h200, b200, gb200): the efficiency of LLM jobs "
          "on that GPU type at that precision, over `efficiency` "
          "([`sim/README.md`](sim/README.md#llm-jobs), \"Fit\").");
  field<SimOptions>(
      keys, "fabric.collective_table", [](auto& o) -> auto& { return o.fabric.collective_table; })
      .path()
      .component("fabric")
      .training_only()
      .default_note("— (full bandwidth)")
      .doc(
          "SimAI's collective efficiency tables: a folder with `nvlink_ratio.csv` (inside a "
          "scale-up domain), `nic_ratio.csv` (across) and optionally "
          "`small_msg_collective_time.csv`, or one ratio CSV for both; LLM jobs' TP and DP "
          "collectives run at the bandwidth times the efficiency at their message size and group "
          "([`sim/README.md`](sim/README.md#collective-tables)).");
  field<SimOptions>(
      keys, "fabric.tp_exposed", [](auto& o) -> auto& { return o.fabric.tp_exposed; })
      .range(0.0, 1.0)
      .component("fabric")
      .training_only()
      .doc("Share of an LLM job's tensor-parallel communication not hidden behind its GEMMs.");
  field<SimOptions>(
      keys, "fabric.hosts_per_leaf", [](auto& o) -> auto& { return o.fabric.hosts_per_leaf; })
      .range(0, 1 << 20)
      .component("fabric")
      .training_only()
      .doc(
          "Nodes (in cluster order) under one leaf switch of a generated Clos; LLM jobs' DP "
          "traffic shares the leaf and spine uplinks it crosses. 0: no scale-out tiers.");
  field<SimOptions>(
      keys, "fabric.leaves_per_spine", [](auto& o) -> auto& { return o.fabric.leaves_per_spine; })
      .range(0, 1 << 20)
      .component("fabric")
      .training_only()
      .doc("Leaves under one spine group of a generated Clos; 0: one group (no tier above).");
  field<SimOptions>(
      keys, "fabric.leaf_oversubscription",
      [](auto& o) -> auto& { return o.fabric.leaf_oversubscription; })
      .range(1.0, 1e6)
      .component("fabric")
      .training_only()
      .doc("A leaf's hosts' scale-out bandwidth over its uplinks' (2: 2:1).");
  field<SimOptions>(
      keys, "fabric.spine_oversubscription",
      [](auto& o) -> auto& { return o.fabric.spine_oversubscription; })
      .range(1.0, 1e6)
      .component("fabric")
      .training_only()
      .doc("A spine group's leaf uplinks' bandwidth over its own uplinks'.");
  field<SimOptions>(
      keys, "fabric.topology", [](auto& o) -> auto& { return o.fabric.topology; })
      .path()
      .component("fabric")
      .training_only()
      .default_note("—")
      .doc(
          "A host-to-switch map (CSV with columns PSW and ASW, as Alibaba Lingjun's "
          "`topo.csv`): node i is row i, its leaf the pair (PSW, ASW), its spine group PSW; "
          "instead of hosts_per_leaf and leaves_per_spine.");
}

}  // namespace clustersim::options
