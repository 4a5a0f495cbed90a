// Format names and the file-level entry point of the trace readers.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/workload.h"
#include "options/declare.h"
#include "workload/internal/input_kind.h"

namespace clustersim {

namespace {

ComponentDescriptor trace_format(std::string name, std::string summary,
                                 std::vector<std::string> key_components,
                                 Workload (*read)(std::istream&, const std::string&,
                                                  const ReaderOptions&)) {
  ComponentDescriptor d = describe(ComponentKind::kTraceFormat, std::move(name), std::move(summary),
                                   std::move(key_components));
  d.key_components.insert(d.key_components.begin(), "readers");
  d.factory.trace_reader = read;
  return d;
}

std::vector<ComponentDescriptor> trace_formats() {
  // In TraceFormat's order: a format's enumerator is its index here.
  std::vector<ComponentDescriptor> t;
  t.push_back(trace_format("csv", "the native job CSV", {}, read_native_csv));
  t.back().caps.gpu_shares = true;
  t.back().caps.llm_jobs = true;  // its model and layout columns
  t.push_back(trace_format("gavel", "Gavel's job traces", {"reader gavel"}, read_gavel));
  t.push_back(trace_format("openb", "Alibaba's openb pod lists", {"reader openb"}, read_openb));
  t.back().caps.gpu_shares = true;
  t.push_back(trace_format("helios", "SenseTime's Helios traces", {}, read_helios));
  t.push_back(trace_format("philly", "Microsoft's Philly trace", {}, read_philly));
  t.push_back(trace_format("dag", "serving query DAGs", {}, read_dag));
  t.back().caps.serving = true;
  t.push_back(trace_format("acme", "Shanghai AI Lab's AcmeTrace (LLM development)", {}, read_acme));
  return t;
}

}  // namespace

const std::vector<ComponentDescriptor>& trace_format_components() {
  static const std::vector<ComponentDescriptor> table = trace_formats();
  return table;
}

TraceFormat parse_trace_format(std::string_view name) {
  const auto& formats = trace_format_components();
  std::string expected;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    if (formats[i].name == name) return static_cast<TraceFormat>(i);
    expected += (i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + formats[i].name;
  }
  throw std::invalid_argument("unknown trace format '" + std::string(name) + "' (expected " +
                              expected + ")");
}

std::string_view trace_format_name(TraceFormat format) {
  const auto index = static_cast<std::size_t>(format);
  const auto& formats = trace_format_components();
  return index < formats.size() ? std::string_view(formats[index].name) : "unknown";
}

Workload read_trace(const std::string& path, TraceFormat format, const ReaderOptions& options) {
  const auto index = static_cast<std::size_t>(format);
  const auto& formats = trace_format_components();
  if (index >= formats.size()) throw std::invalid_argument("unknown trace format");
  // Binary mode: the readers strip "\r\n" themselves, and the Philly reader reports byte offsets.
  std::ifstream file = open_input_file(path, "trace file");
  try {
    return formats[index].factory.trace_reader(file, path, options);
  } catch (const InputError& error) {
    // A file of another known kind (another format's trace, a runtime table) fails with a
    // message about syntax; the hint says what it looks like and which key reads it.
    std::ifstream again(path, std::ios::binary);
    std::string head(64 * 1024, '\0');
    again.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(again.gcount()));
    const std::string hint = workload_internal::input_kind_hint(head, formats[index].name);
    if (hint.empty()) throw;
    throw InputError(error.file(), error.line(), error.field(), error.message() + hint);
  }
}

