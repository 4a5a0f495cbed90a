// The native CSV trace: a header row naming the columns (any order), one job per row.
//
//   job_id,submit_time,num_gpus,duration[,model,vc,user,cpus,mem_gb,priority,gpu_type,
//                                         min_gpus,max_gpus,checkpoint_interval_s,
//                                         gpu_mem_gb,mig_profile,
//                                         hidden,layers,heads,seq_len,vocab,global_batch,
//                                         micro_batch,precision,tp,pp,dp,cp,vp]
//
// gpu_mem_gb is the GPU memory the job needs on each GPU (GB; checked where the cluster models
// GPU memory). mig_profile asks for a MIG slice (mig.h, e.g. 1g.10gb; num_gpus 1) instead of a
// whole GPU.
// num_gpus is a whole number (0: a CPU-only job, which needs cpus > 0) or a share of one GPU in
// (0, 1) in thousandths (0.5: JobSpec::gpu_milli 500; it shares a GPU with [sharing] on, else it
// runs on a whole GPU).
// min_gpus/max_gpus make a job elastic ([mechanisms] elastic): min_gpus <= num_gpus <= max_gpus,
// either one alone defaulting to num_gpus. checkpoint_interval_s is the job's own period of
// checkpoints (seconds of running; [mechanisms] checkpoint_interval_s otherwise).
// An LLM training job (llm.h) fills any of the last thirteen: its shape from `model` when that
// names a preset (llm_preset_list(); hidden, layers, heads, seq_len and vocab override it) or
// from the shape columns; global_batch is required, micro_batch, tp, pp, cp and vp default to 1,
// dp to num_gpus / (tp x pp x cp), precision to bf16; tp x pp x dp x cp must be num_gpus.
// Times are seconds. Blank lines and lines starting with '#' are ignored. Fields may be quoted
// ("a,b"; "" inside is a quote) but cannot span lines. Unknown or repeated columns are an error
// at the header line; so is a missing required column. A row with fewer fields than the header
// names the first missing column; an empty optional field takes the JobSpec default.
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/llm.h"
#include "clustersim/mig.h"
#include "clustersim/workload.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using workload_internal::FieldReader;
using workload_internal::RowCollector;

enum Column : int {
  kJobId,
  kSubmitTime,
  kNumGpus,
  kDuration,
  kModel,
  kVc,
  kUser,
  kCpus,
  kMemGb,
  kPriority,
  kGpuType,
  kMinGpus,
  kMaxGpus,
  kCheckpointInterval,
  kGpuMemGb,
  kMigProfile,
  kHidden,
  kLayers,
  kHeads,
  kSeqLen,
  kVocab,
  kGlobalBatch,
  kMicroBatch,
  kPrecision,
  kTp,
  kPp,
  kDp,
  kCp,
  kVp,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "job_id",      "submit_time",
    "num_gpus",    "duration",
    "model",       "vc",
    "user",        "cpus",
    "mem_gb",      "priority",
    "gpu_type",    "min_gpus",
    "max_gpus",    "checkpoint_interval_s",
    "gpu_mem_gb",  "mig_profile",
    "hidden",      "layers",
    "heads",       "seq_len",
    "vocab",       "global_batch",
    "micro_batch", "precision",
    "tp",          "pp",
    "dp",          "cp",
    "vp"};
constexpr int kRequiredColumns = kDuration + 1;  // job_id .. duration

// A row's LLM cells (empty: unset), by Column - kHidden; precision apart.
struct LlmCells {
  std::array<std::optional<int>, kVp - kHidden + 1> number{};
  std::optional<Precision> precision;
  bool any() const {
    return precision || std::any_of(number.begin(), number.end(), [](auto& n) { return n; });
  }
  int get(Column column, int fallback) const { return number[column - kHidden].value_or(fallback); }
};

