// ckb_cpu_prep: CPU preprocessing rate per core and its scaling over 1..N cores, for each
// input pipeline of the model zoo. No GPU needed.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>
#include <thread>

#include "ckbench/bench_common.h"
#include "cpu_prep.h"

using namespace ckbench;

namespace {

struct KindName {
  const char* name;
  InputKind kind;
};
constexpr KindName kKinds[] = {{"image", InputKind::kImage},
                               {"text", InputKind::kText},
                               {"audio", InputKind::kAudioSpectrogram},
                               {"waveform", InputKind::kAudioWaveform},
                               {"tabular", InputKind::kTabular}};

std::vector<int> default_threads() {
  const int n = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<int> t;
  for (int c = 1; c < n; c *= 2) t.push_back(c);
  t.push_back(n);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args args(argc, argv, with_stop_keys({"kinds", "threads", "corpus", "corpus-dir"}));
    if (args.has("help")) {
      std::cout << "usage: ckb_cpu_prep [--kinds image,text,audio,waveform,tabular] "
                   "[--threads 1,2,4] [--corpus N] [--corpus-dir DIR]\n"
                   "  --corpus-dir DIR    image pipeline on the JPEG files of DIR (at most --corpus N "
                   "of them, 0: all)\n"
                << stop_rule_help();
      return 0;
    }
    StopRule rule = stop_rule_from(args, make_rule(0.01, 5, 0.5, 10.0));
    std::vector<int> threads;
    for (double t : args.nums("threads", {})) threads.push_back(static_cast<int>(t));
    if (threads.empty()) threads = default_threads();
    const int corpus_n = static_cast<int>(args.num("corpus", 64));
    std::vector<std::string> kinds;
    {
      std::stringstream ss(args.str("kinds", "image,text,audio,waveform,tabular"));
      std::string k;
      while (std::getline(ss, k, ',')) kinds.push_back(k);
    }

    Json out = run_header("cpu_prep", rule);
    Json& results = out["results"] = Json::array();
    Table table({"pipeline", "threads", "samples/s", "per core", "efficiency", "noise", "status"});
    for (const std::string& kname : kinds) {
      const KindName* kn = nullptr;
      for (const auto& k : kKinds) {
        if (kname == k.name) kn = &k;
      }
      if (kn == nullptr) throw std::invalid_argument("unknown pipeline '" + kname + "'");
      if (kn->kind == InputKind::kImage && !jpeg_available()) {
        table.add_row({kname, "-", "-", "-", "-", "-", "skipped (no libjpeg-turbo)"});
        Json r = Json::object();
        r["pipeline"] = kname;
        r["status"] = "skipped";
        r["reason"] = "libjpeg-turbo not found at build time";
        results.push_back(r);
        continue;
      }
      const bool real_images = kn->kind == InputKind::kImage && args.has("corpus-dir");
      const Corpus corpus =
          real_images ? load_jpeg_corpus(args.str("corpus-dir", ""),
                                         args.has("corpus") ? static_cast<std::size_t>(corpus_n) : 0)
                      : make_corpus(kn->kind, corpus_n, 42);
      double mean_bytes = 0;
      for (const auto& s : corpus) mean_bytes += static_cast<double>(s.size());
      mean_bytes /= static_cast<double>(corpus.size());
      // Calibrate a trial to ~50 ms per thread.
      const double probe = prep_trial(kn->kind, corpus, 1, 4, 1);
      const int per_thread = std::max(1, static_cast<int>(probe * 0.05));
      double one_core = 0.0;
      for (int t : threads) {
        std::uint32_t seed = 100;
        const Measurement m = measure(
            [&]() {
              const double rate = prep_trial(kn->kind, corpus, t, per_thread, seed++);
              return static_cast<double>(t) * per_thread / rate;
            },
            rule, 1);
        const double rate = static_cast<double>(t) * per_thread / m.stats.mean;
        if (t == threads.front()) one_core = rate / t;
        const double eff = one_core > 0 ? rate / (one_core * t) : 0.0;
        table.add_row({kname, std::to_string(t), fmt(rate, 1), fmt(rate / t, 1), fmt_pct(eff, 1),
                       fmt_pct(m.stats.noise), to_string(m.reason)});
        Json r = Json::object();
        r["pipeline"] = kname;
        r["description"] = to_string(kn->kind);
        r["threads"] = t;
        r["samples_per_s"] = rate;
        r["samples_per_s_per_core"] = rate / t;
        r["scaling_efficiency"] = eff;
        r["encoded_bytes_per_sample"] = mean_bytes;
        r["corpus"] = real_images ? "dir:" + args.str("corpus-dir", "") : std::string("synthetic");
        r["corpus_samples"] = corpus.size();
        r["output_bytes_per_sample"] = prep_output_bytes(kn->kind);
        r["trial"] = to_json(m);
        r["status"] = "measured";
        results.push_back(r);
      }
    }
    std::cout << table.str();
    if (args.has("json")) write_json_file(args.str("json", ""), out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ckb_cpu_prep: " << e.what() << "\n";
    return 1;
  }
}
