#include "clustersim/report.h"

#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>

namespace clustersim {

std::string metrics_json(const RunMetrics& m) {
  // Ordered as documented; values are full precision so results can be compared bit for bit.
  nlohmann::ordered_json json;
  json["jobs"] = m.jobs;
  json["rejected"] = m.rejected;
  json["jct_mean"] = m.jct_mean;
  json["jct_p50"] = m.jct_p50;
  json["jct_p95"] = m.jct_p95;
  json["jct_p99"] = m.jct_p99;
  json["jct_max"] = m.jct_max;
  json["queue_mean"] = m.queue_mean;
  json["queue_p50"] = m.queue_p50;
  json["queue_p99"] = m.queue_p99;
  json["makespan"] = m.makespan;
  json["gpu_util"] = m.gpu_util;
  json["gpu_seconds"] = m.gpu_seconds;
  json["overhead_gpu_seconds"] = m.overhead_gpu_seconds;
  json["preemptions"] = m.preemptions;
  json["frag_mean"] = m.frag_mean;
  json["queue_len_mean"] = m.queue_len_mean;
  json["events"] = m.events;
  json["rounds"] = m.rounds;
  return json.dump();
}

namespace {
// Shortest text that reads back to the same double.
void put_number(std::ostream& out, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  out << buffer;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}
}  // namespace

void write_jobs_csv(std::ostream& out, const std::vector<JobSpec>& specs, const RunResult& result) {
  out << "job_id,submit_time,start_time,finish_time,jct,queue_delay,num_gpus,preemptions,"
         "gpu_seconds,overhead_gpu_seconds,nodes,model,vc,status\n";
  for (const auto& record : result.jobs) {
    const JobSpec& spec = specs[record.index];
    const bool finished = record.finish_time >= 0.0;
    out << csv_field(spec.id) << ',';
    put_number(out, record.submit_time);
    out << ',';
    if (finished) put_number(out, record.start_time);
    out << ',';
    if (finished) put_number(out, record.finish_time);
    out << ',';
    if (finished) put_number(out, record.jct);
    out << ',';
    if (finished) put_number(out, record.queue_delay);
    out << ',' << record.num_gpus << ',' << record.preemptions << ',';
    put_number(out, record.gpu_seconds);
    out << ',';
    put_number(out, record.overhead_gpu_seconds);
    out << ',' << record.nodes << ',' << csv_field(spec.model) << ',' << csv_field(spec.vc) << ','
        << (record.rejected ? "rejected"
            : finished      ? "finished"
                            : "unfinished")
        << '\n';
  }
}

void write_timeseries_csv(std::ostream& out, const RunResult& result) {
  out << "time,busy_gpus,idle_gpus,fragmented_gpus,queue_length,running_jobs\n";
  for (const auto& s : result.samples) {
    put_number(out, s.time);
    out << ',' << s.busy_gpus << ',' << s.idle_gpus << ',' << s.fragmented_gpus << ','
        << s.queue_length << ',' << s.running_jobs << '\n';
  }
}

void write_summary(std::ostream& out, const RunMetrics& m) {
  const auto hours = [](double seconds) { return seconds / 3600.0; };
  out << std::fixed << std::setprecision(2);
  out << "jobs completed      " << m.jobs
      << (m.rejected ? " (" + std::to_string(m.rejected) + " rejected)" : "") << '\n';
  out << "JCT (h)             mean " << hours(m.jct_mean) << "  p50 " << hours(m.jct_p50)
      << "  p95 " << hours(m.jct_p95) << "  p99 " << hours(m.jct_p99) << "  max "
      << hours(m.jct_max) << '\n';
  out << "queueing delay (h)  mean " << hours(m.queue_mean) << "  p50 " << hours(m.queue_p50)
      << "  p99 " << hours(m.queue_p99) << '\n';
  out << "makespan (h)        " << hours(m.makespan) << '\n';
  out << "GPU utilization     " << 100.0 * m.gpu_util << " %\n";
  out << "preemptions         " << m.preemptions << "  (overhead " << hours(m.overhead_gpu_seconds)
      << " GPU-h)\n";
  out << "fragmented GPUs     " << m.frag_mean << " (time average)\n";
  out << "queue length        " << m.queue_len_mean << " (time average)\n";
  out << "events              " << m.events << "  rounds " << m.rounds << '\n';
  out.unsetf(std::ios::floatfield);
}

}  // namespace clustersim