// The LLM job of a row with LLM cells, checked (llm.h).
LlmJob llm_job(const JobSpec& spec, const LlmCells& cells, const FieldReader& field) {
  LlmJob job;
  if (const auto preset = llm_preset(spec.model)) {
    job.shape = *preset;
  } else if (!cells.number[kHidden - kHidden]) {  // else its own shape: no GQA, a 4 x hidden MLP
    field.fail("model", "an LLM job needs a preset model (" + llm_preset_list() +
                            ") or its shape: hidden, layers, heads, seq_len, vocab");
  }
  LlmShape& s = job.shape;
  s.hidden = cells.get(kHidden, s.hidden);
  s.layers = cells.get(kLayers, s.layers);
  s.heads = cells.get(kHeads, s.heads);
  s.seq_len = cells.get(kSeqLen, s.seq_len);
  s.vocab = cells.get(kVocab, s.vocab);
  if (!cells.number[kGlobalBatch - kHidden])
    field.fail("global_batch", "missing value: an LLM job needs its global batch");
  job.global_batch = cells.get(kGlobalBatch, 0);
  job.micro_batch = cells.get(kMicroBatch, 1);
  job.precision = cells.precision.value_or(Precision::kBf16);
  job.tp = cells.get(kTp, 1);
  job.pp = cells.get(kPp, 1);
  job.cp = cells.get(kCp, 1);
  job.vp = cells.get(kVp, 1);
  job.dp = cells.get(kDp, std::max(1, spec.num_gpus / (job.tp * job.pp * job.cp)));
  if (const std::string error = check_llm_job(job, spec.num_gpus); !error.empty())
    field.fail(cells.number[kDp - kHidden] ? "dp" : "tp", error);
  return job;
}

bool is_ignored_line(std::string_view line) {
  const std::string_view text = workload_internal::trim(line);
  return text.empty() || text.front() == '#';
}

}  // namespace

