// The build that computes a sweep's points (build_identity.h).
#include "build_identity.h"

#include <fstream>
#include <iterator>

#include "clustersim/sweep/hash.h"

#ifndef CLUSTERSIM_GIT_DIRTY
#define CLUSTERSIM_GIT_DIRTY ""
#endif

namespace clustersim::sweep::sweep_internal {

namespace {

std::string hash_of_executable() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) return "";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return in.bad() ? "" : sha256_hex(bytes);
}

std::string field(const std::map<std::string, std::string>& fields, const char* name) {
  auto found = fields.find(name);
  return found == fields.end() ? "" : found->second;
}

}  // namespace

std::map<std::string, std::string> BuildIdentity::fields() const {
  return {{"software_version", software_version},
          {"git_commit", git_commit},
          {"git_dirty", git_dirty},
          {"binary_sha256", binary_sha256}};
}

BuildIdentity BuildIdentity::from_fields(const std::map<std::string, std::string>& fields) {
  return {field(fields, "software_version"), field(fields, "git_commit"),
          field(fields, "git_dirty"), field(fields, "binary_sha256")};
}

std::string BuildIdentity::describe() const {
  auto shown = [](const std::string& text, std::size_t length) {
    return text.empty() ? std::string("unknown") : text.substr(0, length);
  };
  return shown(software_version, 40) + ", commit " + shown(git_commit, 12) +
         (git_dirty == "1" ? " (dirty)" : "") + ", binary sha256 " +
         (binary_sha256.empty() ? std::string("not recorded (a clustersim before build ids)")
                                : binary_sha256.substr(0, 12));
}

bool BuildIdentity::same_as(const BuildIdentity& other) const {
  return !binary_sha256.empty() && binary_sha256 == other.binary_sha256;
}

const BuildIdentity& this_build() {
  static const BuildIdentity build{CLUSTERSIM_VERSION, CLUSTERSIM_GIT_COMMIT, CLUSTERSIM_GIT_DIRTY,
                                   hash_of_executable()};
  return build;
}

}  // namespace clustersim::sweep::sweep_internal
