// JobAdmission: the seam through which the engine asks, as it loads each job, whether the job
// can ever run. decider/admission.h implements the built-in rules (VCs, GPU types, quotas, and
// what the hardware offers); the engine itself holds none.
#pragma once

#include <optional>
#include <string>

#include "clustersim/job_state.h"
#include "clustersim/view.h"

namespace clustersim::internal {

// Which jobs can ever run: asked once per job as it is loaded (after its VC and GPU type are
// resolved), so that a job that can never start is rejected (or reported) before the run.
// decider/admission.h implements the built-in rules.
class JobAdmission {
 public:
  struct Rejection {
    const char* field;  // the job's attribute at fault, in the native CSV's terms
    std::string why;
  };
  virtual ~JobAdmission() = default;
  virtual std::optional<Rejection> check(const JobState& job, const View& view) = 0;
};

}  // namespace clustersim::internal
