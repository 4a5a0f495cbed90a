// ckb_compute: GPU compute rate of a training step per model class (samples/s per GPU), from
// the model's real GEMM/conv/recurrent shapes (cuBLAS) plus activation, depthwise, gather and
// optimizer kernels, timed with cudaEvents until the noise is below the threshold.
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>

#include "ckbench/bench_common.h"
#include "cuda_check.h"
#include "gpu_step.h"

using namespace ckbench;

int main(int argc, char** argv) {
  try {
    Args args(argc, argv, with_stop_keys({"models", "batch", "precision", "device"}));
    if (args.has("help")) {
      std::cout << "usage: ckb_compute [--models all|resnet50,...] [--batch N (0 = model default)]"
                   " [--precision fp16|tf32|fp32] [--device 0]\n"
                << stop_rule_help();
      return 0;
    }
    std::string why;
    if (report_skipped_without_device(args, device_count_or_zero(&why), "ckb_compute", "compute",
                                      why))
      return 0;
    const int device = static_cast<int>(args.num("device", 0));
    CK_CUDA(cudaSetDevice(device));
    const DeviceInfo info = device_info(device);
    const Precision precision = parse_precision(args.str("precision", "fp16"));
    const StopRule rule = stop_rule_from(args);
    std::vector<std::string> names;
    {
      const std::string list = args.str("models", "all");
      if (list == "all") {
        for (const ModelSpec& m : model_zoo()) names.push_back(m.name);
      } else {
        std::stringstream ss(list);
        std::string n;
        while (std::getline(ss, n, ',')) names.push_back(n);
      }
    }

    Json out = run_header("compute", rule);
    out["device"] = info.name;
    out["compute_capability"] = std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor);
    out["precision"] = to_string(precision);
    Json& results = out["results"] = Json::array();
    Table table(
        {"model", "batch", "step ms", "noise", "samples/s", "TFLOP/s", "GFLOP/sample", "status"});
    cudaStream_t stream;
    CK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (const std::string& name : names) {
      const ModelSpec model = find_model(name);
      const int batch =
          args.num("batch", 0) > 0 ? static_cast<int>(args.num("batch", 0)) : model.default_batch;
      TrainingStep step(model, batch, precision, stream);
      const Measurement m = time_on_stream(
          stream, [&]() { step.enqueue(); }, rule);
      const double sps = batch / m.stats.mean;
      const double tflops = step.flops() / m.stats.mean / 1e12;
      table.add_row({name, std::to_string(batch), fmt(m.stats.mean * 1e3, 3),
                     fmt_pct(m.stats.noise), fmt(sps, 1), fmt(tflops, 1),
                     fmt(step.flops() / batch / 1e9, 2), to_string(m.reason)});
      Json r = Json::object();
      r["model"] = name;
      r["batch"] = batch;
      r["samples_per_s"] = sps;
      r["step_s"] = m.stats.mean;
      r["tflops"] = tflops;
      r["flops_per_step"] = step.flops();
      r["device_bytes"] = step.device_bytes();
      r["trial"] = to_json(m);
      results.push_back(r);
    }
    CK_CUDA(cudaStreamDestroy(stream));
    std::cout << "device: " << info.name << " (sm_" << info.cc_major << info.cc_minor << ", "
              << info.sms << " SMs), precision " << to_string(precision) << "\n"
              << table.str();
    if (args.has("json")) write_json_file(args.str("json", ""), out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ckb_compute: " << e.what() << "\n";
    return 1;
  }
}
