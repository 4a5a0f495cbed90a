// A sweep grid: a base run config (the tables of `clustersim run`) plus a [sweep] table of axes.
// The grid's points are the Cartesian product of its dimensions (an axis, or a `zip` group of
// axes that vary together) times the replicates (`seeds`). This file knows nothing of MPI,
// threads or the simulator, so grid expansion is unit-testable on its own.
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::sweep {

// The most points one grid may have (configurations x seeds). Rank 0 keeps a record per point,
// and replicate numbers are 32-bit; a larger grid is an InputError naming the key at fault.
inline constexpr std::uint64_t kMaxGridPoints = 100'000'000;

// How an axis' values are stored as a result column.
enum class ValueKind { kInteger, kFloat, kBoolean, kString, kToml /* arrays, tables: TOML text */ };

std::string_view value_kind_name(ValueKind kind);

struct Axis {
  std::string path;                     // dotted key into the run config: "scheduler.policy"
  std::vector<std::string> path_parts;  // {"scheduler", "policy"}
  toml::array values;                   // as written in the grid file
  std::vector<std::string> labels;      // values as short text ("fifo", "0.5") for listings
  ValueKind kind = ValueKind::kString;
  std::size_t line = 0;  // line of the axis in the grid file
  std::size_t column = 0;

  std::size_t size() const { return values.size(); }
};

// One factor of the Cartesian product: a single axis, or a zip group of equally long axes.
struct Dimension {
  std::vector<std::size_t> axes;  // indices into Grid::axes
  std::size_t size = 0;
};

struct Grid {
  std::string source_name;  // grid file path, for messages
  std::string base_dir;     // relative paths in the run config resolve against this
  std::string text;         // the grid file's text, verbatim (stored in the result file)
  std::string sha256;       // of `text`; resume refuses a grid whose hash changed
  toml::table base;         // the run config tables, [sweep] removed (keeps source lines)
  std::vector<Axis> axes;   // in the order they appear in the file
  std::vector<Dimension> dimensions;
  std::size_t replicates = 1;  // `seeds = N`
  std::size_t seeds_line = 0;  // its line in the grid file (0: not set)
  std::uint64_t seed = 1;      // grid seed: every point's seed derives from it
  // true: a replicate's seed is shared by every configuration (common random numbers, so that
  // policies are compared on the same generated workloads); false: it also mixes in point_id.
  bool paired_seeds = true;

  std::size_t configurations() const;  // product of the dimension sizes
  std::size_t size() const { return configurations() * replicates; }
};

// One simulation of the grid. point_id = config_id * replicates + replicate.
struct GridPoint {
  std::uint64_t point_id = 0;
  std::uint64_t config_id = 0;
  std::uint32_t replicate = 0;
  std::uint64_t seed = 0;
  std::vector<std::size_t> value_index;  // per axis, index into Axis::values
};

// Parses a grid file's text. Throws InputError (naming the file, line and key) for a malformed
// [sweep] table: non-list axes, empty axes, mixed value types, duplicate values, bad zip groups,
// more than kMaxGridPoints points.
// It does not check axis paths against the run config: see validate_grid (point_config.h).
Grid parse_grid(std::string_view text, const std::string& source_name, const std::string& base_dir);
// Reads `path` (InputError if unreadable) and parses it; relative paths resolve next to it.
Grid load_grid(const std::string& path);

// A point's seed: a fixed function of (grid seed, point_id, replicate), via splitmix64.
std::uint64_t derive_seed(std::uint64_t grid_seed, std::uint64_t point_id, std::uint32_t replicate);

GridPoint grid_point(const Grid& grid, std::uint64_t point_id);

// The run config of a point: the base tables with each axis' value set at its dotted path.
toml::table point_table(const Grid& grid, const GridPoint& point);

// "scheduler.policy=fifo workload.load=0.5 replicate=1", for messages and listings.
std::string describe_point(const Grid& grid, const GridPoint& point);

}  // namespace clustersim::sweep
