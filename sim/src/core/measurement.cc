#include "core/measurement.h"

#include <algorithm>
#include <utility>

#include "clustersim/cluster_state.h"
#include "clustersim/mig.h"
#include "metrics/summary_stats.h"

namespace clustersim::internal {

void Measurement::integrate(Time last, Time now, int busy, double waiting, const JobState* head,
                            const Grant& offline) {
  queue_length_integral_ += waiting * (now - last);
  const Time from = std::max(last, measure_from_);
  if (now <= from) return;
  const ClusterState& cluster = view_.cluster();
  const double dt = now - from;
  busy_gpu_integral_ += busy * dt;
  if (cluster.held_milli() != 0)
    busy_gpu_integral_ +=
        static_cast<double>(cluster.held_milli()) * dt / ClusterState::kMilliPerGpu;
  if (cluster.held_mig_compute() != 0)
    busy_gpu_integral_ += cluster.held_mig_compute() * dt / kMigComputeSlices;
  // (x - 0.0 is x: without outages the sums are those of earlier versions, bit for bit.)
  cpu_integral_ += (cluster.allocated_cpus() - offline.cpus) * dt;
  mem_integral_ += (cluster.allocated_mem_gb() - offline.mem_gb) * dt;
  storage_integral_ += (cluster.allocated_storage_mbps() - offline.storage_mbps) * dt;
  window_queue_integral_ += waiting * dt;
  head_fragmented_.hold(from, now,
                        head ? fragmentation_.head_fragmented(head->gpu_type, head->gpus) : 0.0);
  typical_fragmented_.hold(from, now, fragmentation_.typical_fragmented());
}

void Measurement::take_sample(Time now, std::optional<std::uint32_t> head, int down_gpus) {
  const ClusterState& cluster = view_.cluster();
  Sample sample;
  sample.time = now;
  sample.idle_gpus = cluster.free_gpus();
  // A node down holds its GPUs (none of them is free), but no job does: they are down, not busy.
  sample.down_gpus = down_gpus;
  sample.busy_gpus = cluster.total_gpus() - sample.idle_gpus - down_gpus;
  sample.frag_typical_gpus = fragmentation_.typical_fragmented();
  sample.queue_length = static_cast<int>(view_.waiting().size());
  sample.running_jobs = static_cast<int>(view_.holders().size());
  if (head) {
    // Fragmented: idle GPUs on nodes (of a type the head-of-queue job may use) whose idle count
    // is below what that job would need from one node.
    const JobState& job = view_.jobs()[*head];
    sample.fragmented_gpus = cluster.fragmented_gpus(job.gpu_type, job.gpus);
  }
  if (options_.record_samples) samples_.push_back(sample);
}

void Measurement::summarize(std::span<JobRecord> records, Time first_submit, Time window_end,
                            RunMetrics& m) {
  std::span<const JobState> jobs = view_.jobs();
  const ClusterState& cluster = view_.cluster();
  // The JCTs are written over the finish-time-fairness integrals, each once its job's is read
  // (a job's JCT goes to a position at or before its own): no third per-job array at the run's
  // peak of memory. The integrals are spent: a run is summarized once.
  std::vector<double> jcts = std::move(ftf_integral_), queues;
  std::size_t finished = 0;
  reserve_on_huge_pages(queues, jobs.size());
  Time last_finish = first_submit;
  const bool windowed = options_.window.has_value();
  FairnessSum fairness;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    JobRecord& record = records[i];
    if (jobs[i].phase != JobPhase::kFinished) {
      // What a job that did not finish accumulated is not reported (as if it never ran).
      record.start_time = record.finish_time = -1.0;
      record.queue_delay = record.gpu_seconds = record.overhead_gpu_seconds = 0.0;
      record.preemptions = record.lease_changes = record.nodes = 0;
      record.colocated_seconds = 0.0;
      record.migrations = record.resizes = record.failures = 0;
      record.lost_gpu_seconds = record.checkpoint_gpu_seconds = record.restore_gpu_seconds =
          record.migration_gpu_seconds = record.resize_gpu_seconds = record.realloc_gpu_seconds =
              0.0;
      continue;
    }
    record.jct = record.finish_time - record.submit_time;
    if (windowed && (i < options_.window->first || i > options_.window->last)) continue;
    fairness.add(finish_time_fairness(jobs[i], record.jct, jcts[i]));
    jcts[finished++] = record.jct;
    queues.push_back(record.queue_delay);
    m.gpu_seconds += record.gpu_seconds;
    m.overhead_gpu_seconds += record.overhead_gpu_seconds;
    m.preemptions += static_cast<std::size_t>(record.preemptions);
    m.lease_changes += static_cast<std::uint64_t>(record.lease_changes);
    m.migrations += static_cast<std::uint64_t>(record.migrations);
    m.resizes += static_cast<std::uint64_t>(record.resizes);
    m.failures += static_cast<std::uint64_t>(record.failures);
    m.lost_gpu_seconds += record.lost_gpu_seconds;
    m.overhead_checkpoint_gpu_seconds += record.checkpoint_gpu_seconds;
    m.overhead_restore_gpu_seconds += record.restore_gpu_seconds;
    m.overhead_migration_gpu_seconds += record.migration_gpu_seconds;
    m.overhead_resize_gpu_seconds += record.resize_gpu_seconds;
    m.overhead_realloc_gpu_seconds += record.realloc_gpu_seconds;
    last_finish = std::max(last_finish, record.finish_time);
  }
  jcts.resize(finished);
  m.jobs = jcts.size();
  m.window_jobs = windowed ? options_.window->last - options_.window->first + 1 : jobs.size();
  summarize_jcts_and_queues(jcts, queues, m);
  if (!jcts.empty()) {
    // Without a window: the whole run. With one: from the window's first submit to its last
    // finish, and utilisation from what the whole cluster held over that span.
    const Time end = windowed ? window_end : last_finish;
    m.makespan = end - measure_from_;
    if (m.makespan > 0.0) {
      const auto util = [&](double integral, double total) {
        return total > 0.0 ? integral / (total * m.makespan) : 0.0;
      };
      m.gpu_util = windowed ? util(busy_gpu_integral_, cluster.total_gpus())
                            : m.gpu_seconds / (cluster.total_gpus() * m.makespan);
      m.queue_len_mean = (windowed ? window_queue_integral_ : queue_length_integral_) / m.makespan;
      m.frag_mean = head_fragmented_.total() / m.makespan;
      m.frag_typical_mean = typical_fragmented_.total() / m.makespan;
      m.cpu_util = util(cpu_integral_, cluster.total_cpus());
      m.mem_util = util(mem_integral_, cluster.total_mem_gb());
      m.storage_util = util(storage_integral_, cluster.total_storage_mbps());
    }
  }
  if (fairness.count > 0) {
    m.ftf_mean = fairness.sum / static_cast<double>(fairness.count);
    m.ftf_max = fairness.most;
    m.ftf_unfair = static_cast<double>(fairness.unfair) / static_cast<double>(fairness.count);
  }
}

