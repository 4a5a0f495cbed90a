// Each kind of side file through the sweep's cache (io/internal/side_files.h). The kind and
// the path key an entry; a failure trace's also the node groups its node names resolve against.
#include "io/internal/side_files.h"

#include <sstream>

#include "clustersim/input_file.h"

namespace clustersim::io_internal {

namespace {

// One file's parse, from its text.
template <typename T>
std::shared_ptr<const T> one_file(SideFileCache& cache, const std::string& kind,
                                  const std::string& path, std::string_view what,
                                  const std::function<T(const std::string&)>& parse) {
  return cache.get<T>(kind + '\n' + path, {path}, what,
                      [&](const std::vector<std::string>& texts) { return parse(texts[0]); });
}

}  // namespace

std::shared_ptr<const ProfileLibrary> side_profile_dir(SideFileCache* cache,
                                                       const std::string& dir) {
  if (!cache) return std::make_shared<const ProfileLibrary>(load_profile_dir(dir));
  // The folder is listed at every use: a profile added or removed is a change too.
  const std::vector<std::string> files = profile_files(dir);
  return cache->get<ProfileLibrary>(
      "profiles\n" + dir, files, "profile file",
      [&](const std::vector<std::string>& texts) { return profile_library(dir, files, texts); });
}

std::shared_ptr<const ThroughputTable> side_throughput_table(SideFileCache* cache,
                                                             const std::string& path) {
  if (!cache) return std::make_shared<const ThroughputTable>(load_throughput_table(path));
  return one_file<ThroughputTable>(*cache, "throughput table", path, "throughput table",
                                   [&](const std::string& text) {
                                     std::istringstream in(text);
                                     return parse_throughput_table(in, path);
                                   });
}

std::shared_ptr<const ServingCatalog> side_serving_catalog(SideFileCache* cache,
                                                           const std::string& path) {
  if (!cache) return std::make_shared<const ServingCatalog>(load_serving_catalog(path));
  return one_file<ServingCatalog>(
      *cache, "serving catalog", path, "serving catalog",
      [&](const std::string& text) { return parse_serving_catalog(text, path); });
}

std::vector<NodeOutage> side_failure_trace(SideFileCache* cache, const std::string& path,
                                           const ClusterSpec& cluster) {
  if (!cache) return load_failure_trace(path, cluster);
  // What node_index reads of the cluster: each group's name and node count, in order.
  std::string groups;
  for (const NodeGroupSpec& group : cluster.groups)
    groups += group.name + '\t' + std::to_string(group.nodes) + '\n';
  return *one_file<std::vector<NodeOutage>>(*cache, "failure trace\n" + groups, path,
                                            "failure trace", [&](const std::string& text) {
                                              std::istringstream in(text);
                                              return read_failure_trace(in, path, cluster);
                                            });
}

PairTable side_pair_table(SideFileCache* cache, const std::string& path) {
  if (!cache) return read_pair_table(path);
  return *one_file<PairTable>(
      *cache, "pair table", path, "sharing.table",
      [&](const std::string& text) { return parse_pair_table(text, path); });
}

}  // namespace clustersim::io_internal
