// Private to the sweep's sources: what every rank's main thread uses while the sweep runs (the
// poll interval, stop signals, the harness's own CPU clock), and its error line.
#pragma once

#include <algorithm>
#include <chrono>
#include <csignal>
#include <string>

namespace clustersim::sweep::sweep_internal {

using Clock = std::chrono::steady_clock;
// A rank's main thread sleeps between MPI polls: briefly after activity, backing off to
// kMaxPoll when nothing happens (each wake-up costs CPU that simulations could use). Work
// prefetch hides the latency; a finishing local point wakes the thread at once.
constexpr auto kMinPoll = std::chrono::microseconds(100);
constexpr auto kMaxPoll = std::chrono::microseconds(10000);

class PollBackoff {
 public:
  void activity() { interval_ = kMinPoll; }
  std::chrono::microseconds next() {
    auto current = interval_;
    interval_ = std::min(interval_ * 2, kMaxPoll);
    return current;
  }

 private:
  std::chrono::microseconds interval_ = kMinPoll;
};
// A stopping rank 0 waits this long for the other ranks' last results before it writes the file.
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr auto kJournalSyncInterval = std::chrono::seconds(5);
// From this many ranks on, every rank writes its share of the final file's row tables.
constexpr int kCollectiveRanks = 16;

// The stop signal received (SIGTERM, SIGUSR1, SIGINT), 0 while none has come (rank_loop.cc).
extern volatile std::sig_atomic_t g_stop_signal;

extern "C" void on_stop_signal(int signal_number);

// Catches the stop signals for its lifetime (g_stop_signal), restoring the previous handlers.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &previous_[i]);
  }
  ~StopSignals() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
  }

 private:
  static constexpr int kSignals[3] = {SIGTERM, SIGUSR1, SIGINT};
  struct sigaction previous_[3];
};

// "clustersim sweep: error: MESSAGE" on stderr.
void print_error(const std::string& message);

// CPU time of the calling thread (rank_loop.cc).
double thread_cpu_seconds();

}  // namespace clustersim::sweep::sweep_internal
