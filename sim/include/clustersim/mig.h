// MIG (multi-instance GPU) geometries: how a GPU in MIG mode is cut into slices that jobs ask for
// by profile ([cluster] mig, a job's mig_profile; sim/README.md, "MIG partitions").
//
// A GPU in MIG mode has 8 memory slices and 7 compute slices. A profile "Ng.Mgb" takes N compute
// slices and `size` consecutive memory slices starting at one of its allowed start indexes (the
// placements NVML lists, nvmlGpuInstancePlacement_t {start, size}; `nvidia-smi mig -lgipp`), and
// two slices of a GPU never overlap. The tables follow NVIDIA's MIG user guide ("Supported MIG
// Profiles") for the A100 40 GB and the A100 / H100 80 GB.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace clustersim {

constexpr int kMigMemorySlices = 8;
constexpr int kMigComputeSlices = 7;

// Every profile name any geometry offers; a job's profile is its index + 1 (0: none).
inline constexpr std::array<std::string_view, 11> kMigProfileNames = {
    "1g.5gb",  "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb",
    "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"};

// A profile's id (index + 1 in kMigProfileNames), 0 if unknown.
inline int mig_profile_id(std::string_view name) {
  for (std::size_t i = 0; i < kMigProfileNames.size(); ++i)
    if (kMigProfileNames[i] == name) return static_cast<int>(i) + 1;
  return 0;
}

inline std::string_view mig_profile_name(int profile) {
  return kMigProfileNames[static_cast<std::size_t>(profile - 1)];
}

// Compute slices of a profile id (the N of "Ng").
inline int mig_compute_slices(int profile) {
  return kMigProfileNames[static_cast<std::size_t>(profile - 1)][0] - '0';
}

inline std::string mig_profile_list() {
  std::string list;
  for (std::string_view name : kMigProfileNames)
    list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

// A profile on a geometry: memory slices taken, allowed starts (bit s: start s), memory (GB).
struct MigSlice {
  int size = 0;  // 0: the geometry does not offer the profile
  std::uint8_t starts = 0;
  double mem_gb = 0.0;
};

struct MigGeometry {
  std::string_view name;
  std::array<MigSlice, kMigProfileNames.size()> slices;  // by profile id - 1
};

namespace mig_internal {
constexpr std::uint8_t kAnyOfSeven = 0x7F;    // starts 0..6
constexpr std::uint8_t kEven = 0x55;          // 0, 2, 4, 6
constexpr std::uint8_t kEvenBelowSix = 0x15;  // 0, 2, 4
constexpr std::uint8_t kHalves = 0x11;        // 0, 4
constexpr std::uint8_t kFirst = 0x01;         // 0
constexpr MigGeometry k40{
    "a100-40gb",
    {MigSlice{1, kAnyOfSeven, 5}, MigSlice{2, kEven, 10}, MigSlice{2, kEvenBelowSix, 10},
     MigSlice{4, kHalves, 20}, MigSlice{4, kFirst, 20}, MigSlice{8, kFirst, 40}, MigSlice{},
     MigSlice{}, MigSlice{}, MigSlice{}, MigSlice{}}};
constexpr std::array<MigSlice, 11> k80Slices = {MigSlice{},
                                                MigSlice{1, kAnyOfSeven, 10},
                                                MigSlice{},
                                                MigSlice{},
                                                MigSlice{},
                                                MigSlice{},
                                                MigSlice{2, kEven, 20},
                                                MigSlice{2, kEvenBelowSix, 20},
                                                MigSlice{4, kHalves, 40},
                                                MigSlice{4, kFirst, 40},
                                                MigSlice{8, kFirst, 80}};
}  // namespace mig_internal

inline constexpr std::array<MigGeometry, 3> kMigGeometries = {
    mig_internal::k40, MigGeometry{"a100-80gb", mig_internal::k80Slices},
    MigGeometry{"h100-80gb", mig_internal::k80Slices}};

// A geometry's index in kMigGeometries, -1 if unknown.
inline int mig_geometry_id(std::string_view name) {
  for (std::size_t i = 0; i < kMigGeometries.size(); ++i)
    if (kMigGeometries[i].name == name) return static_cast<int>(i);
  return -1;
}

inline const MigSlice& mig_slice(int geometry, int profile) {
  return kMigGeometries[static_cast<std::size_t>(geometry)]
      .slices[static_cast<std::size_t>(profile - 1)];
}

// The lowest allowed start of `profile` whose memory slices are free in `used` (bit i: memory
// slice i taken) on a GPU of `geometry`; -1 if none (or the geometry lacks the profile).
inline int mig_first_start(int geometry, int profile, std::uint8_t used) {
  const MigSlice& slice = mig_slice(geometry, profile);
  if (slice.size == 0) return -1;
  const unsigned span = (1u << slice.size) - 1u;
  for (int start = 0; start + slice.size <= kMigMemorySlices; ++start)
    if ((slice.starts >> start & 1u) && (used & (span << start)) == 0) return start;
  return -1;
}

inline std::uint8_t mig_mask(int geometry, int profile, int start) {
  return static_cast<std::uint8_t>(((1u << mig_slice(geometry, profile).size) - 1u) << start);
}

}  // namespace clustersim
