// ckb_pipeline: a host-only stand-in training pipeline (the real image prep and storage reads
// feeding a consumer of known rate), run over workers x cache fraction x consumer rate x storage
// share; prints each point's measured throughput beside the one the pipeline formula
// (ckbench/pipeline_formula.h, the same formula the profiler and the simulator use) predicts
// from stage measurements, with the relative error, and mean/max |error|.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ckbench/cli.h"
#include "ckbench/pipeline_formula.h"
#include "cpu_prep.h"
#include "host_pipeline.h"

using namespace ckbench;

namespace {

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// The median (the mean of the middle two for an even count); `v` is not empty.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args args(argc, argv,
              {"corpus-dir", "corpus", "dataset", "file", "workers", "cache", "consumer-rates",
               "storage-shares", "cache-mode", "seconds", "warmup", "batch", "stage-seconds",
               "repeats", "realtime"});
    if (args.has("help")) {
      std::cout
          << "usage: ckb_pipeline [--corpus-dir DIR | --corpus N] [--dataset SAMPLES] "
             "[--file PATH]\n"
             "       [--workers 1,2] [--cache 0,0.25,0.5,0.75,1] [--consumer-rates 250,1000]\n"
             "       [--storage-shares 0,16] [--cache-mode subset|lru] [--seconds 3] "
             "[--warmup 1.5] [--repeats 1] [--realtime PRIO]\n"
             "  --corpus-dir DIR     JPEG files of DIR (else --corpus N synthetic JPEGs)\n"
             "  --dataset SAMPLES    samples in the dataset file (corpus cycled; default 1000)\n"
             "  --file PATH          the dataset file (on the storage to test, not tmpfs: "
             "O_DIRECT)\n"
             "  --consumer-rates     samples/s of the consumer (sleeping); 0 = unbounded\n"
             "  --storage-shares     MB/s (1e6 B/s) the job may read from storage; 0 = the "
             "device alone\n"
             "  --cache-mode         subset: a fixed subset held in memory; lru: the page cache "
             "kept to the cache size\n"
             "  --repeats N          measure each point N times (stages, then the pipeline, "
             "in turn) and\n"
             "                       compare the median prediction with the median measurement\n"
             "  --realtime PRIO      run workers and stage measurements at SCHED_FIFO PRIO, the "
             "consumer one\n"
             "                       above (root): a shared machine's other processes wait\n";
      return 0;
    }
    if (!jpeg_available()) throw std::runtime_error("built without libjpeg-turbo: no image prep");
    const InputKind kind = InputKind::kImage;
    const Corpus corpus = args.has("corpus-dir")
                              ? load_jpeg_corpus(args.str("corpus-dir", ""))
                              : make_corpus(kind, static_cast<int>(args.num("corpus", 64)), 42);
    const auto dataset_n = static_cast<std::size_t>(args.num("dataset", 1000));
    const std::string mode_name = args.str("cache-mode", "subset");
    if (mode_name != "subset" && mode_name != "lru") {
      throw std::invalid_argument("--cache-mode: must be subset or lru (got '" + mode_name + "')");
    }
    use_realtime_priority(static_cast<int>(args.num("realtime", 0)));
    const CacheMode mode = mode_name == "lru" ? CacheMode::kLru : CacheMode::kSubset;
    const BenchDataset data =
        write_bench_dataset(args.str("file", "ckb_pipeline.dat"), corpus, dataset_n);
    const std::vector<int> cpus = allowed_cpus();
    const double stage_s = args.num("stage-seconds", 1.0);

    std::vector<int> workers;
    for (double w : args.nums("workers", {1, 2})) workers.push_back(static_cast<int>(w));
    const int max_w = *std::max_element(workers.begin(), workers.end());
    if (max_w < 1) throw std::invalid_argument("--workers: must be >= 1");

    // Stage measurements: what the formula is fed. Taken again right before each point (the
    // machine may be shared: the stages are measured under the load the point runs under).
    const double cache_read_s = measure_cache_read_seconds(data, 0.3);
    auto measure_reads = [&](int upto) {
      std::vector<double> at;  // k = 1 .. upto concurrent O_DIRECT readers
      for (int k = 1; k <= upto; ++k)
        at.push_back(measure_read_seconds(data, k, cpus, stage_s / 4));
      return at;
    };
    {
      const std::vector<double> read_s_at = measure_reads(max_w);
      std::cout << "# dataset " << data.count << " samples, " << fmt(data.mean_bytes() / 1e3, 1)
                << " KB/sample, " << cpus.size() << " CPUs; cache read "
                << fmt(cache_read_s * 1e6, 1) << " us/sample\n";
      for (std::size_t k = 0; k < read_s_at.size(); ++k) {
        std::cout << "# storage read at concurrency " << k + 1 << ": " << fmt(read_s_at[k] * 1e3, 3)
                  << " ms/sample ("
                  << fmt(static_cast<double>(k + 1) * data.mean_bytes() / read_s_at[k] / 1e6, 1)
                  << " MB/s)\n";
      }
    }

    std::cout
        << "| workers | cache | consumer/s | storage MB/s | hit (model) | hit (run) | prep ms | "
           "read ms | predicted/s | measured/s | error | bottleneck |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    double sum_abs = 0.0, max_abs = 0.0;
    int points = 0;
    PipelineRun run;
    run.cache_mode = mode;
    run.cores = cpus;
    run.seconds = args.num("seconds", 3.0);
    run.warmup_s = args.num("warmup", 1.5);
    run.batch = static_cast<int>(args.num("batch", 32));
    const int repeats = static_cast<int>(args.num("repeats", 1));
    if (repeats < 1) throw std::invalid_argument("--repeats: must be >= 1");
    for (int w : workers) {
      for (double share : args.nums("storage-shares", {0, 16})) {
        for (double rate : args.nums("consumer-rates", {250, 1000})) {
          for (double f : args.nums("cache", {0, 0.25, 0.5, 0.75, 1})) {
            run.workers = w;
            run.cache_fraction = f;
            run.consumer_rate = rate;
            run.storage_share = share * 1e6;
            const auto cached =
                std::floor(std::clamp(f, 0.0, 1.0) * static_cast<double>(data.count));
            // Each trial measures the stages right before running the pipeline, so a trial's
            // prediction and measurement see the same machine; on a shared machine the medians
            // over trials keep one disturbed trial from deciding the point.
            std::vector<double> predictions, measurements, hits, preps, reads;
            std::vector<const char*> bottlenecks;
            PipelineInputs in;
            PipelineRates predicted;
            for (int trial = 0; trial < repeats; ++trial) {
              in = PipelineInputs{};
              in.consumer_s = rate > 0.0 ? 1.0 / rate : 0.0;
              in.workers = w;
              in.cores = std::min<double>(w, static_cast<double>(cpus.size()));
              in.prep_s = measure_prep_seconds(kind, corpus, w, cpus, stage_s);
              const std::vector<double> read_s_at = measure_reads(w);
              in.cache_read_s = cache_read_s;
              in.hit = mode == CacheMode::kLru
                           ? lru_epoch_hit_fraction(cached, static_cast<double>(data.count))
                           : subset_hit_fraction(cached, static_cast<double>(data.count));
              in.bytes_per_sample = data.mean_bytes();
              in.storage_bw = share * 1e6;
              in.storage_read_s = storage_read_seconds(read_s_at, in);
              predicted = pipeline_rates(in);
              const PipelineResult run_result = run_pipeline(kind, data, run);
              predictions.push_back(predicted.throughput);
              bottlenecks.push_back(predicted.bottleneck);
              measurements.push_back(run_result.samples_per_s);
              hits.push_back(run_result.hit_fraction);
              preps.push_back(in.prep_s);
              reads.push_back(in.storage_read_s);
            }
            in.prep_s = median(preps);
            in.storage_read_s = median(reads);
            predicted.throughput = median(predictions);
            // The binding term of the trial whose prediction is nearest the median.
            std::size_t nearest = 0;
            for (std::size_t t = 1; t < predictions.size(); ++t) {
              if (std::fabs(predictions[t] - predicted.throughput) <
                  std::fabs(predictions[nearest] - predicted.throughput))
                nearest = t;
            }
            predicted.bottleneck = bottlenecks[nearest];
            PipelineResult measured;
            measured.samples_per_s = median(measurements);
            measured.hit_fraction = median(hits);
            const double err =
                (predicted.throughput - measured.samples_per_s) / measured.samples_per_s;
            sum_abs += std::fabs(err);
            max_abs = std::max(max_abs, std::fabs(err));
            ++points;
            std::cout << "| " << w << " | " << fmt(100 * f, 0) << "% | "
                      << (rate > 0 ? fmt(rate, 0) : "inf") << " | "
                      << (share > 0 ? fmt(share, 0) : "device") << " | " << fmt(in.hit, 3) << " | "
                      << fmt(measured.hit_fraction, 3) << " | " << fmt(in.prep_s * 1e3, 2) << " | "
                      << fmt(in.storage_read_s * 1e3, 3) << " | " << fmt(predicted.throughput, 1)
                      << " | " << fmt(measured.samples_per_s, 1) << " | " << fmt(100 * err, 1)
                      << "% | " << predicted.bottleneck << " |" << std::endl;
          }
        }
      }
    }
    std::cout << "\nmean |error| " << fmt(100 * sum_abs / points, 1) << "%, max |error| "
              << fmt(100 * max_abs, 1) << "% over " << points << " points\n";
    std::remove(data.path.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ckb_pipeline: " << e.what() << "\n";
    return 1;
  }
}