// Finish-time fairness (Themis, Mahajan et al., NSDI'20; Gavel): a job's rho = its JCT / the
// time it would take alone on 1/N of the cluster, N the time-averaged number of jobs in the
// system (waiting or holding GPUs, itself included) between its submit and its finish. Alone on
// 1/N of the cluster's G GPUs, a job of g GPUs runs its duration at its speed when g <= G/N,
// else g N / G times as long (it gets G/N GPUs' worth of time). Its speed alone ([metrics]
// ftf_baseline): its best GPU type's (default), or Gavel's 1/N of every type (the mean of its
// per-type speeds weighted by the types' GPUs). The integral of N over each
// job's stay was kept as the run went (on_arrival, on_finish), so this is one pass over the
// jobs: no sort of every arrival and finish at the end (that took a fifth of a large FIFO run),
// and that pass is summarize()'s own (a second pass over 1M cold job states cost 2% of a run).
double Measurement::finish_time_fairness(const JobState& job, double jct,
                                         double jobs_in_system_integral) const {
  const double total = view_.cluster().total_gpus();
  const std::vector<double>& type_speeds = *view_.tables().type_speeds;
  const std::size_t type_count = view_.cluster().gpu_type_names().size();
  const double sharing = jct > 0.0 ? std::max(1.0, jobs_in_system_integral / jct) : 1.0;
  double speed = 1.0;
  if (!type_speeds.empty()) {
    speed = 0.0;
    const double* speeds = &type_speeds[job.index * type_count];
    if (options_.ftf_baseline == FtfBaseline::kGavel) {
      // Gavel's X^equal: 1/N of every type's GPUs, so its time on each type in proportion to
      // the type's GPUs, at that type's speed (0 where it cannot run).
      for (std::size_t t = 0; t < type_count; ++t)
        speed += speeds[t] * view_.cluster().total_gpus(static_cast<int>(t)) / total;
    } else {
      for (std::size_t t = 0; t < type_count; ++t) speed = std::max(speed, speeds[t]);
    }
    if (speed <= 0.0) speed = 1.0;  // CPU-only or a share: rate 1 alone
  }
  if (job.mig != 0)  // alone on its MIG slice: its compute slices of 7
    speed = static_cast<double>(mig_compute_slices(job.mig)) / kMigComputeSlices;
  const double alone = job.work / speed * std::max(1.0, job.requested_gpus * sharing / total);
  return jct / alone;
}

}  // namespace clustersim::internal
