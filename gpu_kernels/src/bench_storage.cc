// ckb_storage: storage read bandwidth, cold (O_DIRECT / page cache dropped) and warm, in
// sequential and random sample-sized reads, and memory-cache read throughput. No GPU needed.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <thread>

#include "ckbench/bench_common.h"
#include "storage.h"

using namespace ckbench;

int main(int argc, char** argv) {
  try {
    Args args(argc, argv, with_stop_keys({"dir", "file-mb", "blocks", "threads", "cache-mb"}),
              {"keep"});
    if (args.has("help")) {
      std::cout
          << "usage: ckb_storage [--dir DIR] [--file-mb 1024] [--blocks 131072,1048576] "
             "[--threads 1,4] [--cache-mb 1024] [--keep]\n"
             "  Writes DIR/ckb_storage.dat (removed afterwards unless --keep). Cold reads use\n"
             "  O_DIRECT; where the file system refuses it (tmpfs), the page cache is dropped\n"
             "  with posix_fadvise and the row says so.\n"
          << stop_rule_help();
      return 0;
    }
    StopRule rule = stop_rule_from(args, make_rule(0.02, 3, 0.0, 60.0));
    const std::string dir = args.str("dir", std::filesystem::temp_directory_path().string());
    const std::size_t file_bytes = static_cast<std::size_t>(args.num("file-mb", 1024) * 1e6);
    const auto blocks = args.nums("blocks", {131072, 1048576});
    const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    const auto thread_list = args.nums("threads", {1.0, static_cast<double>(std::min(hw, 8))});
    const std::string path = (std::filesystem::path(dir) / "ckb_storage.dat").string();

    std::cout << "writing " << file_bytes / 1000000 << " MB test file " << path << "\n";
    write_test_file(path, file_bytes);

    Json out = run_header("storage", rule);
    out["file"] = path;
    out["file_bytes"] = file_bytes;
    Json& results = out["results"] = Json::array();
    Table table({"mode", "order", "block", "threads", "MB/s", "noise", "method", "status"});
    for (ReadMode mode : {ReadMode::kCold, ReadMode::kWarm}) {
      for (bool random : {false, true}) {
        for (double b : blocks) {
          for (double t : thread_list) {
            std::string method;
            std::size_t bytes = 0;
            std::uint32_t seed = 1;
            const Measurement m = measure(
                [&]() {
                  const ReadResult r = read_file(path, static_cast<std::size_t>(b), mode,
                                                 static_cast<int>(t), random, seed++);
                  method = r.method;
                  bytes = r.bytes;  // the same every trial
                  return r.seconds;
                },
                rule, 0);
            const double mbps = static_cast<double>(bytes) / m.stats.mean / 1e6;
            const char* mname = mode == ReadMode::kCold ? "cold" : "warm";
            table.add_row({mname, random ? "random" : "sequential",
                           std::to_string(static_cast<long>(b)),
                           std::to_string(static_cast<int>(t)), fmt(mbps, 1),
                           fmt_pct(m.stats.noise), method, to_string(m.reason)});
            Json r = Json::object();
            r["mode"] = mname;
            r["order"] = random ? "random" : "sequential";
            r["block_bytes"] = b;
            r["threads"] = t;
            r["mb_per_s"] = mbps;
            r["method"] = method;
            r["trial"] = to_json(m);
            results.push_back(r);
          }
        }
      }
    }
    if (!args.has("keep")) std::filesystem::remove(path);

    // Memory cache: random sample-sized copies out of an in-memory dataset.
    const std::size_t cache_bytes = static_cast<std::size_t>(args.num("cache-mb", 1024) * 1e6);
    std::vector<std::uint8_t> cache(cache_bytes);
    for (std::size_t i = 0; i < cache.size(); i += 4096) cache[i] = static_cast<std::uint8_t>(i);
    Table ctable({"memory cache", "record", "threads", "MB/s", "noise", "status"});
    Json& cres = out["memory_cache"] = Json::array();
    for (double record : {115440.0, 1048576.0}) {
      for (double t : thread_list) {
        const std::size_t samples =
            std::max<std::size_t>(64, static_cast<std::size_t>(2e9 / record));
        const Measurement m = measure(
            [&]() {
              const double bps = memory_cache_read(cache, static_cast<std::size_t>(record),
                                                   static_cast<int>(t), samples);
              return static_cast<double>(samples) * record / bps;  // trial seconds
            },
            make_rule(rule.max_noise, 5, 0.2, rule.max_time_s), 1);
        const double mbps = static_cast<double>(samples) * record / m.stats.mean / 1e6;
        ctable.add_row({"read", std::to_string(static_cast<long>(record)),
                        std::to_string(static_cast<int>(t)), fmt(mbps, 1), fmt_pct(m.stats.noise),
                        to_string(m.reason)});
        Json r = Json::object();
        r["record_bytes"] = record;
        r["threads"] = t;
        r["mb_per_s"] = mbps;
        r["trial"] = to_json(m);
        cres.push_back(r);
      }
    }
    std::cout << table.str() << "\n" << ctable.str();
    if (args.has("json")) write_json_file(args.str("json", ""), out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ckb_storage: " << e.what() << "\n";
    return 1;
  }
}
