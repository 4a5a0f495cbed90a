// An index of the cluster's nodes by free GPUs, kept by the ledger (cluster_state.h) on every
// grant and release, so that placing a job costs O(GPUs per node), not O(nodes).
//
// It indexes the nodes on which a request at the proportional share can use every free GPU
// ("consistent" nodes: their free cores, memory and storage cover their free GPUs' shares; under
// proportional allocation, every node). Per GPU type it keeps:
//   - for each free-GPU count f, the set of consistent nodes with f free GPUs (a two-level
//     bitset: the lowest node of a set, or of a node range, is found in a few word operations);
//   - per rack, how many consistent nodes have each free count, and their free GPUs in total;
//   - a Fenwick tree of free GPUs over node order (the k-th free GPU in O(log nodes));
//   - how many nodes with free GPUs are not consistent (placements then scan every node).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace clustersim {

// A set of small integers with "lowest member at or after i" in O(size / 4096) word reads.
class NodeBitset {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  void resize(std::uint32_t size) {
    words_.assign((size + 63) / 64, 0);
    summary_.assign((words_.size() + 63) / 64, 0);
  }
  void insert(std::uint32_t i) {
    words_[i / 64] |= std::uint64_t{1} << (i % 64);
    summary_[i / 4096] |= std::uint64_t{1} << ((i / 64) % 64);
  }
  void erase(std::uint32_t i) {
    std::uint64_t& word = words_[i / 64];
    word &= ~(std::uint64_t{1} << (i % 64));
    if (word == 0) summary_[i / 4096] &= ~(std::uint64_t{1} << ((i / 64) % 64));
  }
  // The lowest member >= from, or kNone.
  std::uint32_t next(std::uint32_t from) const {
    std::size_t w = from / 64;
    if (w >= words_.size()) return kNone;
    const std::uint64_t here = words_[w] & (~std::uint64_t{0} << (from % 64));
    if (here != 0) return static_cast<std::uint32_t>(w * 64 + std::countr_zero(here));
    // Later words, through the summary (one bit per non-empty word).
    std::size_t s = (w + 1) / 64;
    if (s >= summary_.size()) return kNone;
    std::uint64_t bits =
        summary_[s] & (((w + 1) % 64) ? ~std::uint64_t{0} << ((w + 1) % 64) : ~std::uint64_t{0});
    while (bits == 0) {
      if (++s >= summary_.size()) return kNone;
      bits = summary_[s];
    }
    const std::size_t word = s * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    return static_cast<std::uint32_t>(word * 64 + std::countr_zero(words_[word]));
  }
  bool empty() const {
    for (std::uint64_t s : summary_)
      if (s) return false;
    return true;
  }

 private:
  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> summary_;
};

// Prefix sums of free GPUs over node order (one tree per GPU type).
class FreeGpuTree {
 public:
  void resize(std::uint32_t size) { tree_.assign(size + 1, 0); }
  void add(std::uint32_t node, int delta) {
    for (std::size_t i = node + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  // The node holding the k-th free GPU (0-based) in node order, and how many free GPUs come
  // before that node.
  std::uint32_t find(int k, int* before) const {
    std::size_t position = 0;
    int sum = 0;
    for (std::size_t step = std::bit_floor(tree_.size() - 1); step > 0; step >>= 1) {
      if (position + step < tree_.size() && sum + tree_[position + step] <= k) {
        position += step;
        sum += tree_[position];
      }
    }
    *before = sum;
    return static_cast<std::uint32_t>(position);  // 0-based node = 1-based position + 1 - 1
  }

 private:
  std::vector<int> tree_;
};

}  // namespace clustersim
