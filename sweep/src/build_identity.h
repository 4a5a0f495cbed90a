// Private to the sweep's sources: the build a result file records (software_version,
// git_commit, git_dirty, binary_sha256), and how two builds compare. CMake defines the
// configure-time macros for the files that need them (sweep/CMakeLists.txt); a build without
// them records "unknown".
#pragma once

#include <map>
#include <string>

#ifndef CLUSTERSIM_VERSION
#define CLUSTERSIM_VERSION "unknown"
#endif
#ifndef CLUSTERSIM_GIT_COMMIT
#define CLUSTERSIM_GIT_COMMIT "unknown"
#endif

namespace clustersim::sweep::sweep_internal {

// Which build computed a sweep's points. The commit and the dirty flag are taken when CMake
// configures, so they can lag behind the sources; the SHA-256 of the executable cannot, which is
// why it decides whether two builds are the same (a rebuild after `git pull` changes it even
// when nobody reconfigured).
struct BuildIdentity {
  std::string software_version;
  std::string git_commit;
  std::string git_dirty;      // "1": uncommitted changes when configured, "0": none, "": unknown
  std::string binary_sha256;  // of the running executable; "" when unknown (older journals)

  // Journal fields (session records) and their inverse; fields an older journal lacks read "".
  std::map<std::string, std::string> fields() const;
  static BuildIdentity from_fields(const std::map<std::string, std::string>& fields);
  // "0.1.0, commit 1a2b3c4d5e6f (dirty), binary sha256 0123456789ab"
  std::string describe() const;
  // Same executable (both hashes known and equal).
  bool same_as(const BuildIdentity& other) const;
};

// This process's build (the executable is hashed once, on first use).
const BuildIdentity& this_build();

}  // namespace clustersim::sweep::sweep_internal
