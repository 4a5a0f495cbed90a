// What the event-driven engine can index (public: the config reader refuses larger inputs with
// the file, key and limit before a run starts).
#pragma once

namespace clustersim {

// The engine's waiting queue packs a job's GPU count into 24 bits of its bucket key
// (decider/waiting_queue.cc), so a cluster holds at most this many GPUs.
inline constexpr int kMaxClusterGpus = (1 << 24) - 1;

}  // namespace clustersim
