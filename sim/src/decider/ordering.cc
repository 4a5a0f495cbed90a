#include "decider/ordering.h"

#include <algorithm>
#include <stdexcept>

#include "clustersim/component.h"
#include "core/huge_pages.h"

namespace clustersim::internal {

Ordering::Ordering(const SimOptions& options, const View& view, const Admission& admission)
    : view_(view),
      admission_(admission),
      policy_(make_scheduling_policy(options)),
      honor_priority_(options.scheduler.honor_priority) {
  preemptive_ = run_preempts(options.scheduler, *policy_);
  ranks_vcs_ = policy_->ranks_vcs();
  rekeys_ = policy_->rekeys_on_finish();
  queue_.reset(64);
}

// (A million jobs' keys fill 16 MB: on huge pages where offered, as the engine's tables.)
void Ordering::grow() { resize_on_huge_pages(keys_, view_.jobs().size(), PriorityKey{}); }

PolicyContext Ordering::policy_context(Time now) const {
  PolicyContext ctx;
  ctx.now = now;
  ctx.jobs = view_.jobs();
  ctx.total_gpus = view_.cluster().total_gpus();
  return ctx;
}

void Ordering::enqueue(std::uint32_t index, Time now) {
  const JobState& job = view_.jobs()[index];
  const std::uint32_t one[1] = {index};
  policy_->compute_keys(one, policy_context(now), std::span<PriorityKey>(&keys_[index], 1));
  queue_.insert_sorted(index, job.vc, job.gpus, job.gpu_type, job.milli, order());
}

void Ordering::rebucket(std::uint32_t index, int old_gpu_type) {
  const JobState& job = view_.jobs()[index];
  if (!queue_.erase(index, job.vc, job.gpus, old_gpu_type, job.milli, order()))
    throw std::logic_error("ordering: a rebound job is not in its old type's bucket");
  queue_.insert_sorted(index, job.vc, job.gpus, job.gpu_type, job.milli, order());
}

void Ordering::finished(std::uint32_t job, Time now) {
  rekey_.clear();
  policy_->on_finished(job, policy_context(now), rekey_);
  const auto all = view_.jobs();
  for (std::uint32_t index : rekey_) {
    const JobState& waiting = all[index];
    if (waiting.phase != JobPhase::kWaiting) continue;
    if (!queue_.erase(index, waiting.vc, waiting.gpus, waiting.gpu_type, waiting.milli, order()))
      throw std::logic_error("ordering: a job to re-key is not in the queue");
    enqueue(index, now);
  }
}

void Ordering::round_begins(Time now) {
  if (!policy_->rekeys_waiting_at_rounds() || queue_.empty()) return;
  const auto waiting = view_.waiting();
  rekey_.assign(waiting.begin(), waiting.end());
  rekeyed_.resize(rekey_.size());
  policy_->compute_keys(rekey_, policy_context(now), rekeyed_);
  const auto all = view_.jobs();
  for (std::size_t i = 0; i < rekey_.size(); ++i) {
    const std::uint32_t index = rekey_[i];
    const PriorityKey& key = rekeyed_[i];
    if (key.primary == keys_[index].primary && key.secondary == keys_[index].secondary) continue;
    const JobState& job = all[index];
    if (!queue_.erase(index, job.vc, job.gpus, job.gpu_type, job.milli, order()))
      throw std::logic_error("ordering: a waiting job to re-key is not in the queue");
    keys_[index] = key;
    queue_.insert_sorted(index, job.vc, job.gpus, job.gpu_type, job.milli, order());
  }
}

std::uint32_t Ordering::head(std::span<const double> usage) const {
  const auto less = walk_order(usage);
  std::uint32_t head = 0;
  bool found = false;
  for (std::uint32_t b : queue_.active_buckets()) {
    const auto& list = queue_.bucket(b).jobs;
    if (list.empty()) continue;
    if (!found || less(list.front(), head)) head = list.front();
    found = true;
  }
  return head;
}

// Re-keys the running candidates and sorts them in policy order, starting from last round's
// order: most keep their relative order (Tiresias and LAS keys only grow; a job's key moves
// when it changes queue), so the jobs still in order are kept, the others and the new ones
// sorted and merged in. Keys are computed and compared in one contiguous array in that order.
// The result is the unique total order `before` defines, however it is reached.
void Ordering::sort_running(std::vector<std::uint32_t>& candidates, Time now) {
  const auto all = view_.jobs();
  const std::uint32_t mark = ++order_round_ * 2;  // candidate: mark; in last order: mark + 1
  if (order_stamp_.size() < all.size()) order_stamp_.resize(all.size(), 0);
  for (std::uint32_t index : candidates) order_stamp_[index] = mark;
  listed_.clear();
  for (std::uint32_t index : running_order_)
    if (order_stamp_[index] == mark) {
      order_stamp_[index] = mark + 1;
      listed_.push_back(index);
    }
  const std::size_t carried = listed_.size();
  for (std::uint32_t index : candidates)
    if (order_stamp_[index] == mark) listed_.push_back(index);  // new since last round
  listed_keys_.resize(listed_.size());
  policy_->compute_keys(listed_, policy_context(now), listed_keys_);
  for (std::size_t i = 0; i < listed_.size(); ++i) keys_[listed_[i]] = listed_keys_[i];

  const bool by_priority = honor_priority_;
  const auto ranked_before = [&](const Ranked& a, const Ranked& b) {
    if (by_priority) {
      const int pa = all[a.index].spec->priority, pb = all[b.index].spec->priority;
      if (pa != pb) return pa > pb;
    }
    if (a.key.primary != b.key.primary) return a.key.primary < b.key.primary;
    if (a.key.secondary != b.key.secondary) return a.key.secondary < b.key.secondary;
    return a.index < b.index;
  };
  kept_.clear();
  moved_.clear();
  // Backwards over last round's order, keeping a strictly descending run: a job whose key grew
  // (it moves later) is the one taken out, not all those it now follows.
  for (std::size_t i = carried; i-- > 0;) {
    const Ranked entry{listed_keys_[i], listed_[i]};
    if (kept_.empty() || ranked_before(entry, kept_.back())) {
      kept_.push_back(entry);
    } else {
      moved_.push_back(entry);
    }
  }
  for (std::size_t i = carried; i < listed_.size(); ++i)
    moved_.push_back({listed_keys_[i], listed_[i]});
  std::reverse(kept_.begin(), kept_.end());
  std::sort(moved_.begin(), moved_.end(), ranked_before);
  candidates.clear();
  std::size_t a = 0, b = 0;
  while (a < kept_.size() || b < moved_.size()) {
    if (b == moved_.size() || (a < kept_.size() && ranked_before(kept_[a], moved_[b]))) {
      candidates.push_back(kept_[a++].index);
    } else {
      candidates.push_back(moved_[b++].index);
    }
  }
  running_order_.assign(candidates.begin(), candidates.end());
}

void Ordering::check_invariants() const {
  std::size_t queued = 0;
  const auto all = view_.jobs();
  for (std::size_t b = 0; b < queue_.num_buckets(); ++b) {
    const auto& bucket = queue_.bucket(b);
    queued += bucket.jobs.size();
    std::size_t listed = 0;
    for (std::size_t c = bucket.jobs.first_chunk(); c < bucket.jobs.chunk_count(); ++c) {
      const std::uint32_t* chunk = bucket.jobs.chunk_data(c);
      const std::size_t size = bucket.jobs.chunk_size(c);
      if (size == 0 || size > ChunkedJobs::kChunk)
        throw std::logic_error("invariant: a waiting-queue chunk is empty or overfull");
      for (std::size_t i = 0; i < size; ++i) {
        const std::uint32_t index = chunk[i];
        if (all[index].phase != JobPhase::kWaiting || all[index].vc != bucket.vc ||
            all[index].gpus != bucket.gpus || all[index].milli != bucket.milli ||
            all[index].gpu_type != bucket.gpu_type)
          throw std::logic_error(
              "invariant: the queue holds a job that is not waiting in that bucket");
        const std::uint32_t previous =
            i > 0 ? chunk[i - 1]
            : c > bucket.jobs.first_chunk()
                ? bucket.jobs.chunk_data(c - 1)[bucket.jobs.chunk_size(c - 1) - 1]
                : index;
        if (previous != index && !before(previous, index))
          throw std::logic_error("invariant: a waiting-queue bucket is out of policy order");
        ++listed;
      }
    }
    if (listed != bucket.jobs.size())
      throw std::logic_error("invariant: a waiting-queue bucket's size drifted");
  }
  if (queued != queue_.size()) throw std::logic_error("invariant: queue length drifted");
  if (queued != view_.waiting().size())
    throw std::logic_error("invariant: the queue and the simulation's waiting jobs differ");
}

}  // namespace clustersim::internal
