// Rank 0's progress report: a live line (points done/total, rate, ETA) rewritten in place when
// stderr is a terminal, else a plain line every `interval` (Slurm logs keep every line).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace clustersim::sweep {

class ProgressReporter {
 public:
  using Clock = std::chrono::steady_clock;

  // `already_done`: points finished by earlier sessions (resume); `total_cost`: estimated cost of
  // the points this session runs (the ETA scales measured speed by remaining cost).
  ProgressReporter(std::FILE* out, std::size_t total_points, std::size_t already_done,
                   double total_cost, bool live, std::chrono::milliseconds interval);

  void point_done(double cost);
  // Prints if the interval elapsed (or always with `force`).
  void maybe_print(bool force = false);
  void finish();

  std::string line() const;
  std::size_t done() const { return done_; }
  double seconds() const;

 private:
  std::FILE* out_;
  std::size_t total_;
  std::size_t resumed_;
  std::size_t done_ = 0;  // this session
  double total_cost_;
  double done_cost_ = 0.0;
  bool live_;
  std::chrono::milliseconds interval_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_ = start_;
  bool printed_live_ = false;
};

}  // namespace clustersim::sweep
