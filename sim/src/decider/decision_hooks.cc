#include "decider/decision_hooks.h"

#include <algorithm>
#include <stdexcept>

namespace clustersim::internal {

DecisionHooks::DecisionHooks(const SimOptions& options, Admission& admission,
                             PlacementStage& placement, std::vector<DecisionMechanism*> mechanisms,
                             Host& checked, Decider* inner)
    : ordering_(options, placement, admission),
      mechanisms_(std::move(mechanisms)),
      hooks_(mechanisms_),
      stages_(options, ordering_, admission, placement),
      checked_(checked),
      user_host_(*this, checked),
      inner_(inner) {}

void DecisionHooks::attach(Host& host) {
  stages_.attach(host);
  ordering_.grow();
  for (DecisionMechanism* mechanism : mechanisms_) mechanism->bind(stages_);
  if (inner_) inner_->attach(user_host_);
}

void DecisionHooks::jobs_added() {
  ordering_.grow();
  if (inner_) inner_->jobs_added();
}

void DecisionHooks::on_waiting(std::uint32_t job) {
  ordering_.enqueue(job, view().now());
  if (inner_) inner_->on_waiting(job);
}

void DecisionHooks::on_rebound(std::uint32_t job, int old_gpu_type) {
  ordering_.rebucket(job, old_gpu_type);
  if (inner_) inner_->on_rebound(job, old_gpu_type);
}

void DecisionHooks::on_arrival(std::uint32_t job) {
  for (DecisionMechanism* mechanism : hooks_.on_arrival) mechanism->on_arrival(job);
  if (inner_) inner_->on_arrival(job);
}

void DecisionHooks::on_finished(std::uint32_t job) {
  if (ordering_.rekeys()) ordering_.finished(job, view().now());
  if (inner_) inner_->on_finished(job);
}

void DecisionHooks::on_released() {
  stages_.mark_released();
  if (inner_) inner_->on_released();
}

void DecisionHooks::decide(const DecisionPoint& point) {
  begin(point);
  if (!inner_) throw std::logic_error("DecisionHooks::decide: no decider to ask");
  do {
    inner_->decide(point);
  } while (finish());
}

void DecisionHooks::begin(const DecisionPoint& point) {
  for (DecisionMechanism* mechanism : hooks_.before_pass) mechanism->before_pass(point);
  if (!hooks_.room_makers.empty()) make_room_for_head();
  next_after_pass_ = 0;
}

// The built-in pass asks for room for every job it would start split; here only the queue's
// head is known: room is made for it when its GPUs are free, but not on its fewest nodes. A
// shape room could not be made for stays failed until something is released.
void DecisionHooks::make_room_for_head() {
  if (stages_.released()) no_room_.clear();
  if (stages_.queue_empty()) return;
  const std::uint32_t head = stages_.head();
  const JobState& job = view().jobs()[head];
  if (job.requested_gpus == 0 || job.gpus > view().cluster().free_gpus(job.gpu_type) ||
      stages_.placement().room_on_fewest_nodes(head))
    return;
  const std::pair<int, int> shape{job.gpus, job.gpu_type};
  if (std::find(no_room_.begin(), no_room_.end(), shape) != no_room_.end()) return;
  for (DecisionMechanism* maker : hooks_.room_makers) {
    plan_.clear();
    if (maker->make_room(head, plan_)) {
      stages_.apply(plan_);
      no_room_.clear();
      return;
    }
  }
  no_room_.push_back(shape);
}

bool DecisionHooks::finish() {
  while (next_after_pass_ < hooks_.after_pass.size()) {
    DecisionMechanism* mechanism = hooks_.after_pass[next_after_pass_++];
    plan_.clear();
    if (mechanism->after_pass(plan_)) {
      if (!plan_.empty()) stages_.apply(plan_);
      no_room_.clear();
      return true;  // the decider decides again, then the next hook is tried
    }
  }
  for (DecisionMechanism* mechanism : hooks_.use_idle) {
    plan_.clear();
    if (mechanism->use_idle(plan_)) stages_.apply(plan_);
  }
  const Time now = view().now();
  for (DecisionMechanism* mechanism : hooks_.after_decision) mechanism->after_decision(now);
  stages_.decision_over();
  next_after_pass_ = 0;
  return false;
}

void DecisionHooks::apply_and_follow(const Plan& plan) {
  const auto all = view().jobs();
  named_.clear();
  for (const Plan::Change& change : plan.changes()) {
    if (change.job >= all.size()) continue;  // the check below names it
    const JobState& job = all[change.job];
    if (job.phase == JobPhase::kWaiting)
      named_.push_back({change.job, job.vc, job.gpus, job.gpu_type, job.milli});
  }
  checked_.apply(plan);  // checked whole: on a PlanError nothing changed, the queue included
  for (const Queued& queued : named_) {
    if (all[queued.job].phase == JobPhase::kWaiting) continue;
    if (!ordering_.queue().erase(queued.job, queued.vc, queued.gpus, queued.gpu_type, queued.milli,
                                 ordering_.order()))
      throw std::logic_error("decision hooks: a job that started was not in the queue");
    stages_.mark_started();
  }
}

std::optional<std::uint32_t> DecisionHooks::head_of_queue() const {
  return inner_ ? inner_->head_of_queue() : std::nullopt;
}

bool DecisionHooks::expects_wakeup() const { return inner_ && inner_->expects_wakeup(); }

void DecisionHooks::check_invariants() const {
  ordering_.check_invariants();
  if (inner_) inner_->check_invariants();
}

void DecisionHooks::report(RunMetrics& metrics) const {
  for (const DecisionMechanism* mechanism : mechanisms_) mechanism->report(metrics);
  if (inner_) inner_->report(metrics);
}

}  // namespace clustersim::internal
