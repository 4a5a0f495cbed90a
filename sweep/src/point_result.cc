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

// Format 1: the first 19 run metrics, 10 job fields and 6 sample fields, without counts.
// Format 2: the three field counts, then the fields, all in table order.
// Format 3: format 2, then a byte saying whether a spool reference (RowsRef) follows.
// Format 4: format 3, then the columns components added (PointResult::job_columns, then
// ::sample_columns): a count, then each column's name, value count and values.
// A result is written in the oldest format that holds it (2 without a reference or added
// columns), so older builds read what they can and every earlier result encodes as before.
constexpr std::uint32_t kResultFormat = 4;
constexpr std::uint32_t kFormat1Counts[3] = {19, 10, 6};

}  // namespace

std::string encode_result(const PointResult& result) {
  Writer out;
  const bool added = !result.job_columns.empty() || !result.sample_columns.empty();
  out.put(added ? kResultFormat : result.rows ? std::uint32_t{3} : std::uint32_t{2});
  out.put(result.point_id);
  out.put(result.rank);
  out.put(result.elapsed_s);
  out.put_string(result.error);
  const auto metric_fields = run_metric_fields();
  const auto job_fields = job_record_fields();
  const auto sample_fields_ = sample_fields();
  out.put(static_cast<std::uint32_t>(metric_fields.size()));
  out.put(static_cast<std::uint32_t>(job_fields.size()));
  out.put(static_cast<std::uint32_t>(sample_fields_.size()));
  // Field by field, not the struct's bytes: padding would make equal results encode differently.
  const RunMetrics& m = result.metrics;
  for (const MetricField& field : metric_fields) {
    if (field.type == FieldType::kCount)
      out.put(static_cast<std::uint64_t>(m.*field.count));
    else
      out.put(m.*field.real);
  }
  out.put(static_cast<std::uint64_t>(result.jobs.size()));
  for (const JobRecord& job : result.jobs) {
    out.put(job.index);
    for (const JobField& field : job_fields) {
      if (field.type == FieldType::kCount)
        out.put(static_cast<std::int32_t>(job.*field.count));
      else
        out.put(job.*field.real);
    }
    out.put(static_cast<std::uint8_t>(job.rejected));
  }
  out.put(static_cast<std::uint64_t>(result.samples.size()));
  for (const Sample& sample : result.samples) {
    for (const SampleField& field : sample_fields_) {
      if (field.type == FieldType::kCount)
        out.put(static_cast<std::int32_t>(sample.*field.count));
      else
        out.put(sample.*field.real);
    }
  }
  if (result.rows) {
    const RowsRef& ref = *result.rows;
    out.put(std::uint8_t{1});
    out.put_string(ref.file);
    out.put(ref.offset);
    out.put(ref.bytes);
    out.put(ref.checksum);
    out.put(ref.jobs);
    out.put(ref.samples);
  } else if (added) {
    out.put(std::uint8_t{0});
  }
  if (added) {
    for (const auto* columns : {&result.job_columns, &result.sample_columns}) {
      out.put(static_cast<std::uint32_t>(columns->size()));
      for (const RunResult::Column& column : *columns) {
        out.put_string(column.name);
        out.put(static_cast<std::uint64_t>(column.values.size()));
        for (const double value : column.values) out.put(value);
      }
    }
  }
  return out.take();
}

PointResult decode_result(std::string_view bytes) {
  Reader in(bytes);
  const auto format = in.get<std::uint32_t>();
  if (format < 1 || format > kResultFormat) throw std::runtime_error("unknown point result format");
  PointResult result;
  result.point_id = in.get<std::uint64_t>();
  result.rank = in.get<std::int32_t>();
  result.elapsed_s = in.get<double>();
  result.error = in.get_string();
  std::uint32_t counts[3] = {kFormat1Counts[0], kFormat1Counts[1], kFormat1Counts[2]};
  if (format >= 2)
    for (auto& count : counts) count = in.get<std::uint32_t>();
  const auto metric_fields = run_metric_fields();
  const auto job_fields = job_record_fields();
  const auto sample_fields_ = sample_fields();
  if (counts[0] > metric_fields.size() || counts[1] > job_fields.size() ||
      counts[2] > sample_fields_.size())
    throw std::runtime_error("point result from a newer clustersim (more fields than known)");
  RunMetrics& m = result.metrics;
  for (std::size_t f = 0; f < counts[0]; ++f) {
    const MetricField& field = metric_fields[f];
    if (field.type == FieldType::kCount)
      m.*field.count = in.get<std::uint64_t>();
    else
      m.*field.real = in.get<double>();
  }
  result.jobs.resize(in.get<std::uint64_t>());
  for (JobRecord& job : result.jobs) {
    job.index = in.get<std::uint32_t>();
    for (std::size_t f = 0; f < counts[1]; ++f) {
      const JobField& field = job_fields[f];
      if (field.type == FieldType::kCount)
        job.*field.count = in.get<std::int32_t>();
      else
        job.*field.real = in.get<double>();
    }
    job.rejected = in.get<std::uint8_t>() != 0;
  }
  result.samples.resize(in.get<std::uint64_t>());
  for (Sample& sample : result.samples) {
    for (std::size_t f = 0; f < counts[2]; ++f) {
      const SampleField& field = sample_fields_[f];
      if (field.type == FieldType::kCount)
        sample.*field.count = in.get<std::int32_t>();
      else
        sample.*field.real = in.get<double>();
    }
  }
  if (format >= 3 && in.get<std::uint8_t>() != 0) {
    RowsRef ref;
    ref.file = in.get_string();
    ref.offset = in.get<std::uint64_t>();
    ref.bytes = in.get<std::uint64_t>();
    ref.checksum = in.get<std::uint64_t>();
    ref.jobs = in.get<std::uint64_t>();
    ref.samples = in.get<std::uint64_t>();
    result.rows = std::move(ref);
  }
  if (format >= 4) {
    for (auto* columns : {&result.job_columns, &result.sample_columns}) {
      // Values by row: as many as the rows the result carries (none when they were spooled).
      const std::size_t rows =
          columns == &result.job_columns ? result.jobs.size() : result.samples.size();
      columns->resize(in.get<std::uint32_t>());
      for (RunResult::Column& column : *columns) {
        column.name = in.get_string();
        const auto values = in.get<std::uint64_t>();
        if (values != rows)
          throw std::runtime_error("point result: column " + column.name + " has " +
                                   std::to_string(values) + " values for " + std::to_string(rows) +
                                   " rows");
        column.values.resize(values);
        for (double& value : column.values) value = in.get<double>();
      }
    }
  }
  if (!in.done()) throw std::runtime_error("trailing bytes after point result");
  return result;
}

}  // namespace clustersim::sweep
