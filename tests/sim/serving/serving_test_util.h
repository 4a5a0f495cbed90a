// A small serving state to build views from in tests: nodes, GPUs and their resident models.
#pragma once

#include <vector>

#include "clustersim/task_placement.h"

namespace clustersim::testing {

struct ServingState {
  double now = 0.0;
  std::vector<NodeView> nodes;
  std::vector<GpuView> gpus;
  std::vector<std::vector<ResidentModel>> resident;  // per GPU, LRU order
  std::vector<double> footprint_gb;                  // per model

  // `count` nodes with `gbps` NICs and `latency_us` per transfer.
  void add_nodes(int count, double gbps, double latency_us) {
    for (int i = 0; i < count; ++i) nodes.push_back({gbps, latency_us});
  }
  int add_gpu(int node, double mem_gb, double h2d_gbps, double free_at = 0.0, int queued = 0) {
    GpuView gpu;
    gpu.node = node;
    gpu.mem_gb = mem_gb;
    gpu.h2d_gbps = h2d_gbps;
    gpu.free_at = free_at;
    gpu.queued_tasks = queued;
    gpus.push_back(gpu);
    resident.emplace_back();
    return static_cast<int>(gpus.size()) - 1;
  }
  int add_model(double gb) {
    footprint_gb.push_back(gb);
    return static_cast<int>(footprint_gb.size()) - 1;
  }
  void make_resident(int gpu, int model) {
    resident[static_cast<std::size_t>(gpu)].push_back(
        {model, footprint_gb[static_cast<std::size_t>(model)]});
  }
  ServingView view() {
    for (std::size_t g = 0; g < gpus.size(); ++g) gpus[g].resident = resident[g];
    ServingView v;
    v.now = now;
    v.gpus = gpus;
    v.nodes = nodes;
    v.model_footprint_gb = footprint_gb;
    return v;
  }
};

}  // namespace clustersim::testing
