// Options and JSON shared by the benchmark executables (host-only, header-only).
#pragma once

#include <chrono>
#include <ctime>
#include <iostream>
#include <set>
#include <string>
#include <thread>

#include "ckbench/cli.h"
#include "ckbench/report.h"
#include "ckbench/stats.h"

namespace ckbench {

// The stopping-rule options every benchmark accepts.
inline const std::set<std::string>& stop_rule_keys() {
  static const std::set<std::string> keys = {"max-noise", "min-samples", "min-time", "max-time",
                                             "json"};
  return keys;
}

inline std::set<std::string> with_stop_keys(std::set<std::string> keys) {
  keys.insert(stop_rule_keys().begin(), stop_rule_keys().end());
  return keys;
}

inline StopRule stop_rule_from(const Args& args, StopRule rule = {}) {
  rule.max_noise = args.num("max-noise", rule.max_noise * 100.0) / 100.0;  // given in percent
  rule.min_samples =
      static_cast<std::size_t>(args.num("min-samples", static_cast<double>(rule.min_samples)));
  rule.min_time_s = args.num("min-time", rule.min_time_s);
  rule.max_time_s = args.num("max-time", rule.max_time_s);
  return rule;
}

inline std::string stop_rule_help() {
  return "  --max-noise PCT     stop when the 95% CI half-width of the mean is below PCT% "
         "(default 0.5)\n"
         "  --min-samples N     at least N samples (default 10)\n"
         "  --min-time S        at least S seconds measured (default 0.2)\n"
         "  --max-time S        give up (flagged 'timeout') after S seconds (default 10)\n"
         "  --json FILE         also write the results as JSON\n";
}

inline Json to_json(const StopRule& r) {
  Json j = Json::object();
  j["max_noise"] = r.max_noise;
  j["min_samples"] = r.min_samples;
  j["min_time_s"] = r.min_time_s;
  j["max_time_s"] = r.max_time_s;
  return j;
}

inline Json to_json(const Measurement& m) {
  Json j = Json::object();
  j["samples"] = m.stats.n;
  j["mean_s"] = m.stats.mean;
  j["median_s"] = m.stats.median;
  j["min_s"] = m.stats.min;
  j["max_s"] = m.stats.max;
  j["stddev_s"] = m.stats.stddev;
  j["noise"] = m.stats.noise;
  j["stop"] = to_string(m.reason);
  return j;
}

inline Json run_header(const std::string& benchmark, const StopRule& rule) {
  Json j = Json::object();
  j["benchmark"] = benchmark;
  j["generator"] = "clustersim gpu_kernels";
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["time_utc"] = buf;
  j["host_cpus"] = static_cast<int>(std::thread::hardware_concurrency());
  j["stop_rule"] = to_json(rule);
  return j;
}

// A benchmark run where there is no GPU: says so on stdout and, with --json, writes a
// "skipped" report, so scripts can tell "nothing measured" from a failure. Returns true when
// the caller should stop (exit 0).
inline bool report_skipped_without_device(const Args& args, int device_count,
                                          const std::string& program, const std::string& benchmark,
                                          const std::string& why) {
  if (device_count > 0) return false;
  std::cout << program << ": skipped: no CUDA device (" << why << ")\n";
  if (args.has("json")) {
    Json out = run_header(benchmark, StopRule{});
    out["status"] = "skipped";
    out["reason"] = why;
    write_json_file(args.str("json", ""), out);
  }
  return true;
}

// Seconds of one call of `f`.
template <typename F>
double time_call(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ckbench
