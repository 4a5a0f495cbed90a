// The global routers of a fleet (clustersim/fleet.h): which cluster an arriving job goes to.
// Each reads only the FleetLoad it is given, so it works on the first slice's estimate and on
// the one event loop's live state alike.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "clustersim/fleet.h"
#include "policies/factories.h"

namespace clustersim::policies {
namespace {

// Whether `cluster` has the job's GPU type (any type when the job names none) and enough of it.
bool fits_in_cluster(const JobSpec& job, const FleetClusterLoad& cluster) {
  return fleet_gpus_of_type(cluster, job.gpu_type) >= job.num_gpus;
}

std::invalid_argument no_cluster_for(const JobSpec& job) {
  return std::invalid_argument("job '" + job.id + "' (" + std::to_string(job.num_gpus) + " GPUs" +
                               (job.gpu_type.empty() ? "" : " of " + job.gpu_type) +
                               "): no cluster of the fleet has them");
}

// Queued + running GPU demand per GPU of the cluster: the key of least_loaded, and the tie
// break of carbon_aware.
double demand_per_gpu(const FleetClusterLoad& cluster) {
  return static_cast<double>(cluster.demand_gpus) / cluster.gpus;
}

// The fitting cluster with the smallest `key` (ties: the one listed first).
template <typename Key>
std::size_t cluster_with_smallest(const JobSpec& job, const FleetLoad& load, Key key) {
  std::size_t best = load.clusters.size();
  for (std::size_t c = 0; c < load.clusters.size(); ++c) {
    if (!fits_in_cluster(job, load.clusters[c])) continue;
    if (best == load.clusters.size() || key(load.clusters[c]) < key(load.clusters[best])) best = c;
  }
  if (best == load.clusters.size()) throw no_cluster_for(job);
  return best;
}

class LeastLoadedRouter final : public FleetRouter {
 public:
  // demand_per_gpu's order without a division per cluster at every arrival: a/b < c/d as
  // a*d < c*b in 64 bits. The same order as the quotients': distinct fractions of GPU counts
  // differ by at least 1/(b*d), far above a double's rounding while a*d < 2^52.
  std::size_t route(const JobSpec& job, const FleetLoad& load) override {
    std::size_t best = load.clusters.size();
    for (std::size_t c = 0; c < load.clusters.size(); ++c) {
      const FleetClusterLoad& cluster = load.clusters[c];
      if (!fits_in_cluster(job, cluster)) continue;
      if (best == load.clusters.size() ||
          std::int64_t{cluster.demand_gpus} * load.clusters[best].gpus <
              std::int64_t{load.clusters[best].demand_gpus} * cluster.gpus)
        best = c;
    }
    if (best == load.clusters.size()) throw no_cluster_for(job);
    return best;
  }
};

// Where the job can start soonest: its cluster's backlog drained by the GPUs of its type
// (the fluid estimate of FleetClusterLoad: seconds until the work ahead of it is done).
class CapacityFitRouter final : public FleetRouter {
 public:
  std::size_t route(const JobSpec& job, const FleetLoad& load) override {
    return cluster_with_smallest(job, load, [&](const FleetClusterLoad& cluster) {
      return cluster.backlog_gpu_seconds / fleet_gpus_of_type(cluster, job.gpu_type);
    });
  }
};

// The lowest carbon intensity now; equal intensities go to the less loaded.
class CarbonAwareRouter final : public FleetRouter {
 public:
  std::size_t route(const JobSpec& job, const FleetLoad& load) override {
    return cluster_with_smallest(job, load, [](const FleetClusterLoad& cluster) {
      return std::pair{cluster.carbon_g_per_kwh, demand_per_gpu(cluster)};
    });
  }
};

// The job's home (FleetSpec::homes: a cluster's name, or a region's: its first cluster).
class HomeRouter final : public FleetRouter {
 public:
  std::size_t route(const JobSpec& job, const FleetLoad& load) override {
    const auto home = load.spec->homes.find(job.id);
    if (home == load.spec->homes.end())
      throw std::invalid_argument("job '" + job.id +
                                  "': the home router needs its home (fleet "
                                  "homes: a cluster or region for every job)");
    for (std::size_t c = 0; c < load.clusters.size(); ++c)
      if (load.clusters[c].name == home->second) return checked(job, load, c);
    for (std::size_t c = 0; c < load.clusters.size(); ++c)
      if (load.spec->regions[load.clusters[c].region].name == home->second)
        return checked(job, load, c);
    throw std::invalid_argument("job '" + job.id + "': home '" + home->second +
                                "' is no cluster or region of the fleet");
  }

 private:
  static std::size_t checked(const JobSpec& job, const FleetLoad& load, std::size_t c) {
    if (!fits_in_cluster(job, load.clusters[c]))
      throw std::invalid_argument("job '" + job.id + "': its home cluster '" +
                                  std::string(load.clusters[c].name) + "' cannot hold it");
    return c;
  }
};

}  // namespace

std::unique_ptr<FleetRouter> make_least_loaded_router() {
  return std::make_unique<LeastLoadedRouter>();
}
std::unique_ptr<FleetRouter> make_capacity_fit_router() {
  return std::make_unique<CapacityFitRouter>();
}
std::unique_ptr<FleetRouter> make_carbon_aware_router() {
  return std::make_unique<CarbonAwareRouter>();
}
std::unique_ptr<FleetRouter> make_home_router() { return std::make_unique<HomeRouter>(); }

}  // namespace clustersim::policies
