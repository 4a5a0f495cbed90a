#include "simulation/fleet_rebalancer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "clustersim/profile.h"

namespace clustersim::internal {

FleetRebalancer::FleetRebalancer(const FleetSpec& spec, const MechanismOptions& mechanisms,
                                 std::size_t jobs, Moved moved)
    : spec_(spec),
      mechanisms_(mechanisms),
      moved_(std::move(moved)),
      in_transit_(jobs, 0),
      job_link_(jobs, -1),
      moved_at_(jobs, 0.0),
      moves_(jobs, 0) {
  const std::size_t clusters = spec.clusters.size();
  const auto region_of = [&](std::size_t c) {
    for (std::size_t r = 0; r < spec.regions.size(); ++r)
      if (spec.regions[r].name == spec.clusters[c].region) return r;
    return spec.regions.size();
  };
  link_of_.assign(clusters * clusters, -1);
  for (std::size_t l = 0; l < spec.links.size(); ++l) {
    const WanLinkSpec& link = spec.links[l];
    links_.push_back({link.bandwidth_gbps * 1e9 / 8.0, link.latency_ms / 1e3, {}, 0.0, 0, 0, 0, 0});
    for (std::size_t a = 0; a < clusters; ++a)
      for (std::size_t b = 0; b < clusters; ++b) {
        const std::string& from = spec.regions[region_of(a)].name;
        const std::string& to = spec.regions[region_of(b)].name;
        const bool joins =
            (from == link.from && to == link.to) || (from == link.to && to == link.from);
        if (joins && link_of_[a * clusters + b] < 0)
          link_of_[a * clusters + b] = static_cast<int>(l);
      }
  }
  for (const FleetClusterSpec& cluster : spec.clusters)
    cluster_gpus_.push_back(cluster.cluster.total_gpus());
  migrated_in_.assign(clusters, 0);
  migrated_out_.assign(clusters, 0);
  incoming_gpus_.assign(clusters, 0);
  demand_.assign(clusters, 0.0);
  movable_.resize(clusters);
}

void FleetRebalancer::attach(Host& host) {
  host_ = &host;
  // Afresh for every run of the simulation (a reset() attaches it again).
  const std::size_t jobs = in_transit_.size();
  in_transit_.assign(jobs, 0);
  job_link_.assign(jobs, -1);
  moved_at_.assign(jobs, 0.0);
  moves_.assign(jobs, 0);
  for (Link& link : links_) link = Link{link.bytes_per_s, link.latency_s, {}, 0.0, 0, 0, 0, 0};
  std::fill(migrated_in_.begin(), migrated_in_.end(), 0);
  std::fill(migrated_out_.begin(), migrated_out_.end(), 0);
  std::fill(incoming_gpus_.begin(), incoming_gpus_.end(), 0);
  in_flight_ = 0;
  check_scheduled_ = false;
  // All ask for a decision: a transfer's end re-times the link, an arrival lets its job start,
  // a check moves jobs.
  sent_timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
  arrive_timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
  check_timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
}

void FleetRebalancer::after_decision(Time now) {
  // Checks while jobs wait and others run (or transfers are under way: their arrival is a
  // decision): nothing to balance otherwise, and no endless timer once the run is done.
  const View& view = host_->view();
  if (check_scheduled_ || view.waiting().empty() || view.holders().empty()) return;
  check_scheduled_ = true;
  const double period = spec_.rebalance.interval_s;
  host_->schedule((std::floor(now / period) + 1.0) * period, check_timer_);
}

void FleetRebalancer::on_timer(const Timer& timer) {
  if (timer.kind == check_timer_) {
    check_scheduled_ = false;
    check(timer.time);
  } else if (timer.kind == sent_timer_) {
    sent(timer.subject, timer);
  } else {  // arrived: it waits at its new cluster and may start
    const std::uint32_t job = timer.subject;
    in_transit_[job] = 0;
    --in_flight_;
    const JobState& state = host_->view().jobs()[job];
    incoming_gpus_[static_cast<std::size_t>(
        host_->view().cluster().gpu_type_partition(state.gpu_type))] -= state.gpus;
    links_[static_cast<std::size_t>(job_link_[job])].transfer_s += timer.time - moved_at_[job];
    job_link_[job] = -1;
  }
}

double FleetRebalancer::bytes_of(std::uint32_t job) const {
  const JobState& state = host_->view().jobs()[job];
  if (!state.has_checkpoint) return spec_.rebalance.input_gb * 1e9;
  const auto found = mechanisms_.checkpoint_gb.find(normalize_model_name(state.spec->model));
  const double gb =
      found != mechanisms_.checkpoint_gb.end() ? found->second : mechanisms_.default_checkpoint_gb;
  return gb * 1e9;
}

int FleetRebalancer::destination_type(std::uint32_t job, std::size_t to) const {
  const JobState& state = host_->view().jobs()[job];
  const ClusterState& cluster = host_->view().cluster();
  const auto partition = static_cast<int>(to);
  int type = -1;
  if (!state.spec->gpu_type.empty()) {
    type = cluster.find_gpu_type(state.spec->gpu_type, partition);
  } else {  // the one run holds such jobs only where every cluster has one type
    for (std::size_t t = 0; t < cluster.gpu_type_names().size() && type < 0; ++t)
      if (cluster.gpu_type_partition(static_cast<int>(t)) == partition) type = static_cast<int>(t);
  }
  return type >= 0 && cluster.total_gpus(type) >= state.requested_gpus ? type : -1;
}

// Rule 1: while two linked clusters' waiting GPUs per GPU differ by more than the threshold,
// the fuller one's first waiting job in policy order that the other can hold moves, unless its
// move would open the reverse gap beyond the threshold (it would be moved back) while the other
// has not its GPUs free (free now, less those promised to jobs on their way there): a job that
// will start on arrival no longer waits there. Fullest sources first, against the emptiest
// destinations first; a job moves at most once per check (it is in transit after).
void FleetRebalancer::check(Time now) {
  const View& view = host_->view();
  const auto all = view.jobs();
  const ClusterState& cluster = view.cluster();
  const std::size_t clusters = cluster_gpus_.size();
  std::fill(demand_.begin(), demand_.end(), 0.0);
  for (auto& list : movable_) list.clear();
  for (std::uint32_t job : view.waiting()) {
    const auto c = static_cast<std::size_t>(cluster.gpu_type_partition(all[job].gpu_type));
    demand_[c] += all[job].gpus;
    if (!in_transit_[job]) movable_[c].push_back(job);
  }
  const Ordering& ordering = stages_->ordering();
  const auto per_gpu = [&](std::size_t c) { return demand_[c] / cluster_gpus_[c]; };
  for (bool moved = true; moved;) {
    moved = false;
    order_.resize(clusters);
    for (std::size_t c = 0; c < clusters; ++c) order_[c] = c;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return per_gpu(a) > per_gpu(b); });
    for (std::size_t i = 0; i < clusters && !moved; ++i) {
      const std::size_t from = order_[i];
      for (std::size_t k = clusters; k-- > i + 1 && !moved;) {
        const std::size_t to = order_[k];
        const double gap = per_gpu(from) - per_gpu(to);
        if (!(gap > spec_.rebalance.threshold)) break;  // the rest are closer still
        if (link_of_[from * clusters + to] < 0) continue;
        std::vector<std::uint32_t>& list = movable_[from];
        std::size_t best = list.size();
        int best_type = -1;
        for (std::size_t at = 0; at < list.size(); ++at) {
          const std::uint32_t job = list[at];
          if (best < list.size() && !ordering.before(job, list[best])) continue;
          const int type = destination_type(job, to);
          if (type < 0) continue;
          const double g = all[job].gpus;
          const double reverse =
              (per_gpu(to) + g / cluster_gpus_[to]) - (per_gpu(from) - g / cluster_gpus_[from]);
          if (reverse > spec_.rebalance.threshold &&
              cluster.free_gpus(type) - incoming_gpus_[to] < all[job].gpus)
            continue;
          best = at;
          best_type = type;
        }
        if (best == list.size()) continue;
        const std::uint32_t job = list[best];
        list[best] = list.back();
        list.pop_back();
        demand_[from] -= all[job].gpus;
        demand_[to] += all[job].gpus;
        move(job, from, to, best_type, now);
        moved = true;
      }
    }
  }
}

