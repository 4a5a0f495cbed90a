#include "clustersim/sweep/shard.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <queue>
#include <utility>

#include "clustersim/error.h"
#include "clustersim/sweep/result_store.h"

namespace clustersim::sweep {

namespace {

std::size_t parse_count(std::string_view digits, std::string_view whole) {
  std::size_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    throw InputError(
        "--shard", 0, "",
        "'" + std::string(whole) + "' is not K/N (shard K of N, 0 <= K < N, e.g. --shard 0/4)");
  }
  return value;
}

}  // namespace

std::string ShardSpec::text() const {
  return sharded() ? std::to_string(index) + "/" + std::to_string(count) : std::string();
}

ShardSpec parse_shard(std::string_view text) {
  if (text.empty()) return {};
  auto slash = text.find('/');
  if (slash == std::string_view::npos) parse_count("", text);  // throws
  ShardSpec shard;
  shard.index = parse_count(text.substr(0, slash), text);
  shard.count = parse_count(text.substr(slash + 1), text);
  if (shard.count == 0 || shard.index >= shard.count) {
    throw InputError("--shard", 0, "",
                     "'" + std::string(text) + "': K must be 0.." +
                         (shard.count ? std::to_string(shard.count - 1) : std::string("N-1")) +
                         " (shards are numbered from 0, like SLURM_ARRAY_TASK_ID of "
                         "--array=0-(N-1))");
  }
  return shard;
}

std::vector<std::uint32_t> assign_shards(const std::vector<double>& point_costs,
                                         std::size_t shard_count) {
  std::vector<std::uint32_t> shard_of(point_costs.size(), 0);
  if (shard_count <= 1) return shard_of;
  std::vector<std::uint64_t> order(point_costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
    return point_costs[a] > point_costs[b];
  });
  // Min-heap of (cost so far, shard): the least loaded shard, the lower index on ties.
  using Load = std::pair<double, std::uint32_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<>> loads;
  for (std::size_t s = 0; s < shard_count; ++s) loads.emplace(0.0, static_cast<std::uint32_t>(s));
  for (std::uint64_t id : order) {
    auto [cost, shard] = loads.top();
    loads.pop();
    shard_of[id] = shard;
    loads.emplace(cost + point_costs[id], shard);
  }
  return shard_of;
}

std::vector<double> point_costs(const Grid& grid, const GridCheck& check) {
  std::vector<double> costs(grid.size());
  for (std::uint64_t id = 0; id < grid.size(); ++id)
    costs[id] = check.config_cost[id / grid.replicates];
  return costs;
}

std::vector<bool> shard_members(const Grid& grid, const GridCheck& check, const ShardSpec& shard) {
  std::vector<bool> members(grid.size(), true);
  if (!shard.sharded()) return members;
  std::vector<std::uint32_t> shard_of = assign_shards(point_costs(grid, check), shard.count);
  for (std::uint64_t id = 0; id < grid.size(); ++id) members[id] = shard_of[id] == shard.index;
  return members;
}

void check_same_shard(const std::string& file, const std::string& recorded,
                      const std::string& requested) {
  if (recorded == requested) return;
  std::string message;
  if (recorded.empty()) {
    message = "was written without --shard; resume it without --shard, or write shard " +
              requested + " to another --out";
  } else if (requested.empty()) {
    message = "was written by --shard " + recorded + "; resume it with --shard " + recorded;
  } else {
    message = "was written by --shard " + recorded + ", not " + requested +
              ": every shard needs its own --out";
  }
  throw InputError(file, 0, "", message);
}

std::string read_shard_attribute(const std::string& path) {
  Attributes attributes = read_root_attributes(path);
  auto found = attributes.find("shard");
  if (found == attributes.end()) return "";
  const std::string* text = std::get_if<std::string>(&found->second);
  return text ? *text : "";
}

}  // namespace clustersim::sweep
