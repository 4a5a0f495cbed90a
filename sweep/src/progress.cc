#include "clustersim/sweep/progress.h"

#include <cmath>

namespace clustersim::sweep {

namespace {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  long total = std::lround(seconds);
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60,
                  total % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  }
  return text;
}

}  // namespace

ProgressReporter::ProgressReporter(std::FILE* out, std::size_t total_points,
                                   std::size_t already_done, double total_cost, bool live,
                                   std::chrono::milliseconds interval)
    : out_(out),
      total_(total_points),
      resumed_(already_done),
      total_cost_(total_cost),
      live_(live),
      interval_(live ? std::chrono::milliseconds(250) : interval) {}

double ProgressReporter::seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void ProgressReporter::point_done(double cost) {
  ++done_;
  done_cost_ += cost;
}

std::string ProgressReporter::line() const {
  const double elapsed = seconds();
  const std::size_t done = resumed_ + done_;
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
  // Remaining time from measured cost throughput: long points early do not inflate the ETA.
  const double eta = done_cost_ > 0 ? (total_cost_ - done_cost_) * elapsed / done_cost_ : NAN;
  char text[160];
  std::snprintf(text, sizeof text,
                "sweep: %zu/%zu points (%.0f%%), %.2f points/s, elapsed %s, ETA %s", done, total_,
                total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0,
                rate, format_duration(elapsed).c_str(),
                done == total_ ? "0:00" : format_duration(eta).c_str());
  return text;
}

void ProgressReporter::maybe_print(bool force) {
  if (out_ == nullptr) return;
  auto now = Clock::now();
  if (!force && now - last_print_ < interval_) return;
  last_print_ = now;
  if (live_) {
    std::fprintf(out_, "\r%s\x1b[K", line().c_str());
    printed_live_ = true;
  } else {
    std::fprintf(out_, "%s\n", line().c_str());
  }
  std::fflush(out_);
}

void ProgressReporter::finish() {
  maybe_print(true);
  if (live_ && printed_live_ && out_ != nullptr) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

}  // namespace clustersim::sweep