Workload read_native_csv(std::istream& in, const std::string& source_name,
                         const ReaderOptions& options) {
  RowCollector rows(source_name, options);
  std::string line;
  std::size_t line_number = 0;
  std::vector<std::string> fields;

  const std::size_t header_line =
      workload_internal::read_csv_header(in, rows, true, line, line_number, fields);
  // column_of_field[i] = which Column the i-th field of a row holds.
  std::vector<int> column_of_field;
  std::array<bool, kColumnCount> present{};
  for (const std::string& name : fields) {
    int column = -1;
    for (int c = 0; c < kColumnCount; ++c) {
      if (kColumnNames[c] == name) column = c;
    }
    if (column < 0) {
      rows.fail(header_line, name,
                name.empty() ? "empty column name in header" : "unknown column in header");
    }
    if (present[column]) rows.fail(header_line, name, "column appears twice in header");
    present[column] = true;
    column_of_field.push_back(column);
  }
  for (int c = 0; c < kRequiredColumns; ++c) {
    if (!present[c])
      rows.fail(header_line, std::string(kColumnNames[c]), "required column missing");
  }

  while (workload_internal::read_line(in, line)) {
    ++line_number;
    if (is_ignored_line(line)) continue;
    rows.row([&] {
      const FieldReader field{rows, line_number};
      if (auto error = workload_internal::split_csv(line, ',', fields)) field.fail("", *error);
      if (fields.size() < column_of_field.size()) {
        field.fail(kColumnNames[column_of_field[fields.size()]],
                   "missing value: row has " + std::to_string(fields.size()) +
                       " fields, header has " + std::to_string(column_of_field.size()));
      }
      if (fields.size() > column_of_field.size()) {
        field.fail("", "row has " + std::to_string(fields.size()) + " fields, header has " +
                           std::to_string(column_of_field.size()));
      }
      JobSpec job;
      job.source_line = line_number;
      LlmCells llm;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const int column = column_of_field[i];
        const std::string_view name = kColumnNames[column];
        const std::string_view text = fields[i];
        if (column >= kRequiredColumns && workload_internal::trim(text).empty()) continue;
        switch (column) {
          case kJobId:
            job.id = field.required_text(name, text);
            break;
          case kSubmitTime:
            job.submit_time = field.non_negative(name, text);
            break;
          case kNumGpus: {
            // Whole GPUs (0: a CPU-only job), or a share of one GPU in thousandths (0.5).
            const double gpus = field.non_negative(name, text);
            if (gpus == std::floor(gpus) && gpus <= INT_MAX) {
              job.num_gpus = static_cast<int>(gpus);
            } else if (gpus < 1.0) {
              const double milli = gpus * 1000.0;
              if (std::abs(milli - std::round(milli)) > 1e-6 || std::round(milli) < 1.0)
                field.fail(name, "a share of one GPU is a multiple of 0.001, got " +
                                     std::string(workload_internal::trim(text)));
              job.num_gpus = 1;
              job.gpu_milli = static_cast<int>(std::round(milli));
            } else {
              field.fail(name,
                         "must be a whole number of GPUs or a share of one GPU in (0, 1), "
                         "got " +
                             std::string(workload_internal::trim(text)));
            }
            break;
          }
          case kDuration:
            job.duration = field.positive(name, text);
            break;
          case kModel:
            job.model = std::string(workload_internal::trim(text));
            break;
          case kVc:
            job.vc = std::string(workload_internal::trim(text));
            break;
          case kUser:
            job.user = std::string(workload_internal::trim(text));
            break;
          case kCpus:
            job.cpus = field.non_negative(name, text);
            break;
          case kMemGb:
            job.mem_gb = field.non_negative(name, text);
            break;
          case kPriority:
            job.priority = static_cast<int>(field.integer(name, text, INT_MIN, INT_MAX));
            break;
          case kGpuType:
            job.gpu_type = std::string(workload_internal::trim(text));
            break;
          case kMinGpus:
            job.min_gpus = static_cast<int>(field.integer(name, text, 1, INT_MAX));
            break;
          case kMaxGpus:
            job.max_gpus = static_cast<int>(field.integer(name, text, 1, INT_MAX));
            break;
          case kCheckpointInterval:
            job.checkpoint_interval_s = field.non_negative(name, text);
            break;
          case kGpuMemGb:
            job.gpu_mem_gb = static_cast<float>(field.non_negative(name, text));
            break;
          case kMigProfile: {
            const std::string profile(workload_internal::trim(text));
            job.mig_profile = static_cast<std::uint8_t>(mig_profile_id(profile));
            if (job.mig_profile == 0)
              field.fail(name,
                         "unknown MIG profile '" + profile + "' (" + mig_profile_list() + ")");
            break;
          }
          case kPrecision: {
            llm.precision = parse_precision(workload_internal::trim(text));
            if (!llm.precision)
              field.fail(name, "unknown precision '" + std::string(workload_internal::trim(text)) +
                                   "' (bf16, fp8)");
            break;
          }
          default:
            if (column >= kHidden && column <= kVp)
              llm.number[column - kHidden] =
                  static_cast<int>(field.integer(name, text, 1, 1 << 30));
            break;
        }
      }
      if (job.mig_profile != 0 && (job.num_gpus != 1 || job.gpu_milli < 1000))
        field.fail("mig_profile", "a MIG slice is one GPU's: num_gpus must be 1");
      if (job.mig_profile != 0 && (job.min_gpus > 0 || job.max_gpus > 0))
        field.fail("min_gpus", "a MIG job cannot be elastic");
      if (job.num_gpus == 0 && !(job.cpus > 0.0))
        field.fail("num_gpus", "0 GPUs (a CPU-only job) needs cpus > 0");
      if ((job.num_gpus == 0 || job.gpu_milli < 1000) && (job.min_gpus > 0 || job.max_gpus > 0))
        field.fail("min_gpus", "a CPU-only or fractional job cannot be elastic");
      if (job.min_gpus > 0 || job.max_gpus > 0) {
        if (job.min_gpus == 0) job.min_gpus = std::min(job.num_gpus, job.max_gpus);
        if (job.max_gpus == 0) job.max_gpus = std::max(job.num_gpus, job.min_gpus);
        if (job.min_gpus > job.max_gpus)
          field.fail("min_gpus", "min_gpus " + std::to_string(job.min_gpus) + " > max_gpus " +
                                     std::to_string(job.max_gpus));
        if (job.num_gpus < job.min_gpus || job.num_gpus > job.max_gpus)
          field.fail("num_gpus", "num_gpus " + std::to_string(job.num_gpus) +
                                     " outside [min_gpus, max_gpus] = [" +
                                     std::to_string(job.min_gpus) + ", " +
                                     std::to_string(job.max_gpus) + "]");
      }
      if (llm.any()) {
        const LlmJob columns = llm_job(job, llm, field);
        rows.add_job(std::move(job), "job_id");
        rows.add_llm_job(columns);
        return;
      }
      rows.add_job(std::move(job), "job_id");
    });
  }
  if (in.bad()) rows.fail(0, "", "read error");
  return rows.finish();
}

}  // namespace clustersim
