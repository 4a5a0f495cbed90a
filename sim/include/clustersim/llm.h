// LLM training jobs: a model's shape, its precision and its parallel layout (TP x PP x DP, with
// optional context parallelism CP and pipeline interleaving VP), the GPU types' peaks, and the
// isolated iteration-time model (one job alone on its placement). sim/README.md, "LLM jobs",
// documents the formulas and their fit on NVIDIA's published NeMo step times.
//
// A trace's LLM columns are kept beside the jobs (Workload::llm), not in JobSpec: only jobs of
// traces that have them pay for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clustersim {

enum class Precision : std::uint8_t { kBf16, kFp8 };
// "bf16", "fp8"; nullopt for anything else.
std::optional<Precision> parse_precision(std::string_view text);
std::string_view precision_name(Precision precision);

// A decoder-only transformer's shape.
struct LlmShape {
  int hidden = 0;
  int layers = 0;
  int heads = 0;
  int kv_heads = 0;    // grouped-query attention's KV heads (0: = heads)
  int ffn_hidden = 0;  // the MLP's inner width (0: 4 x hidden)
  int vocab = 0;
  int seq_len = 0;
  bool gated_mlp = false;  // SwiGLU (three MLP matrices) rather than GELU/ReLU^2 (two)
};

// The presets' names, normalised (lower case, no spaces, '-' or '_'): gpt3-5b, gpt3-20b,
// gpt3-175b, llama2-7b/13b/70b, llama3-8b/70b/405b, nemotron-8b/22b/340b.
std::optional<LlmShape> llm_preset(std::string_view name);
std::string llm_preset_list();  // for messages

struct LlmJob {
  LlmShape shape;
  int global_batch = 0;  // sequences per iteration
  int micro_batch = 1;   // sequences per micro-batch
  Precision precision = Precision::kBf16;
  int tp = 1, pp = 1, dp = 1;
  int cp = 1;  // context parallelism (the sequence split across cp GPUs)
  int vp = 1;  // interleaved pipeline: virtual stages per GPU
  int gpus() const { return tp * pp * dp * cp; }
  // Micro-batches per iteration on each pipeline: global_batch / (micro_batch x dp).
  int micro_batches() const { return global_batch / (micro_batch * dp); }
};

// The LLM jobs of a workload: (position in Workload::jobs, its columns), by position.
using LlmJobTable = std::vector<std::pair<std::uint32_t, LlmJob>>;

// "" when the job is consistent, else what is wrong ("global_batch 100 is not a multiple of
// micro_batch x dp = 64", ...), for FILE:LINE: field: messages.
std::string check_llm_job(const LlmJob& job, int num_gpus);

// A GPU type's dense peak FLOP/s and memory (vendor datasheets, SXM parts) and its scale-up
// (NVLink) bandwidth per GPU and direction.
struct GpuPeak {
  std::string_view name;
  double bf16_flops = 0;
  double fp8_flops = 0;  // 0: no FP8 (A100)
  double memory_gb = 0;
  double nvlink_bytes_per_s = 0;
};
// a100, h100, h200, b200, gb200 (case-insensitive); nullptr for others.
const GpuPeak* gpu_peak(std::string_view gpu_type);
// The built-in efficiency (achieved / peak on the model's FLOPs) of a GPU type at a precision:
// H100 FP8 fitted on the NeMo table; the others are uncalibrated defaults (README).
double default_llm_efficiency(const GpuPeak& gpu, Precision precision);

// Collective efficiency by message size and group, in SimAI's format (aliyun/SimAI's
// nvlink_ratio.csv and nic_ratio.csv, small_msg_collective_time.csv; [fabric] collective_table;
// sim/README.md, "Collective efficiency tables"). A collective of `message` bytes per GPU moving
// `wire` bytes per GPU over a bandwidth B takes wire / (B x efficiency), or a fixed time below
// small_message_bytes when the small-message table is given.
struct CollectiveTable {
  std::vector<double> sizes;     // message bytes of the rows, ascending
  std::vector<double> scale_up;  // by row: a group inside one scale-up domain
  std::vector<int> servers;      // scale-out columns: the group's servers (domains), ascending
  std::vector<std::vector<double>> scale_out;           // by column, by row
  std::vector<std::pair<int, double>> small_message_s;  // (ranks, seconds), ranks ascending
  double small_message_bytes = 1024.0 * 1024.0;         // below: small_message_s
  // Every column is divided by its largest size's value (SimAI's normalisation): relative to
  // the bandwidth at large messages. Linear in size between rows, the end rows beyond them; the
  // column of the fewest servers >= `servers_in_group` (the last beyond it).
  double efficiency(bool inside_domain, int servers_in_group, double bytes) const;
  // The fixed time of a small collective among `ranks` (the first row with ranks >= it, the
  // last beyond); -1 without a small-message table.
  double small_message_time(int ranks) const;
};

// What the model assumes beyond the job: the efficiency and the bandwidth (bytes/s per GPU,
// one direction) each dimension's traffic gets on this placement.
struct LlmRates {
  double efficiency = 0.4;
  double tp_bytes_per_s = 450e9;
  double pp_bytes_per_s = 450e9;
  double dp_bytes_per_s = 50e9;
  // Shares of the communication left on the critical path (README: NeMo overlaps TP
  // collectives with GEMMs, pipeline sends with compute, the DP reduction with the backward).
  double tp_exposed = 0.5;
  double pp_exposed = 0.0;
  // With a collective table: the TP and DP collectives' efficiency by message size and group,
  // each group inside one scale-up domain or over how many (servers). Null: full bandwidth.
  const CollectiveTable* collectives = nullptr;
  bool tp_inside_domain = true, dp_inside_domain = true;
  int tp_servers = 1, dp_servers = 1;
};

// The rates of a job alone on a packed placement: a group (TP; TP x PP x CP; the whole job for
// DP) inside one scale-up domain of `scale_up_gpus` GPUs uses the GPU's NVLink bandwidth, a
// larger one the scale-out bandwidth per GPU (`scale_out_bytes_per_s`).
LlmRates packed_llm_rates(const LlmJob& job, const GpuPeak& gpu, int scale_up_gpus,
                          double scale_out_bytes_per_s, double efficiency);

// One iteration, by part (seconds). total() = compute + bubble + the exposed communication.
struct IterationTime {
  double compute_s = 0;  // the slowest (last) pipeline stage's work over all micro-batches
  double bubble_s = 0;   // (pp - 1) / (micro-batches x vp) x compute
  double tp_s = 0;       // TP collectives (all of them; tp_exposed of it counts)
  double pp_s = 0;       // pipeline sends (pp_exposed of it counts)
  double dp_s = 0;       // the DP gradient all-reduce (what is not hidden counts)
  double exposed_comm_s = 0;
  double total() const { return compute_s + bubble_s + exposed_comm_s; }
};

// The model's FLOPs per iteration (6 x parameters x tokens + causal attention).
double llm_flops_per_iteration(const LlmJob& job);
IterationTime llm_iteration(const LlmJob& job, const GpuPeak& gpu, const LlmRates& rates);

}  // namespace clustersim
