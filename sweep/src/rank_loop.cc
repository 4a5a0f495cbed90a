// What every rank's main thread uses while the sweep runs (rank_loop.h).
#include "rank_loop.h"

#include <ctime>
#include <iostream>
#include <string>

namespace clustersim::sweep::sweep_internal {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal_number) { g_stop_signal = signal_number; }

void print_error(const std::string& message) {
  std::cerr << "clustersim sweep: error: " << message << "\n";
}

// CPU time of the calling thread: rank 0's main thread does all dispatch, journal and HDF5 work
// (simulations run on arena threads), so this is the harness's own cost, unaffected by sleeping
// or by other processes competing for the cores.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace clustersim::sweep::sweep_internal
