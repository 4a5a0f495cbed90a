// A cache of the side files a run config names — profile folders, throughput tables, failure
// traces, serving catalogs, [sharing]'s pair table — each parsed once and shared by every config
// loaded with the same cache (a sweep rank's grid points, on all of its threads).
//
// Identity: an entry is reused while each of its files has the same stat stamp (device, inode,
// size, modification and status-change times, to the nanosecond) as when it was read, and a
// folder lists the same files. A stamp is cheap (no read) and any write, truncation, rename over
// the file or `touch` changes it — except a write within the file system's timestamp tick after
// the read, which can leave every field equal. So a stamp is trusted only when its times are
// older than the read by more than any tick (kTrustAfterSeconds): for a file written later
// than that (a file being written while a sweep starts), the entry keeps the bytes it parsed and
// every later use reads the file again and compares the bytes (the "racy" case; as git treats
// index entries). A file that changes while it is read is read again. A content hash on every use
// would also be exact, but would read every file at every use; this reads each file once.
//
// Thread-safe; a value depends only on the bytes parsed, so which thread parses first does not
// change any result.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

class SideFileCache {
 public:
  // A stamp's times must be this much older than the read for the stamp alone to vouch for the
  // bytes (well above the coarsest file system tick of a local disk, and small clock skews).
  static constexpr double kTrustAfterSeconds = 2.0;

  // `trust_after_seconds`: kTrustAfterSeconds, unless a test wants stamps trusted at once.
  explicit SideFileCache(double trust_after_seconds = kTrustAfterSeconds)
      : trust_after_seconds_(trust_after_seconds) {}

  struct Stats {
    std::size_t lookups = 0;     // get() calls
    std::size_t hits = 0;        // served on its stamps alone: nothing read
    std::size_t verified = 0;    // files too recent to trust, read again: the same bytes
    std::size_t parses = 0;      // parsed: a first use, or files that changed
    std::size_t files_read = 0;  // file reads (every parse's, every verification's)
  };

  // The value `parse` makes of the bytes of `files` (read in this order; `what` names them in
  // errors, as read_input_file does: "profile file"), shared by every call with the same `key`
  // while the files are as they were. `key` names the kind and the path, and anything else the
  // parse depends on (a failure trace: the cluster's node groups). An error (reading or
  // parsing) is thrown to the caller and nothing is kept.
  template <typename T>
  std::shared_ptr<const T> get(const std::string& key, const std::vector<std::string>& files,
                               std::string_view what,
                               const std::function<T(const std::vector<std::string>&)>& parse) {
    return std::static_pointer_cast<const T>(
        get_erased(key, files, what,
                   [&parse](const std::vector<std::string>& texts) -> std::shared_ptr<const void> {
                     return std::make_shared<const T>(parse(texts));
                   }));
  }

  Stats stats() const;

  struct Stamp;  // what stat says of a file (side_file_cache.cc)

 private:
  struct Entry;
  using ErasedParse =
      std::function<std::shared_ptr<const void>(const std::vector<std::string>& texts)>;
  std::shared_ptr<const void> get_erased(const std::string& key,
                                         const std::vector<std::string>& files,
                                         std::string_view what, const ErasedParse& parse);

  double trust_after_seconds_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Entry>> entries_;
  Stats stats_;
};

}  // namespace clustersim
