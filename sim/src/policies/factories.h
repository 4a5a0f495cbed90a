// One factory per policy file; registry.cc maps names to them.
#pragma once

#include <memory>

#include "clustersim/policy.h"

namespace clustersim::policies {

std::unique_ptr<SchedulingPolicy> make_fifo(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sjf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_srtf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_las(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_tiresias(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_drf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_qssf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sju(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sjg(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sjgg(const SchedulerOptions& options);

}  // namespace clustersim::policies