namespace options {

void declare_reader_keys(KeyRegistry& keys) {
  custom(keys, "workload.trace", KeyType::kPath)
      .component("readers")
      .doc(
          "A trace file (relative to the config file); set exactly one of `trace` and "
          "`generator`.");
  choice<WorkloadSource>(
      keys, "workload.format", [](auto& w) -> auto& { return w.format; },
      [] {
        std::vector<std::pair<std::string, TraceFormat>> names;
        for (const ComponentDescriptor& d : trace_format_components())
          names.emplace_back(d.name, parse_trace_format(d.name));
        return names;
      }())
      .when("workload.trace", {})
      .component("readers")
      .doc(
          "The trace's format ([`sim/README.md`](sim/README.md#trace-formats)); `dag`: serving "
          "query DAGs (below), run on the serving engine.");
  field<ReaderOptions>(
      keys, "workload.skip_invalid", [](auto& r) -> auto& { return r.skip_invalid; })
      .component("readers")
      .doc("Skip (count and report) malformed rows instead of failing.");
  choice<ReaderOptions>(
      keys, "workload.failed_pods", [](auto& r) -> auto& { return r.failed_pods; },
      std::vector<std::pair<std::string, FailedPods>>{{"keep", FailedPods::kKeep},
                                                      {"drop", FailedPods::kDrop}})
      .when("workload.format", {"openb"})
      .component("reader openb")
      .training_only()
      .doc(
          "`format = \"openb\"`: pods whose `pod_phase` is `Failed`: `keep` (replayed like "
          "any pod) or `drop` (counted in `trace_rows_dropped`, warned).");
  choice<ReaderOptions>(
      keys, "workload.censored_pods", [](auto& r) -> auto& { return r.censored_pods; },
      std::vector<std::pair<std::string, CensoredPods>>{{"drop", CensoredPods::kDrop},
                                                        {"run_to_end", CensoredPods::kRunToEnd}})
      .when("workload.format", {"openb"})
      .component("reader openb")
      .training_only()
      .doc(
          "`format = \"openb\"`: pods with no `deletion_time` (still running when the trace "
          "ends): `drop`, or `run_to_end` (until the trace's last time; a changed row). Either "
          "way counted and warned.");
  choice<ReaderOptions>(
      keys, "workload.cpu_only_pods", [](auto& r) -> auto& { return r.cpu_only_pods; },
      std::vector<std::pair<std::string, CpuOnlyPods>>{{"drop", CpuOnlyPods::kDrop},
                                                       {"run", CpuOnlyPods::kRun}})
      .when("workload.format", {"openb"})
      .component("reader openb")
      .training_only()
      .doc(
          "`format = \"openb\"`: CPU-only pods (`num_gpu` 0): `drop` (counted in "
          "`trace_rows_dropped`, warned) or `run` (0-GPU jobs on the nodes' CPUs; the cluster "
          "must model CPUs).");
  field<WorkloadSource>(
      keys, "workload.time_scale", [](auto& w) -> auto& { return w.time_scale; })
      .range(1e-9, 1e9)
      .when("workload.trace", {})
      .component("readers")
      .training_only()
      .doc(
          "A trace's arrival times x this (0.5: twice the arrival rate); the jobs' durations are "
          "unchanged. A generator's rate is its own `load` / `jobs_per_hour`.");
  field<WorkloadSource>(
      keys, "workload.target_load", [](auto& w) -> auto& { return w.target_load; })
      .range(0.0, 1e9)
      .when("workload.trace", {})
      .component("readers")
      .training_only()
      .doc(
          "Sets `time_scale` so that the workload's offered load, GPU-seconds asked (GPUs x "
          "duration) / (the cluster's GPUs x the span from first to last arrival), is this; for "
          "any trace (not a generator), not with `time_scale`. 0: off (arrivals as they are).");
  choice<WorkloadSource>(
      keys, "workload.departures", [](auto& w) -> auto& { return w.departures; },
      std::vector<std::pair<std::string, Departures>>{{"trace", Departures::kTrace},
                                                      {"none", Departures::kNone}})
      .component("placement study")
      .training_only()
      .doc(
          "`trace`: jobs run their durations and leave (the event-driven engine); `none`: the "
          "placement study ([`sim/README.md`](sim/README.md#the-placement-study)): no time, each "
          "pod placed once on `[cluster] node_list`'s per-GPU ledger, and it stays.");
  choice<WorkloadSource>(
      keys, "workload.on_unplaceable", [](auto& w) -> auto& { return w.on_unplaceable; },
      std::vector<std::pair<std::string, OnUnplaceable>>{{"wait", OnUnplaceable::kWait},
                                                         {"drop", OnUnplaceable::kDrop}})
      .component("placement study")
      .training_only()
      .doc(
          "A job that does not fit: `wait` (in time) or `drop` (counted; the placement study, "
          "which needs it).");
  choice<WorkloadSource>(
      keys, "workload.arrival_order", [](auto& w) -> auto& { return w.arrival_order; },
      std::vector<std::pair<std::string, ArrivalOrder>>{{"trace", ArrivalOrder::kTrace},
                                                        {"shuffle", ArrivalOrder::kShuffle}})
      .component("placement study")
      .training_only()
      .doc("The placement study: pods arrive in the trace's order or shuffled by the seed.");
  field<WorkloadSource>(
      keys, "workload.inflate_to", [](auto& w) -> auto& { return w.inflate_to; })
      .range(0.0, 100.0)
      .component("placement study")
      .training_only()
      .doc(
          "The placement study: > 0 clones random pods (after the trace's) until arrived GPU "
          "demand reaches this share of capacity (1.3: 130%; pods are removed at random when "
          "the trace's demand is above it); 0 = the trace as it is.");
}

// Gavel traces (gavel_reader.cc): the throughput table and the reference GPU type.
void declare_gavel_keys(KeyRegistry& keys) {
  field<ReaderOptions>(
      keys, "workload.throughputs", [](auto& r) -> auto& { return r.gavel_throughputs_path; })
      .when("workload.trace", {})
      .component("reader gavel")
      .training_only()
      .default_note("—")
      .path()
      .doc("`format = \"gavel\"`: Gavel's `simulation_throughputs.json` (required by it).");
  field<ReaderOptions>(
      keys, "workload.gavel_gpu_type", [](auto& r) -> auto& { return r.gavel_gpu_type; })
      .when("workload.trace", {})
      .component("reader gavel")
      .training_only()
      .doc("`format = \"gavel\"`: the GPU type whose steps/s give durations.");
}

}  // namespace options

}  // namespace clustersim
