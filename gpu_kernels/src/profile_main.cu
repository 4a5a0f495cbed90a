// clustersim-profile: optimistic profiling of one model on this machine's GPU.
//
//   1. stage rates: GPU step (cuBLAS shapes of the model), pinned H2D copy of a batch,
//      CPU preprocessing at 1..N cores, cold random storage reads and memory-cache reads;
//   2. the end-to-end pipeline  storage -> cache of M bytes -> C CPU workers -> H2D -> GPU step
//      at a full cache, from all cores, halving C while throughput stays within 10%;
//   3. the memory dimension from the analytic model (throughput = min(GPU, prep(C), fetch(m)))
//      validated against end-to-end runs at a few cache sizes (the error is reported);
//   4. a profile (profiles/README.md schema) with the measured rates and the derived
//      CPU x memory matrix, plus a report JSON with every raw measurement.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "ckbench/bench_common.h"
#include "ckbench/pipeline.h"
#include "ckbench/profile_builder.h"
#include "cpu_prep.h"
#include "cuda_check.h"
#include "gpu_step.h"
#include "host_pipeline.h"
#include "storage.h"

using namespace ckbench;

namespace {

constexpr std::size_t kAlign = 4096;

std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

// Samples in a benchmark dataset of about `target_bytes` on disk (each sample in its own 4 KiB
// slot, as write_bench_dataset lays them out), at least one pass over the corpus.
std::size_t bench_dataset_samples(const Corpus& corpus, std::size_t target_bytes) {
  std::size_t largest = 0;
  for (const auto& s : corpus) largest = std::max(largest, s.size());
  const std::size_t slot = round_up(largest, kAlign);
  return std::max<std::size_t>(corpus.size(), target_bytes / slot);
}

// The end-to-end pipeline. Workers (like PyTorch DataLoader workers) each build whole batches
// into pinned host buffers; the consumer copies a batch to the GPU and runs the training step.
class Pipeline {
 public:
  Pipeline(const BenchDataset& data, const Corpus& corpus, InputKind kind, double cache_fraction,
           int workers, int batch, TrainingStep& step, cudaStream_t stream)
      : data_(data), kind_(kind), batch_(batch), step_(step), stream_(stream) {
    cached_ =
        static_cast<std::size_t>(std::llround(cache_fraction * static_cast<double>(data.count)));
    cached_ = std::min(cached_, data.count);
    // The cache holds the first `cached_` samples (a fixed subset, as a page cache or a
    // MinIO-style cache does under random access).
    cache_.resize(cached_);
    for (std::size_t i = 0; i < cached_; ++i) cache_[i] = corpus[i % corpus.size()];
    sample_out_ = prep_output_bytes(kind);
    // Prefetch factor 2 (as PyTorch's DataLoader), pinned memory capped at 4 GB in total.
    const std::size_t batch_bytes = sample_out_ * static_cast<std::size_t>(batch);
    const int slots = static_cast<int>(std::max<std::size_t>(
        2,
        std::min<std::size_t>(2 * static_cast<std::size_t>(workers), (4ull << 30) / batch_bytes)));
    for (int i = 0; i < slots; ++i) {
      void* p = nullptr;
      CK_CUDA(cudaMallocHost(&p, sample_out_ * batch));
      buffers_.push_back(static_cast<std::uint8_t*>(p));
      free_.push_back(i);
    }
    CK_CUDA(cudaMalloc(&device_in_, sample_out_ * batch));
    for (int w = 0; w < workers; ++w) threads_.emplace_back([this, w]() { work(w); });
  }

  ~Pipeline() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_free_.notify_all();
    cv_full_.notify_all();
    for (auto& t : threads_) t.join();
    cudaStreamSynchronize(stream_);
    for (auto* p : buffers_) cudaFreeHost(p);
    cudaFree(device_in_);
  }