void FleetRebalancer::move(std::uint32_t job, std::size_t from, std::size_t to, int type,
                           Time now) {
  const std::size_t clusters = cluster_gpus_.size();
  const auto l = static_cast<std::size_t>(link_of_[from * clusters + to]);
  const double bytes = bytes_of(job);  // before the rebind: what it saved decides
  waiting_jobs_->rebind_waiting(job, type);
  moved_(job, from, to);
  ++moves_[job];
  ++migrated_out_[from];
  ++migrated_in_[to];
  Link& link = links_[l];
  ++link.migrated;
  link.bytes += bytes;
  in_transit_[job] = 1;
  job_link_[job] = static_cast<std::int32_t>(l);
  moved_at_[job] = now;
  ++in_flight_;
  incoming_gpus_[to] += host_->view().jobs()[job].gpus;
  if (!(bytes > 0.0)) {  // nothing to send: only the latency
    host_->schedule(now + link.latency_s, arrive_timer_, job);
    return;
  }
  fold(link, now);
  link.flows.push_back({job, bytes});
  retime(l, now);
}

void FleetRebalancer::fold(Link& link, Time now) {
  if (!link.flows.empty()) {
    const double rate = link.bytes_per_s / static_cast<double>(link.flows.size());
    for (Flow& flow : link.flows) flow.left -= rate * (now - link.since);
  }
  link.since = now;
}

