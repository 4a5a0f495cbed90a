#include "clustersim/report.h"

#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "clustersim/steady_state.h"

namespace clustersim {

std::string metrics_json(const RunMetrics& m) { return metrics_json(m, {}); }

std::string metrics_json(const RunMetrics& m,
                         const std::vector<std::pair<std::string, double>>& extra) {
  // In schema order; values are full precision so results can be compared bit for bit.
  nlohmann::ordered_json json;
  for (const MetricField& field : run_metric_fields()) {
    if (field.type == FieldType::kCount)
      json[std::string(field.name)] = m.*field.count;
    else
      json[std::string(field.name)] = m.*field.real;
  }
  for (const auto& [name, value] : extra) json[name] = value;
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

namespace {

void jobs_csv(std::ostream& out, const std::vector<JobSpec>& specs, const RunResult& result,
              bool marked) {
  // job_id, the original numeric columns, model, vc, status, then columns added since.
  const auto fields = job_record_fields();
  const auto write_header = [&](bool first_block) {
    for (const JobField& field : fields)
      if (field.first_block == first_block) out << ',' << field.name;
  };
  out << "job_id";
  write_header(true);
  out << ",model,vc,status";
  write_header(false);
  for (const std::string& type : result.gpu_types) out << ",gpu_seconds." << csv_field(type);
  for (const RunResult::Column& column : result.job_columns) out << ',' << column.name;
  out << (marked ? ",measured\n" : "\n");
  for (const auto& record : result.jobs) {
    const JobSpec& spec = specs[record.index];
    const bool finished = record.finish_time >= 0.0;
    const auto write_values = [&](bool first_block) {
      for (const JobField& field : fields) {
        if (field.first_block != first_block) continue;
        out << ',';
        if (field.finished_only && !finished) continue;
        if (field.type == FieldType::kCount)
          out << record.*field.count;
        else
          put_number(out, record.*field.real);
      }
    };
    out << csv_field(spec.id);
    write_values(true);
    out << ',' << csv_field(spec.model) << ',' << csv_field(spec.vc) << ','
        << (record.rejected ? "rejected"
            : finished      ? "finished"
                            : "unfinished");
    write_values(false);
    const std::size_t types = result.gpu_types.size();
    for (std::size_t t = 0; t < types && !result.type_gpu_seconds.empty(); ++t) {
      out << ',';
      put_number(out, result.type_gpu_seconds[record.index * types + t]);
    }
    for (const RunResult::Column& column : result.job_columns) {
      out << ',';
      put_number(out, column.values[record.index]);
    }
    if (marked) out << ',' << (is_measured(result.metrics, record) ? 1 : 0);
    out << '\n';
  }
}

void timeseries_csv(std::ostream& out, const RunResult& result, bool marked) {
  const auto fields = sample_fields();
  for (std::size_t f = 0; f < fields.size(); ++f) out << (f ? "," : "") << fields[f].name;
  for (const RunResult::Column& column : result.sample_columns) out << ',' << column.name;
  out << (marked ? ",measured\n" : "\n");
  for (std::size_t row = 0; row < result.samples.size(); ++row) {
    const Sample& sample = result.samples[row];
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (f) out << ',';
      if (fields[f].type == FieldType::kCount)
        out << sample.*fields[f].count;
      else
        put_number(out, sample.*fields[f].real);
    }
    for (const RunResult::Column& column : result.sample_columns) {
      out << ',';
      put_number(out, column.values[row]);
    }
    if (marked) out << ',' << (is_measured(result.metrics, sample) ? 1 : 0);
    out << '\n';
  }
}

}  // namespace

void write_jobs_csv(std::ostream& out, const std::vector<JobSpec>& specs, const RunResult& result) {
  jobs_csv(out, specs, result, false);
}
void write_jobs_csv_marked(std::ostream& out, const std::vector<JobSpec>& specs,
                           const RunResult& result) {
  jobs_csv(out, specs, result, true);
}
void write_timeseries_csv(std::ostream& out, const RunResult& result) {
  timeseries_csv(out, result, false);
}
void write_timeseries_csv_marked(std::ostream& out, const RunResult& result) {
  timeseries_csv(out, result, true);
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