  // Consumes `batches` batches; returns the seconds it took.
  double consume(int batches) {
    const auto start = std::chrono::steady_clock::now();
    for (int b = 0; b < batches; ++b) {
      int slot = -1;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_full_.wait(lock, [&]() { return !full_.empty() || !error_.empty(); });
        if (!error_.empty()) throw std::runtime_error("pipeline worker: " + error_);
        slot = full_.front();
        full_.pop_front();
      }
      CK_CUDA(cudaMemcpyAsync(device_in_, buffers_[slot], sample_out_ * batch_,
                              cudaMemcpyHostToDevice, stream_));
      step_.enqueue();
      CK_CUDA(cudaStreamSynchronize(stream_));
      {
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(slot);
      }
      cv_free_.notify_one();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::size_t storage_reads() const { return storage_reads_; }
  std::size_t cache_reads() const { return cache_reads_; }

 private:
  void work(int w) {
    try {
      BlockReader reader(data_.path, /*cold=*/true);
      auto prep = make_preprocessor(kind_, 1000u + w);
      std::mt19937_64 rng(77u + w);
      std::vector<std::uint8_t> scratch(data_.slot);
      for (;;) {
        int slot = -1;
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_free_.wait(lock, [&]() { return stop_ || !free_.empty(); });
          if (stop_) return;
          slot = free_.front();
          free_.pop_front();
        }
        for (int i = 0; i < batch_; ++i) {
          const std::size_t idx = rng() % data_.count;
          const std::uint8_t* src;
          std::size_t size;
          if (idx < cached_) {
            src = cache_[idx].data();
            size = cache_[idx].size();
            ++cache_reads_;
          } else {
            reader.read(idx * data_.slot, data_.slot, scratch.data());
            src = scratch.data();
            size = data_.sizes[idx];
            ++storage_reads_;
          }
          prep->run(src, size, buffers_[slot] + static_cast<std::size_t>(i) * sample_out_);
        }
        {
          std::lock_guard<std::mutex> lock(mu_);
          full_.push_back(slot);
        }
        cv_full_.notify_one();
      }
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = e.what();
      cv_full_.notify_all();
    }
  }

  const BenchDataset& data_;
  InputKind kind_;
  int batch_;
  TrainingStep& step_;
  cudaStream_t stream_;
  std::size_t cached_ = 0;
  std::vector<std::vector<std::uint8_t>> cache_;
  std::size_t sample_out_ = 0;
  std::vector<std::uint8_t*> buffers_;
  void* device_in_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_free_, cv_full_;
  std::deque<int> free_, full_;
  bool stop_ = false;
  std::string error_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> storage_reads_{0}, cache_reads_{0};
};

struct E2E {
  double samples_per_s = 0.0;
  double hit_fraction = 0.0;  // observed share of samples served by the cache
  Measurement m;
};

// Throughput of the pipeline: after a warm-up, trials of `batches_per_trial` batches until the
// noise rule stops.
E2E run_e2e(const BenchDataset& data, const Corpus& corpus, InputKind kind, double fraction,
            int workers, int batch, TrainingStep& step, cudaStream_t stream, const StopRule& rule,
            double trial_s) {
  Pipeline p(data, corpus, kind, fraction, workers, batch, step, stream);
  // Warm-up: fill the prefetch queue and size a trial to ~trial_s.
  p.consume(2);
  const double per_batch = std::max(1e-4, p.consume(2) / 2.0);
  const int batches = std::max(2, static_cast<int>(trial_s / per_batch));
  E2E e;
  e.m = measure([&]() { return p.consume(batches); }, rule, 0);
  e.samples_per_s = static_cast<double>(batches) * batch / e.m.stats.mean;
  const double reads = static_cast<double>(p.cache_reads() + p.storage_reads());
  e.hit_fraction = reads > 0 ? static_cast<double>(p.cache_reads()) / reads : 0.0;
  return e;
}