// The next end of sending on the link, at the rate its flows share now (the same expression
// sent() compares with, so the flows ending first end exactly then).
void FleetRebalancer::retime(std::size_t l, Time now) {
  Link& link = links_[l];
  ++link.epoch;
  if (link.flows.empty()) return;
  const double rate = link.bytes_per_s / static_cast<double>(link.flows.size());
  double first_end = now + link.flows.front().left / rate;
  for (const Flow& flow : link.flows) first_end = std::min(first_end, now + flow.left / rate);
  host_->schedule(first_end, sent_timer_, static_cast<std::uint32_t>(l), link.epoch);
}

void FleetRebalancer::sent(std::size_t l, const Timer& timer) {
  Link& link = links_[l];
  if (timer.tag != link.epoch) return;  // re-timed since
  const Time now = timer.time;
  const double rate = link.bytes_per_s / static_cast<double>(link.flows.size());
  // The flows whose last byte leaves now go; the others have sent at the shared rate till now.
  std::size_t kept = 0;
  for (const Flow& flow : link.flows) {
    if (link.since + flow.left / rate == now) {
      host_->schedule(now + link.latency_s, arrive_timer_, flow.job);
    } else {
      Flow rest = flow;
      rest.left -= rate * (now - link.since);
      link.flows[kept++] = rest;
    }
  }
  link.flows.resize(kept);
  link.since = now;
  retime(l, now);
}

void FleetRebalancer::add_metrics(std::vector<std::pair<std::string, double>>& metrics) const {
  double moves = 0.0;
  for (std::uint32_t m : moves_) moves += m;
  metrics.emplace_back("migrations_wan", moves);
  for (std::size_t c = 0; c < spec_.clusters.size(); ++c) {
    const std::string& name = spec_.clusters[c].name;
    metrics.emplace_back(name + ".migrated_in", static_cast<double>(migrated_in_[c]));
    metrics.emplace_back(name + ".migrated_out", static_cast<double>(migrated_out_[c]));
  }
  for (std::size_t l = 0; l < links_.size(); ++l) {
    const std::string prefix = "wan." + spec_.links[l].from + "." + spec_.links[l].to;
    metrics.emplace_back(prefix + ".migrated", static_cast<double>(links_[l].migrated));
    metrics.emplace_back(prefix + ".bytes_gb", links_[l].bytes / 1e9);
    metrics.emplace_back(prefix + ".transfer_s", links_[l].transfer_s);
  }
}

}  // namespace clustersim::internal
