// ckb_h2d: host-to-device copy bandwidth, pinned vs pageable host memory, over batch sizes of
// preprocessed samples (default: 224x224x3 float images), timed with cudaEvents.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>

#include "ckbench/bench_common.h"
#include "cuda_check.h"
#include "gpu_step.h"

using namespace ckbench;

int main(int argc, char** argv) {
  try {
    Args args(argc, argv, with_stop_keys({"sample-bytes", "batches", "device"}));
    if (args.has("help")) {
      std::cout << "usage: ckb_h2d [--sample-bytes 602112] [--batches 1,8,32,128,512] "
                   "[--device 0]\n"
                << stop_rule_help();
      return 0;
    }
    std::string why;
    if (report_skipped_without_device(args, device_count_or_zero(&why), "ckb_h2d", "h2d", why))
      return 0;
    const int device = static_cast<int>(args.num("device", 0));
    CK_CUDA(cudaSetDevice(device));
    const DeviceInfo info = device_info(device);
    const StopRule rule = stop_rule_from(args);
    const double sample_bytes = args.num("sample-bytes", 3.0 * 224 * 224 * 4);
    const auto batches = args.nums("batches", {1, 8, 32, 128, 512});

    Json out = run_header("h2d", rule);
    out["device"] = info.name;
    out["sample_bytes"] = sample_bytes;
    Json& results = out["results"] = Json::array();
    Table table({"host memory", "batch", "bytes", "GB/s", "samples/s", "noise", "status"});
    cudaStream_t stream;
    CK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (bool pinned : {true, false}) {
      for (double b : batches) {
        const std::size_t bytes = static_cast<std::size_t>(b * sample_bytes);
        void* host = nullptr;
        if (pinned) {
          CK_CUDA(cudaMallocHost(&host, bytes));
        } else {
          host = std::malloc(bytes);
          if (host == nullptr) throw std::bad_alloc();
        }
        std::memset(host, 1, bytes);  // touch every page: no first-touch faults in the timing
        void* dev = nullptr;
        CK_CUDA(cudaMalloc(&dev, bytes));
        const Measurement m = time_on_stream(
            stream,
            [&]() { CK_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream)); },
            rule);
        const double gbps = static_cast<double>(bytes) / m.stats.mean / 1e9;
        table.add_row({pinned ? "pinned" : "pageable", std::to_string(static_cast<long>(b)),
                       std::to_string(bytes), fmt(gbps, 2), fmt(b / m.stats.mean, 1),
                       fmt_pct(m.stats.noise), to_string(m.reason)});
        Json r = Json::object();
        r["host_memory"] = pinned ? "pinned" : "pageable";
        r["batch"] = b;
        r["bytes"] = bytes;
        r["gb_per_s"] = gbps;
        r["samples_per_s"] = b / m.stats.mean;
        r["trial"] = to_json(m);
        results.push_back(r);
        CK_CUDA(cudaFree(dev));
        if (pinned) {
          CK_CUDA(cudaFreeHost(host));
        } else {
          std::free(host);
        }
      }
    }
    CK_CUDA(cudaStreamDestroy(stream));
    std::cout << "device: " << info.name << "\n" << table.str();
    if (args.has("json")) write_json_file(args.str("json", ""), out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ckb_h2d: " << e.what() << "\n";
    return 1;
  }
}