std::string usage() {
  return "usage: clustersim-profile --model NAME [options]\n"
         "  --model NAME          one of the model zoo (resnet18, resnet50, mobilenet_v2, "
         "shufflenet,\n"
         "                        alexnet, vgg16, transformer, bert_base, gnmt, lstm, deepspeech, "
         "m5,\n"
         "                        recommendation)\n"
         "  --gpu-type NAME       profile's gpu_type (default: from the device name, e.g. h100)\n"
         "  --out FILE            profile to write (default profiles/<gpu-type>/<model>.json)\n"
         "  --report FILE         every raw measurement as JSON (default\n"
         "                        ./clustersim-profile-<gpu-type>-<model>.report.json)\n"
         "  --batch N             per-GPU batch (default: the model's)\n"
         "  --precision P         fp16 | tf32 | fp32 (default fp16)\n"
         "  --dir DIR             where the benchmark dataset file goes (default /tmp)\n"
         "  --dataset-mb N        benchmark dataset size on disk (default 2048)\n"
         "  --max-cpus N          CPU workers to start from (default: all cores)\n"
         "  --cache-fractions F,..  cache sizes to validate the memory model at (default "
         "0,0.25,0.5,0.75)\n"
         "  --ref-cpus C          reference CPU cores per GPU (default 3)\n"
         "  --ref-mem-gb M        reference memory per GPU (default 62.5)\n"
         "  --gpus-per-node G     divide storage and cache bandwidth among G GPUs (default 1)\n"
         "  --trial-s S           seconds per end-to-end trial (default 1.0)\n"
         "  --corpus-dir DIR      image models: real JPEG files of DIR instead of the synthetic "
         "corpus\n"
         "  --framework-factor F  a real framework's prep rate over ours (default 1: none); the\n"
         "                        profile's prep-bound rows are scaled by F "
         "(profiles/README.md)\n" +
         stop_rule_help();
}

