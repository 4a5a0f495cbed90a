// The isolated iteration-time model of an LLM training job (clustersim/llm.h). The formulas
// and their fit are in sim/README.md, "LLM jobs"; tests/sim/simulation/llm_test.cc checks them
// by hand and against NVIDIA's NeMo 24.07 step times.
#include "clustersim/llm.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace clustersim {

namespace {

std::string normalised(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '-' && c != '_')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Published architectures (model cards and NeMo's configs); seq_len is the pretraining one
// NeMo's table uses, a trace's seq_len column overrides it.
struct Preset {
  std::string_view name;
  LlmShape shape;
};
// hidden, layers, heads, kv_heads, ffn_hidden, vocab, seq_len, gated_mlp
const std::array<Preset, 12> kPresets = {{
    {"gpt3-5b", {4096, 24, 32, 32, 16384, 50304, 2048, false}},
    {"gpt3-20b", {6144, 44, 48, 48, 24576, 50304, 2048, false}},
    {"gpt3-175b", {12288, 96, 96, 96, 49152, 50304, 2048, false}},
    {"llama2-7b", {4096, 32, 32, 32, 11008, 32000, 4096, true}},
    {"llama2-13b", {5120, 40, 40, 40, 13824, 32000, 4096, true}},
    {"llama2-70b", {8192, 80, 64, 8, 28672, 32000, 4096, true}},
    {"llama3-8b", {4096, 32, 32, 8, 14336, 128256, 8192, true}},
    {"llama3-70b", {8192, 80, 64, 8, 28672, 128256, 8192, true}},
    {"llama3-405b", {16384, 126, 128, 8, 53248, 128256, 8192, true}},
    {"nemotron-8b", {4096, 32, 32, 32, 16384, 256000, 4096, false}},
    {"nemotron-22b", {6144, 40, 48, 48, 24576, 256000, 4096, false}},
    {"nemotron-340b", {18432, 96, 96, 8, 73728, 256000, 4096, false}},
}};

// Dense (no sparsity) peaks of the SXM parts, per GPU; NVLink per direction.
// A100: 312 TFLOP/s BF16, no FP8, 80 GB, NVLink 3 600 GB/s both ways.
// H100 and H200: 989 BF16, 1,979 FP8, 80 / 141 GB, NVLink 4 900 GB/s.
// B200 (HGX): 2,250 BF16, 4,500 FP8, 180 GB, NVLink 5 1,800 GB/s.
// GB200 (the Blackwell GPU of a GB200 NVL72 rack, 72 GPUs in one NVLink domain, 4 per compute
// tray): NVIDIA's GB200 NVL72 datasheet gives the rack 360 PFLOP/s FP16/BF16 and 720 FP8 with
// sparsity, so 2,500 / 5,000 TFLOP/s dense per GPU; 13.4 TB HBM3e (186 GB each); NVLink 5
// 130 TB/s over 72 GPUs, 1,800 GB/s each both ways.
const std::array<GpuPeak, 5> kGpus = {{
    {"a100", 312e12, 0, 80, 300e9},
    {"h100", 989.4e12, 1978.9e12, 80, 450e9},
    {"h200", 989.4e12, 1978.9e12, 141, 450e9},
    {"b200", 2250e12, 4500e12, 180, 900e9},
    {"gb200", 2500e12, 5000e12, 186, 900e9},
}};

}  // namespace

std::optional<Precision> parse_precision(std::string_view text) {
  const std::string name = normalised(text);
  if (name == "bf16") return Precision::kBf16;
  if (name == "fp8") return Precision::kFp8;
  return std::nullopt;
}

std::string_view precision_name(Precision precision) {
  return precision == Precision::kFp8 ? "fp8" : "bf16";
}

std::optional<LlmShape> llm_preset(std::string_view name) {
  const std::string key = normalised(name);
  for (const Preset& preset : kPresets)
    if (normalised(preset.name) == key) return preset.shape;
  return std::nullopt;
}

std::string llm_preset_list() {
  std::string out;
  for (const Preset& preset : kPresets) out += (out.empty() ? "" : ", ") + std::string(preset.name);
  return out;
}

std::string check_llm_job(const LlmJob& job, int num_gpus) {
  const LlmShape& s = job.shape;
  if (s.hidden <= 0 || s.layers <= 0 || s.heads <= 0 || s.vocab <= 0 || s.seq_len <= 0)
    return "a model needs hidden, layers, heads, vocab and seq_len > 0 (or a preset: " +
           llm_preset_list() + ")";
  if (job.global_batch <= 0 || job.micro_batch <= 0)
    return "global_batch and micro_batch must be > 0";
  if (job.tp <= 0 || job.pp <= 0 || job.dp <= 0 || job.cp <= 0 || job.vp <= 0)
    return "tp, pp and dp must be > 0";
  if (job.gpus() != num_gpus)
    return "tp x pp x dp" + std::string(job.cp > 1 ? " x cp" : "") + " = " +
           std::to_string(job.gpus()) + " but the job asks for " + std::to_string(num_gpus) +
           " GPUs";
  if (job.global_batch % (job.micro_batch * job.dp) != 0)
    return "global_batch " + std::to_string(job.global_batch) +
           " is not a multiple of micro_batch x dp = " + std::to_string(job.micro_batch * job.dp);
  if (s.layers % job.pp != 0)
    return "layers " + std::to_string(s.layers) + " is not a multiple of pp " +
           std::to_string(job.pp);
  return "";
}

const GpuPeak* gpu_peak(std::string_view gpu_type) {
  const std::string key = normalised(gpu_type);
  for (const GpuPeak& gpu : kGpus)
    if (gpu.name == key) return &gpu;
  return nullptr;
}

double default_llm_efficiency(const GpuPeak& gpu, Precision precision) {
  // H100 FP8: the least-mean-absolute-error fit on the NeMo table's 12 pretraining rows (README).
  // H200 shares its compute; BF16 and the other types: uncalibrated (the same share of the peak
  // until a user fits their own, README "Calibrating another GPU or precision").
  (void)gpu;
  (void)precision;
  return 0.425;
}

namespace {

// `column`'s value at `bytes`: linear between the rows, the end rows beyond them.
double interpolated(const std::vector<double>& sizes, const std::vector<double>& column,
                    double bytes) {
  if (bytes <= sizes.front()) return column.front();
  if (bytes >= sizes.back()) return column.back();
  const std::size_t above =
      static_cast<std::size_t>(std::upper_bound(sizes.begin(), sizes.end(), bytes) - sizes.begin());
  const double share = (bytes - sizes[above - 1]) / (sizes[above] - sizes[above - 1]);
  return column[above - 1] + share * (column[above] - column[above - 1]);
}

}  // namespace

double CollectiveTable::efficiency(bool inside_domain, int servers_in_group, double bytes) const {
  if (inside_domain || scale_out.empty()) return interpolated(sizes, scale_up, bytes);
  std::size_t column = 0;
  while (column + 1 < servers.size() && servers[column] < servers_in_group) ++column;
  return interpolated(sizes, scale_out[column], bytes);
}

double CollectiveTable::small_message_time(int ranks) const {
  if (small_message_s.empty()) return -1.0;
  for (const auto& [listed, seconds] : small_message_s)
    if (listed >= ranks) return seconds;
  return small_message_s.back().second;
}

namespace {

struct Counts {
  double layer_params = 0;      // one transformer layer's weights
  double embedding_params = 0;  // the output layer (vocab x hidden)
};

Counts counts(const LlmShape& s) {
  const double h = s.hidden;
  const double kv = s.kv_heads > 0 ? s.kv_heads : s.heads;
  const double ffn = s.ffn_hidden > 0 ? s.ffn_hidden : 4.0 * h;
  const double attention = 2.0 * h * h + 2.0 * h * (h * kv / s.heads);  // Q, O; K, V
  const double mlp = (s.gated_mlp ? 3.0 : 2.0) * h * ffn;
  return {attention + mlp, static_cast<double>(s.vocab) * h};
}

}  // namespace

LlmRates packed_llm_rates(const LlmJob& job, const GpuPeak& gpu, int scale_up_gpus,
                          double scale_out_bytes_per_s, double efficiency) {
  const auto bandwidth = [&](int group) {
    return group <= scale_up_gpus ? gpu.nvlink_bytes_per_s : scale_out_bytes_per_s;
  };
  // Domains (servers) a group of `group` GPUs spans beyond one.
  const auto servers = [&](int group) {
    return group <= scale_up_gpus ? 1 : (group + scale_up_gpus - 1) / std::max(1, scale_up_gpus);
  };
  LlmRates rates;
  rates.efficiency = efficiency;
  rates.tp_bytes_per_s = bandwidth(job.tp);
  rates.pp_bytes_per_s = bandwidth(job.tp * job.pp * job.cp);
  rates.dp_bytes_per_s = bandwidth(job.gpus());
  rates.tp_inside_domain = job.tp <= scale_up_gpus;
  rates.dp_inside_domain = job.gpus() <= scale_up_gpus;
  rates.tp_servers = servers(job.tp);
  rates.dp_servers = servers(job.gpus());
  return rates;
}

double llm_flops_per_iteration(const LlmJob& job) {
  const LlmShape& s = job.shape;
  const Counts c = counts(s);
  const double tokens = static_cast<double>(job.global_batch) * s.seq_len;
  // 6 FLOPs per weight and token (forward 2, backward 4); causal attention's score and value
  // products 6 x hidden x seq_len per layer and token (half of the full 12).
  return tokens * (6.0 * (c.layer_params * s.layers + c.embedding_params) +
                   6.0 * s.layers * static_cast<double>(s.hidden) * s.seq_len);
}

IterationTime llm_iteration(const LlmJob& job, const GpuPeak& gpu, const LlmRates& rates) {
  const LlmShape& s = job.shape;
  const Counts c = counts(s);
  const double tokens_per_micro = static_cast<double>(job.micro_batch) * s.seq_len;
  // FP8 runs the layers' linear GEMMs at the FP8 peak; attention and the output layer stay in
  // BF16 (Transformer Engine's recipe).
  const double linear_peak =
      job.precision == Precision::kFp8 && gpu.fp8_flops > 0 ? gpu.fp8_flops : gpu.bf16_flops;
  const double layer_s =
      6.0 * c.layer_params * tokens_per_micro / linear_peak +
      6.0 * s.hidden * static_cast<double>(s.seq_len) * tokens_per_micro / gpu.bf16_flops;
  const double output_s = 6.0 * c.embedding_params * tokens_per_micro / gpu.bf16_flops;
  // The last pipeline stage holds its share of the layers and the output layer: the pipeline
  // runs at its pace. Its work is split over the tp x cp GPUs of the stage.
  const double width = static_cast<double>(job.tp) * job.cp * rates.efficiency;
  const double stage_s = (static_cast<double>(s.layers) / job.pp * layer_s + output_s) / width;
  const double micro = job.micro_batches();
  IterationTime t;
  t.compute_s = micro * stage_s;
  t.bubble_s = (job.pp - 1) / (micro * job.vp) * t.compute_s;
  // Activations of one micro-batch on one GPU of the stage (BF16).
  const double activation_bytes = tokens_per_micro / job.cp * s.hidden * 2.0;
  // With a collective table: one collective of `message` bytes moving `wire` bytes per GPU.
  const auto table_time = [&](double message, double wire, double bandwidth, bool inside,
                              int servers, int ranks) {
    const CollectiveTable& table = *rates.collectives;
    if (message < table.small_message_bytes && !table.small_message_s.empty())
      return table.small_message_time(ranks);
    return wire / (bandwidth * table.efficiency(inside, servers, message));
  };
  if (job.tp > 1) {
    // Per layer and micro-batch: two all-reduces forward and two backward (or their
    // all-gather + reduce-scatter halves with sequence parallelism), ring: 2 (t-1)/t of the bytes.
    const double per_collective = 2.0 * (job.tp - 1) / job.tp * activation_bytes;
    const double collectives = static_cast<double>(s.layers) / job.pp * micro * 4.0;
    t.tp_s = !rates.collectives
                 ? collectives * per_collective / rates.tp_bytes_per_s
                 : collectives * table_time(activation_bytes, per_collective, rates.tp_bytes_per_s,
                                            rates.tp_inside_domain, rates.tp_servers, job.tp);
  }
  if (job.pp > 1)  // each micro-batch's activations forward and gradients back, per virtual stage
    t.pp_s = 2.0 * micro * job.vp * activation_bytes / rates.pp_bytes_per_s;
  const int reducers = job.dp * job.cp;
  if (reducers > 1) {
    // BF16 gradients of this GPU's weights, ring all-reduce: 2 (n-1)/n of the bytes.
    const double weights = (c.layer_params * s.layers + c.embedding_params) / (job.tp * job.pp);
    t.dp_s =
        !rates.collectives
            ? 2.0 * (reducers - 1) / reducers * weights * 2.0 / rates.dp_bytes_per_s
            : table_time(weights * 2.0, 2.0 * (reducers - 1) / reducers * weights * 2.0,
                         rates.dp_bytes_per_s, rates.dp_inside_domain, rates.dp_servers, reducers);
  }
  // The DP reduction overlaps the iteration's compute (reduce-scatter in the backward passes,
  // all-gather in the next forward, as Megatron's distributed optimizer does): only what
  // outlasts it is exposed.
  t.exposed_comm_s =
      rates.tp_exposed * t.tp_s + rates.pp_exposed * t.pp_s + std::max(0.0, t.dp_s - t.compute_s);
  return t;
}

}  // namespace clustersim
