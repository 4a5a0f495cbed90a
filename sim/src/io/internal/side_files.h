// The side files a run config names, read through a sweep's SideFileCache when the config is
// parsed with one (side_file_cache.h), else from disk as they always were (side_files.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/failure_trace.h"
#include "clustersim/profile.h"
#include "clustersim/serving_catalog.h"
#include "clustersim/side_file_cache.h"
#include "clustersim/throughput_table.h"
#include "io/internal/pair_table.h"

namespace clustersim::io_internal {

// A profile folder's *.json files, sorted (InputError: not a folder, cannot be listed, none),
// and the library their texts make (a serving catalog among them is skipped; InputError when
// none is a profile). load_profile_dir is the two, reading the files between (profile_reader.cc).
std::vector<std::string> profile_files(const std::string& dir);
ProfileLibrary profile_library(const std::string& dir, const std::vector<std::string>& files,
                               const std::vector<std::string>& texts);

// Each kind of side file, from `cache` (nullptr: read and parsed here and now).
std::shared_ptr<const ProfileLibrary> side_profile_dir(SideFileCache* cache,
                                                       const std::string& dir);
std::shared_ptr<const ThroughputTable> side_throughput_table(SideFileCache* cache,
                                                             const std::string& path);
std::shared_ptr<const ServingCatalog> side_serving_catalog(SideFileCache* cache,
                                                           const std::string& path);
// Node names resolve against the cluster's node groups: they are part of the cache's key.
std::vector<NodeOutage> side_failure_trace(SideFileCache* cache, const std::string& path,
                                           const ClusterSpec& cluster);
PairTable side_pair_table(SideFileCache* cache, const std::string& path);

}  // namespace clustersim::io_internal