std::string default_gpu_type(const std::string& device) {
  std::string lower;
  for (char c : device)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const char* t : {"h200", "h100", "a100", "a10", "l40", "l4", "v100", "t4", "p100", "k80"}) {
    if (lower.find(t) != std::string::npos) return t;
  }
  std::string out;
  for (char c : lower) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Unbuffered: the progress lines reach a redirected log even if the run dies.
  std::cout.setf(std::ios::unitbuf);
  try {
    Args args(argc, argv,
              with_stop_keys({"model", "gpu-type", "out", "report", "batch", "precision", "dir",
                              "dataset-mb", "max-cpus", "cache-fractions", "ref-cpus", "ref-mem-gb",
                              "gpus-per-node", "trial-s", "corpus-dir", "framework-factor"}));
    if (args.has("help") || !args.has("model")) {
      std::cout << usage();
      return args.has("help") ? 0 : 2;
    }
    const ModelSpec model = find_model(args.str("model", ""));
    const double framework_factor = args.num("framework-factor", 1.0);
    if (!(framework_factor > 0.0 && framework_factor <= 1.0)) {
      throw std::invalid_argument("--framework-factor: must be in (0, 1] (got " +
                                  args.str("framework-factor", "") + ")");
    }
    std::string why;
    if (device_count_or_zero(&why) == 0) {
      std::cout << "clustersim-profile: skipped: no CUDA device (" << why
                << "); nothing was measured and no profile was written\n";
      return 0;
    }
    if (model.input == InputKind::kImage && !jpeg_available()) {
      std::cerr << "clustersim-profile: " << model.name
                << " needs the JPEG pipeline, which was not compiled in (install libjpeg-turbo "
                   "and rebuild)\n";
      return 1;
    }
    CK_CUDA(cudaSetDevice(0));
    const DeviceInfo info = device_info(0);
    const std::string gpu_type = args.str("gpu-type", default_gpu_type(info.name));
    const std::string out_path =
        args.str("out", "profiles/" + gpu_type + "/" + model.name + ".json");
    // Not beside the profile: every *.json under a profile folder must be a profile.
    const std::string report_path =
        args.str("report", "clustersim-profile-" + gpu_type + "-" + model.name + ".report.json");
    const int batch =
        args.num("batch", 0) > 0 ? static_cast<int>(args.num("batch", 0)) : model.default_batch;
    const Precision precision = parse_precision(args.str("precision", "fp16"));
    const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    const int max_cpus = static_cast<int>(args.num("max-cpus", hw));
    const double ref_cpus = args.num("ref-cpus", 3);
    const double ref_mem = args.num("ref-mem-gb", 62.5);
    const double gpus_per_node = std::max(1.0, args.num("gpus-per-node", 1));
    const double trial_s = args.num("trial-s", 1.0);
    const StopRule rule = stop_rule_from(args, make_rule(0.02, 3, 0.0, 20.0));
    const StopRule gpu_rule = stop_rule_from(args);

    Json report = run_header("clustersim-profile", rule);
    report["model"] = model.name;
    report["device"] = info.name;
    report["gpu_type"] = gpu_type;
    report["batch"] = batch;
    report["precision"] = to_string(precision);
    std::cout << "profiling " << model.name << " on " << info.name << " (batch " << batch << ", "
              << to_string(precision) << ", " << max_cpus << " CPU workers max)\n";

    // Declared before the step, so destroyed after it: the step's destructor synchronises its
    // stream, and a destroyed stream's handle is freed memory (a crash at exit seen on an H100).
    struct OwnedStream {
      cudaStream_t handle = nullptr;
      ~OwnedStream() {
        if (handle != nullptr) cudaStreamDestroy(handle);
      }
    } owned_stream;
    CK_CUDA(cudaStreamCreateWithFlags(&owned_stream.handle, cudaStreamNonBlocking));
    const cudaStream_t stream = owned_stream.handle;
    TrainingStep step(model, batch, precision, stream);

    // 1a. GPU step rate.
    const Measurement gpu_m = time_on_stream(
        stream, [&]() { step.enqueue(); }, gpu_rule);
    const double gpu_sps = batch / gpu_m.stats.mean;
    report["gpu"]["samples_per_s"] = gpu_sps;
    report["gpu"]["tflops"] = step.flops() / gpu_m.stats.mean / 1e12;
    report["gpu"]["trial"] = to_json(gpu_m);
    std::cout << "  GPU step: " << fmt(gpu_sps, 1) << " samples/s (noise "
              << fmt_pct(gpu_m.stats.noise) << ")\n";

    // 1b. H2D copy of one preprocessed batch from pinned memory.
    const std::size_t out_bytes = prep_output_bytes(model.input);
    double h2d_sps = 0.0;
    {
      void* host = nullptr;
      void* dev = nullptr;
      CK_CUDA(cudaMallocHost(&host, out_bytes * batch));
      CK_CUDA(cudaMalloc(&dev, out_bytes * batch));
      std::memset(host, 1, out_bytes * batch);
      const Measurement m = time_on_stream(
          stream,
          [&]() {
            CK_CUDA(cudaMemcpyAsync(dev, host, out_bytes * batch, cudaMemcpyHostToDevice, stream));
          },
          gpu_rule);
      h2d_sps = batch / m.stats.mean;
      report["h2d"]["samples_per_s"] = h2d_sps;
      report["h2d"]["gb_per_s"] = static_cast<double>(out_bytes) * batch / m.stats.mean / 1e9;
      report["h2d"]["trial"] = to_json(m);
      CK_CUDA(cudaFree(dev));
      CK_CUDA(cudaFreeHost(host));
    }
    std::cout << "  H2D (pinned): " << fmt(h2d_sps, 1) << " samples/s\n";

    // 1c. CPU preprocessing over 1, 2, 4, ..., max cores.
    const bool real_images = model.input == InputKind::kImage && args.has("corpus-dir");
    // 2048 files give the prep its variety without a bench dataset of the whole corpus.
    const Corpus corpus = real_images ? load_jpeg_corpus(args.str("corpus-dir", ""), 2048)
                                      : make_corpus(model.input, 64, 42);
    report["corpus"] = real_images ? "dir:" + args.str("corpus-dir", "") : std::string("synthetic");
    report["corpus_samples"] = corpus.size();
    std::vector<double> prep_c, prep_sps;
    {
      const double probe = prep_trial(model.input, corpus, 1, 4, 1);
      const int per_thread = std::max(1, static_cast<int>(probe * 0.2));
      std::vector<int> cs;
      for (int c = 1; c < max_cpus; c *= 2) cs.push_back(c);
      cs.push_back(max_cpus);
      Json& pj = report["prep"] = Json::array();
      for (int c : cs) {
        std::uint32_t seed = 5;
        const Measurement m = measure(
            [&]() {
              return static_cast<double>(c) * per_thread /
                     prep_trial(model.input, corpus, c, per_thread, seed++);
            },
            rule, 1);
        prep_c.push_back(c);
        prep_sps.push_back(static_cast<double>(c) * per_thread / m.stats.mean);
        Json r = Json::object();
        r["cpus"] = c;
        r["samples_per_s"] = prep_sps.back();
        r["trial"] = to_json(m);
        pj.push_back(r);
        std::cout << "  prep x" << c << ": " << fmt(prep_sps.back(), 1) << " samples/s\n";
      }
    }

    // 1d. Benchmark dataset on disk; cold random sample reads; memory-cache reads.
    const std::string dir = args.str("dir", std::filesystem::temp_directory_path().string());
    const std::string data_path =
        (std::filesystem::path(dir) / ("clustersim_profile_" + model.name + ".dat")).string();
    const BenchDataset data = write_bench_dataset(
        data_path, corpus,
        bench_dataset_samples(corpus,
                              static_cast<std::size_t>(args.num("dataset-mb", 2048) * 1e6)));
    double mean_stored = 0.0;
    for (const auto& s : corpus) mean_stored += static_cast<double>(s.size());
    mean_stored /= static_cast<double>(corpus.size());
    std::string storage_method;
    std::size_t storage_bytes = 0;
    const Measurement st_m = measure(
        [&]() {
          const ReadResult r = read_file(data_path, data.slot, ReadMode::kCold, max_cpus, true, 9);
          storage_method = r.method;
          storage_bytes = r.bytes;
          return r.seconds;
        },
        make_rule(rule.max_noise, 3, 0.0, rule.max_time_s), 0);
    const double storage_bw = static_cast<double>(storage_bytes) / st_m.stats.mean;  // bytes/s
    std::vector<std::uint8_t> cache_buf(std::min<std::size_t>(1ull << 30, data.count * data.slot));
    for (std::size_t i = 0; i < cache_buf.size(); i += 4096)
      cache_buf[i] = static_cast<std::uint8_t>(i);
    const std::size_t cache_samples =
        std::max<std::size_t>(256, static_cast<std::size_t>(1e9 / mean_stored));
    const Measurement cache_m = measure(
        [&]() {
          return static_cast<double>(cache_samples) * mean_stored /
                 memory_cache_read(cache_buf, static_cast<std::size_t>(mean_stored), max_cpus,
                                   cache_samples);
        },
        make_rule(rule.max_noise, 3, 0.0, rule.max_time_s), 1);
    const double cache_bw = static_cast<double>(cache_samples) * mean_stored / cache_m.stats.mean;
    report["storage"]["read_mb_per_s"] = storage_bw / 1e6;
    report["storage"]["method"] = storage_method;
    report["storage"]["block_bytes"] = data.slot;
    report["storage"]["trial"] = to_json(st_m);
    report["memory_cache"]["read_mb_per_s"] = cache_bw / 1e6;
    report["memory_cache"]["trial"] = to_json(cache_m);
    // One sample read's time with k = 1 .. max_cpus reads outstanding (the concurrency the
    // workers use, not all cores at once), and one worker's copy out of the memory cache: what
    // the pipeline formula is fed.
    std::vector<double> read_s_at;
    for (int k = 1; k <= max_cpus; ++k) {
      read_s_at.push_back(measure_read_seconds(data, k, allowed_cpus(), 0.25));
    }
    const double cache_read_s = measure_cache_read_seconds(data, 0.3);
    report["storage"]["read_s_at_concurrency"] = read_s_at;
    report["memory_cache"]["read_s_per_sample"] = cache_read_s;
    report["bench_dataset"]["samples"] = data.count;
    report["bench_dataset"]["slot_bytes"] = data.slot;
    report["bench_dataset"]["mean_encoded_bytes"] = mean_stored;
    std::cout << "  storage (cold random, " << storage_method << "): " << fmt(storage_bw / 1e6, 1)
              << " MB/s; memory cache: " << fmt(cache_bw / 1e6, 1) << " MB/s\n";

    // 2. End-to-end at a full cache, halving the CPU workers.
    std::vector<double> e2e_c, e2e_sps;
    Json& cpu_json = report["e2e_full_cache"] = Json::array();
    const CpuSearch search = halving_cpu_search(max_cpus, [&](int c) {
      const E2E e = run_e2e(data, corpus, model.input, 1.0, c, batch, step, stream, rule, trial_s);
      Json r = Json::object();
      r["cpus"] = c;
      r["samples_per_s"] = e.samples_per_s;
      r["trial"] = to_json(e.m);
      cpu_json.push_back(r);
      std::cout << "  e2e full cache, " << c << " CPUs: " << fmt(e.samples_per_s, 1)
                << " samples/s\n";
      return e.samples_per_s;
    });
    for (const CpuPoint& p : search.points) {
      e2e_c.push_back(p.cpus);
      e2e_sps.push_back(p.throughput);
    }
    report["cpu_knee"] = search.knee;

    // 3. Memory model validation at the knee: measured vs the pipeline formula (each worker
    // fetches, then preprocesses; reads at the concurrency used; our prep, no framework factor)
    // capped by the full-cache rate measured there.
    const double full_at_knee = interpolate(e2e_c, e2e_sps, search.knee);
    MeasuredRates stages;
    stages.gpu_sps = gpu_sps;
    stages.h2d_sps = h2d_sps;
    stages.prep_cpus = prep_c;
    stages.prep_sps = prep_sps;
    stages.read_s_at = read_s_at;
    stages.read_bytes = data.mean_bytes();
    stages.cache_read_s = cache_read_s;
    std::vector<double> predicted, measured;
    Json& val = report["memory_validation"]["points"] = Json::array();
    for (double f : args.nums("cache-fractions", {0.0, 0.25, 0.5, 0.75})) {
      const E2E e =
          run_e2e(data, corpus, model.input, f, search.knee, batch, step, stream, rule, trial_s);
      const auto cached = static_cast<double>(std::min<long long>(
          std::llround(f * static_cast<double>(data.count)), static_cast<long long>(data.count)));
      const PipelineInputs in = profile_pipeline_inputs(
          stages, search.knee, subset_hit_fraction(cached, static_cast<double>(data.count)),
          data.mean_bytes(), 0.0, 1.0);
      const double pred = std::min(full_at_knee, pipeline_throughput(in));
      predicted.push_back(pred);
      measured.push_back(e.samples_per_s);
      Json r = Json::object();
      r["cache_fraction"] = f;
      r["measured_samples_per_s"] = e.samples_per_s;
      r["predicted_samples_per_s"] = pred;
      r["observed_cache_hit_fraction"] = e.hit_fraction;
      r["trial"] = to_json(e.m);
      val.push_back(r);
      std::cout << "  cache " << fmt_pct(f, 0) << ": measured " << fmt(e.samples_per_s, 1)
                << ", model " << fmt(pred, 1) << " samples/s\n";
    }
    const ModelError err = model_error(predicted, measured);
    report["memory_validation"]["mean_abs_error"] = err.mean_abs;
    report["memory_validation"]["max_abs_error"] = err.max_abs;
    std::cout << "  memory model error: mean " << fmt_pct(err.mean_abs) << ", max "
              << fmt_pct(err.max_abs) << "\n";
    std::filesystem::remove(data_path);

    // 4. The profile.
    MeasuredRates rates;
    rates.model = model.name;
    rates.gpu_type = gpu_type;
    rates.device = info.name;
    rates.dataset = model.dataset;
    rates.time_utc = "";
    // The file name only: a profile goes into git, and the report's folder is this machine's.
    rates.report_path = std::filesystem::path(report_path).filename().string();
    rates.batch = batch;
    rates.gpu_sps = gpu_sps;
    rates.h2d_sps = h2d_sps;
    rates.prep_cpus = prep_c;
    rates.prep_sps = prep_sps;
    rates.e2e_cpus = e2e_c;
    rates.e2e_sps = e2e_sps;
    rates.cache_bw = cache_bw;
    rates.storage_bw = storage_bw;
    rates.gpus_per_node = gpus_per_node;
    rates.ref_cpus = ref_cpus;
    rates.ref_mem_gb = ref_mem;
    rates.dataset_gb = model.dataset_gb;
    rates.stored_bytes_per_sample = static_cast<double>(model.stored_bytes_per_sample);
    rates.read_s_at = read_s_at;
    rates.read_bytes = data.mean_bytes();
    rates.cache_read_s = cache_read_s;
    rates.model_mean_abs_error = err.mean_abs;
    rates.model_max_abs_error = err.max_abs;
    rates.framework_factor = framework_factor;
    Json p = build_measured_profile(rates);
    p["measurements"]["time_utc"] = report["time_utc"];

    const auto parent = std::filesystem::path(out_path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    write_json_file(out_path, p);
    write_json_file(report_path, report);
    std::cout << "wrote " << out_path << " and " << report_path << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "clustersim-profile: " << e.what() << "\n";
    return 1;
  }
}
