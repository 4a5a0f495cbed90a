#include "clustersim/sweep/point_result.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace clustersim::sweep {

namespace {

class Writer {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_string(const std::string& text) {
    put(static_cast<std::uint32_t>(text.size()));
    bytes_ += text;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    T value;
    need(sizeof value);
    std::memcpy(&value, bytes_.data() + offset_, sizeof value);
    offset_ += sizeof value;
    return value;
  }
  std::string get_string() {
    auto size = get<std::uint32_t>();
    need(size);
    std::string text(bytes_.substr(offset_, size));
    offset_ += size;
    return text;
  }
  bool done() const { return offset_ == bytes_.size(); }

 private:
  void need(std::size_t size) const {
    if (bytes_.size() - offset_ < size) throw std::runtime_error("truncated point result");
  }
  std::string_view bytes_;
  std::size_t offset_ = 0;
};

constexpr std::uint32_t kResultFormat = 1;

#define CLUSTERSIM_DOUBLE_METRIC(field)                                            \
  MetricColumn {                                                                   \
#field, false, [](const RunMetrics& m) { return static_cast<double>(m.field); }, \
                 [](const RunMetrics& m) { return static_cast<std::int64_t>(m.field); } \
  }
#define CLUSTERSIM_INTEGER_METRIC(field)                                          \
  MetricColumn {                                                                  \
#field, true, [](const RunMetrics& m) { return static_cast<double>(m.field); }, \
                 [](const RunMetrics& m) { return static_cast<std::int64_t>(m.field); } \
  }

}  // namespace

const std::vector<MetricColumn>& metric_columns() {
  static const std::vector<MetricColumn> columns = {
      CLUSTERSIM_INTEGER_METRIC(jobs),          CLUSTERSIM_INTEGER_METRIC(rejected),
      CLUSTERSIM_DOUBLE_METRIC(jct_mean),       CLUSTERSIM_DOUBLE_METRIC(jct_p50),
      CLUSTERSIM_DOUBLE_METRIC(jct_p95),        CLUSTERSIM_DOUBLE_METRIC(jct_p99),
      CLUSTERSIM_DOUBLE_METRIC(jct_max),        CLUSTERSIM_DOUBLE_METRIC(queue_mean),
      CLUSTERSIM_DOUBLE_METRIC(queue_p50),      CLUSTERSIM_DOUBLE_METRIC(queue_p99),
      CLUSTERSIM_DOUBLE_METRIC(makespan),       CLUSTERSIM_DOUBLE_METRIC(gpu_util),
      CLUSTERSIM_DOUBLE_METRIC(gpu_seconds),    CLUSTERSIM_DOUBLE_METRIC(overhead_gpu_seconds),
      CLUSTERSIM_INTEGER_METRIC(preemptions),   CLUSTERSIM_DOUBLE_METRIC(frag_mean),
      CLUSTERSIM_DOUBLE_METRIC(queue_len_mean), CLUSTERSIM_INTEGER_METRIC(events),
      CLUSTERSIM_INTEGER_METRIC(rounds)};
  return columns;
}

std::string encode_result(const PointResult& result) {
  Writer out;
  out.put(kResultFormat);
  out.put(result.point_id);
  out.put(result.rank);
  out.put(result.elapsed_s);
  out.put_string(result.error);
  // Field by field, not the struct's bytes: padding would make equal results encode differently.
  const RunMetrics& m = result.metrics;
  out.put(static_cast<std::uint64_t>(m.jobs));
  out.put(static_cast<std::uint64_t>(m.rejected));
  for (double value :
       {m.jct_mean, m.jct_p50, m.jct_p95, m.jct_p99, m.jct_max, m.queue_mean, m.queue_p50,
        m.queue_p99, m.makespan, m.gpu_util, m.gpu_seconds, m.overhead_gpu_seconds}) {
    out.put(value);
  }
  out.put(static_cast<std::uint64_t>(m.preemptions));
  out.put(m.frag_mean);
  out.put(m.queue_len_mean);
  out.put(m.events);
  out.put(m.rounds);
  out.put(static_cast<std::uint64_t>(result.jobs.size()));
  for (const JobRecord& job : result.jobs) {
    out.put(job.index);
    out.put(job.submit_time);
    out.put(job.start_time);
    out.put(job.finish_time);
    out.put(job.jct);
    out.put(job.queue_delay);
    out.put(static_cast<std::int32_t>(job.num_gpus));
    out.put(static_cast<std::int32_t>(job.preemptions));
    out.put(job.gpu_seconds);
    out.put(job.overhead_gpu_seconds);
    out.put(static_cast<std::int32_t>(job.nodes));
    out.put(static_cast<std::uint8_t>(job.rejected));
  }
  out.put(static_cast<std::uint64_t>(result.samples.size()));
  for (const Sample& sample : result.samples) {
    out.put(sample.time);
    for (int value : {sample.busy_gpus, sample.idle_gpus, sample.fragmented_gpus,
                      sample.queue_length, sample.running_jobs}) {
      out.put(static_cast<std::int32_t>(value));
    }
  }
  return out.take();
}

PointResult decode_result(std::string_view bytes) {
  Reader in(bytes);
  if (in.get<std::uint32_t>() != kResultFormat)
    throw std::runtime_error("unknown point result format");
  PointResult result;
  result.point_id = in.get<std::uint64_t>();
  result.rank = in.get<std::int32_t>();
  result.elapsed_s = in.get<double>();
  result.error = in.get_string();
  RunMetrics& m = result.metrics;
  m.jobs = in.get<std::uint64_t>();
  m.rejected = in.get<std::uint64_t>();
  for (double* field :
       {&m.jct_mean, &m.jct_p50, &m.jct_p95, &m.jct_p99, &m.jct_max, &m.queue_mean, &m.queue_p50,
        &m.queue_p99, &m.makespan, &m.gpu_util, &m.gpu_seconds, &m.overhead_gpu_seconds}) {
    *field = in.get<double>();
  }
  m.preemptions = in.get<std::uint64_t>();
  m.frag_mean = in.get<double>();
  m.queue_len_mean = in.get<double>();
  m.events = in.get<std::uint64_t>();
  m.rounds = in.get<std::uint64_t>();
  result.jobs.resize(in.get<std::uint64_t>());
  for (JobRecord& job : result.jobs) {
    job.index = in.get<std::uint32_t>();
    job.submit_time = in.get<double>();
    job.start_time = in.get<double>();
    job.finish_time = in.get<double>();
    job.jct = in.get<double>();
    job.queue_delay = in.get<double>();
    job.num_gpus = in.get<std::int32_t>();
    job.preemptions = in.get<std::int32_t>();
    job.gpu_seconds = in.get<double>();
    job.overhead_gpu_seconds = in.get<double>();
    job.nodes = in.get<std::int32_t>();
    job.rejected = in.get<std::uint8_t>() != 0;
  }
  result.samples.resize(in.get<std::uint64_t>());
  for (Sample& sample : result.samples) {
    sample.time = in.get<double>();
    for (int* field : {&sample.busy_gpus, &sample.idle_gpus, &sample.fragmented_gpus,
                       &sample.queue_length, &sample.running_jobs}) {
      *field = in.get<std::int32_t>();
    }
  }
  if (!in.done()) throw std::runtime_error("trailing bytes after point result");
  return result;
}

}  // namespace clustersim::sweep
