#include "clustersim/sweep/grid.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/sweep/hash.h"

namespace clustersim::sweep {

namespace {

// Keys of [sweep] that are not axes.
constexpr std::string_view kSeedsKey = "seeds";
constexpr std::string_view kSeedKey = "seed";
constexpr std::string_view kZipKey = "zip";
constexpr std::string_view kPairedSeedsKey = "paired_seeds";

std::size_t line_of(const toml::node& node) { return node.source().begin.line; }

std::string toml_text(const toml::node& node) {
  std::ostringstream out;
  node.visit([&](const auto& concrete) { out << toml::toml_formatter{concrete}; });
  return out.str();
}

std::string label_of(const toml::node& node) {
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* flag = node.as_boolean()) return flag->get() ? "true" : "false";
  if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
  if (const auto* floating = node.as_floating_point()) {
    std::ostringstream out;
    out.precision(17);
    out << floating->get();
    // Shortest text that reads back to the same double, so labels are stable and exact.
    for (int digits = 1; digits <= 17; ++digits) {
      std::ostringstream shorter;
      shorter.precision(digits);
      shorter << floating->get();
      if (std::stod(shorter.str()) == floating->get()) return shorter.str();
    }
    return out.str();
  }
  return toml_text(node);
}

ValueKind kind_of(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::integer:
      return ValueKind::kInteger;
    case toml::node_type::floating_point:
      return ValueKind::kFloat;
    case toml::node_type::boolean:
      return ValueKind::kBoolean;
    case toml::node_type::string:
      return ValueKind::kString;
    default:
      return ValueKind::kToml;
  }
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(path);
  while (std::getline(in, part, '.')) parts.push_back(part);
  if (!path.empty() && path.back() == '.') parts.emplace_back();
  return parts;
}

class GridParser {
 public:
  GridParser(const std::string& source_name) : source_(source_name) {}

  [[noreturn]] void fail(std::size_t line, const std::string& field,
                         const std::string& message) const {
    throw InputError(source_, line, excerpt(field, 80), message);
  }

  void read_axis(const std::string& path, const toml::node& node, Grid& grid) {
    const auto* values = node.as_array();
    if (values == nullptr) {
      fail(line_of(node), "sweep." + path,
           "must be a list of values (an axis); the other keys of [sweep] are seeds, seed, zip and "
           "paired_seeds");
    }
    Axis axis;
    axis.path = path;
    axis.path_parts = split_path(path);
    axis.line = line_of(node);
    axis.column = node.source().begin.column;
    for (const auto& part : axis.path_parts) {
      if (part.empty()) fail(axis.line, "sweep." + path, "axis path has an empty component");
    }
    if (axis.path_parts.size() < 2) {
      fail(axis.line, "sweep." + path,
           "is neither an axis (a dotted key into the run config, e.g. \"scheduler.policy\") nor "
           "one of "
           "seeds, seed, zip, paired_seeds");
    }
    if (path == "workload.seed") {
      fail(axis.line, "sweep." + path,
           "the workload seed derives from the grid seed; use [sweep] seeds = N for replicates and "
           "[sweep] seed for the grid seed");
    }
    if (values->empty()) fail(axis.line, "sweep." + path, "axis is empty: list at least one value");
    axis.values = *values;
    axis.kind = kind_of(*values->get(0));
    for (std::size_t i = 0; i < values->size(); ++i) {
      ValueKind kind = kind_of(*values->get(i));
      if (kind == axis.kind) continue;
      bool numeric = (kind == ValueKind::kInteger || kind == ValueKind::kFloat) &&
                     (axis.kind == ValueKind::kInteger || axis.kind == ValueKind::kFloat);
      if (!numeric) {
        fail(axis.line, "sweep." + path,
             "axis mixes value types (" + std::string(value_kind_name(axis.kind)) + " and " +
                 std::string(value_kind_name(kind)) + ")");
      }
      axis.kind = ValueKind::kFloat;  // integers and floats together form a float column
    }
    for (std::size_t i = 0; i < values->size(); ++i)
      axis.labels.push_back(label_of(*values->get(i)));
    grid.axes.push_back(std::move(axis));
  }

  // A value listed twice: an error for an axis of its own; within a zip group only the group's
  // combination must not repeat (policy-specific settings zipped with the policy axis repeat a
  // value: ["fifo", "las"] with checkpoint_s = [0, 30] and a third policy at 0 or 30).
  void check_repeats(const Grid& grid) {
    const auto key = [&](std::size_t axis, std::size_t i) {
      const Axis& a = grid.axes[axis];
      return (kind_of(*a.values.get(i)) == ValueKind::kString ? "s:" : "") + a.labels[i];
    };
    for (const Dimension& dimension : grid.dimensions) {
      std::set<std::vector<std::string>> seen;
      for (std::size_t i = 0; i < dimension.size; ++i) {
        std::vector<std::string> combination;
        for (std::size_t axis : dimension.axes) combination.push_back(key(axis, i));
        if (seen.insert(combination).second) continue;
        const Axis& first = grid.axes[dimension.axes.front()];
        if (dimension.axes.size() == 1)
          fail(first.line, "sweep." + first.path,
               "axis lists the value " + excerpt(first.labels[i]) + " twice");
        std::string values;
        for (std::size_t axis : dimension.axes)
          values += (values.empty() ? "" : ", ") + grid.axes[axis].path + " = " +
                    excerpt(grid.axes[axis].labels[i]);
        fail(first.line, "sweep." + first.path,
             "zip group lists the combination (" + values + ") twice");
      }
    }
  }

  // Axes may be written as quoted dotted keys ("scheduler.policy" = [...]) or as TOML dotted keys
  // / sub-tables (scheduler.policy = [...]); both flatten to the same path.
  void read_axes(const toml::table& table, const std::string& prefix, Grid& grid) {
    for (const auto& [key, node] : table) {
      std::string name(key.str());
      if (prefix.empty() &&
          (name == kSeedsKey || name == kSeedKey || name == kZipKey || name == kPairedSeedsKey)) {
        continue;
      }
      std::string path = prefix.empty() ? name : prefix + "." + name;
      if (const auto* sub = node.as_table()) {
        read_axes(*sub, path, grid);
      } else {
        read_axis(path, node, grid);
      }
    }
  }

  std::int64_t read_integer(const toml::table& sweep, std::string_view key, std::int64_t fallback,
                            std::int64_t minimum) const {
    const toml::node* node = sweep.get(key);
    if (node == nullptr) return fallback;
    const auto* integer = node->as_integer();
    if (integer == nullptr) fail(line_of(*node), "sweep." + std::string(key), "must be an integer");
    if (integer->get() < minimum) {
      fail(line_of(*node), "sweep." + std::string(key),
           "must be at least " + std::to_string(minimum));
    }
    return integer->get();
  }

  // The grid's point count, dimensions x seeds, in checked arithmetic: past kMaxGridPoints (or
  // where it would wrap) the key that pushes it over is named.
  void check_size(const toml::table& sweep, const Grid& grid, std::int64_t seeds) const {
    const std::string limit = "more than " + std::to_string(kMaxGridPoints) +
                              " points, the most one sweep holds (rank 0 keeps a record per "
                              "point): split the grid into several sweeps";
    std::uint64_t configurations = 1;
    for (const Dimension& dimension : grid.dimensions) {
      std::uint64_t product = 0;
      if (__builtin_mul_overflow(configurations, dimension.size, &product) ||
          product > kMaxGridPoints) {
        const Axis& axis = grid.axes[dimension.axes.front()];
        fail(axis.line, "sweep." + axis.path, "with this axis the grid has " + limit);
      }
      configurations = product;
    }
    std::uint64_t points = 0;
    if (__builtin_mul_overflow(configurations, static_cast<std::uint64_t>(seeds), &points) ||
        points > kMaxGridPoints) {
      const toml::node* node = sweep.get(kSeedsKey);
      fail(node ? line_of(*node) : 0, "sweep.seeds",
           std::to_string(configurations) + " configurations x " + std::to_string(seeds) +
               " seeds is " + limit);
    }
  }

  void read_zip(const toml::table& sweep, Grid& grid) {
    std::map<std::string, std::size_t> axis_index;
    for (std::size_t i = 0; i < grid.axes.size(); ++i) axis_index[grid.axes[i].path] = i;
    std::vector<int> group_of(grid.axes.size(), -1);
    std::vector<std::vector<std::size_t>> groups;

    if (const toml::node* zip = sweep.get(kZipKey)) {
      const auto* list = zip->as_array();
      const std::string field = "sweep.zip";
      if (list == nullptr) fail(line_of(*zip), field, "must be a list of lists of axis names");
      for (const auto& group_node : *list) {
        const auto* group = group_node.as_array();
        if (group == nullptr || group->empty()) {
          fail(line_of(*zip), field,
               "must be a list of non-empty lists of axis names, e.g. zip = [[\"a.x\", \"a.y\"]]");
        }
        std::vector<std::size_t> members;
        for (const auto& name_node : *group) {
          const auto* name = name_node.as_string();
          if (name == nullptr) fail(line_of(*zip), field, "axis names must be strings");
          auto found = axis_index.find(name->get());
          if (found == axis_index.end()) {
            fail(line_of(*zip), field,
                 "names '" + excerpt(name->get()) + "', which is not an axis of [sweep]");
          }
          if (group_of[found->second] >= 0) {
            fail(line_of(*zip), field,
                 "axis '" + excerpt(name->get()) + "' appears in more than one zip group");
          }
          const Axis& first = grid.axes[members.empty() ? found->second : members.front()];
          if (grid.axes[found->second].size() != first.size()) {
            fail(line_of(*zip), field,
                 "zipped axes must have equally many values: '" + first.path + "' has " +
                     std::to_string(first.size()) + ", '" + name->get() + "' has " +
                     std::to_string(grid.axes[found->second].size()));
          }
          group_of[found->second] = static_cast<int>(groups.size());
          members.push_back(found->second);
        }
        groups.push_back(std::move(members));
      }
    }

    // Dimensions follow the file order of their first axis; the first dimension varies slowest.
    std::vector<bool> placed(groups.size(), false);
    for (std::size_t i = 0; i < grid.axes.size(); ++i) {
      if (group_of[i] < 0) {
        grid.dimensions.push_back(Dimension{{i}, grid.axes[i].size()});
      } else if (!placed[group_of[i]]) {
        placed[group_of[i]] = true;
        const auto& members = groups[group_of[i]];
        grid.dimensions.push_back(Dimension{members, grid.axes[members.front()].size()});
      }
    }
  }

 private:
  std::string source_;
};

}  // namespace

std::string_view value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInteger:
      return "integer";
    case ValueKind::kFloat:
      return "float";
    case ValueKind::kBoolean:
      return "boolean";
    case ValueKind::kString:
      return "string";
    case ValueKind::kToml:
      return "list or table";
  }
  return "?";
}

std::size_t Grid::configurations() const {
  std::size_t product = 1;
  for (const auto& dimension : dimensions) product *= dimension.size;
  return product;
}

Grid parse_grid(std::string_view text, const std::string& source_name,
                const std::string& base_dir) {
  Grid grid;
  grid.source_name = source_name;
  grid.base_dir = base_dir;
  grid.text = std::string(text);
  grid.sha256 = sha256_hex(text);
  GridParser parser(source_name);

  try {
    grid.base = toml::parse(text, source_name);
  } catch (const toml::parse_error& error) {
    throw InputError(source_name, error.source().begin.line, "",
                     "not valid TOML: " + excerpt(error.description(), 160));
  }

  toml::table sweep;
  if (toml::node* node = grid.base.get("sweep")) {
    if (!node->is_table()) parser.fail(line_of(*node), "sweep", "must be a table: [sweep]");
    sweep = std::move(*node->as_table());
    grid.base.erase("sweep");
  }

  parser.read_axes(sweep, "", grid);
  // toml++ tables are sorted by key; restore the file order, which the user chose on purpose.
  std::stable_sort(grid.axes.begin(), grid.axes.end(), [](const Axis& a, const Axis& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  for (std::size_t i = 0; i < grid.axes.size(); ++i) {
    for (std::size_t j = 0; j < grid.axes.size(); ++j) {
      const std::string& a = grid.axes[i].path;
      const std::string& b = grid.axes[j].path;
      if (i != j && b.size() > a.size() && b.compare(0, a.size() + 1, a + ".") == 0) {
        parser.fail(grid.axes[j].line, "sweep." + b, "axis is inside axis '" + a + "'");
      }
      if (i < j && a == b) parser.fail(grid.axes[j].line, "sweep." + b, "axis is given twice");
    }
  }
  parser.read_zip(sweep, grid);
  parser.check_repeats(grid);
  // Checked before the seeds are converted: a huge `seeds` must not wrap into a smaller grid.
  const std::int64_t seeds = parser.read_integer(sweep, kSeedsKey, 1, 1);
  parser.check_size(sweep, grid, seeds);
  grid.replicates = static_cast<std::size_t>(seeds);
  if (const toml::node* node = sweep.get(kSeedsKey)) grid.seeds_line = line_of(*node);
  grid.seed = static_cast<std::uint64_t>(parser.read_integer(sweep, kSeedKey, 1, 0));
  if (const toml::node* paired = sweep.get(kPairedSeedsKey)) {
    if (!paired->is_boolean())
      parser.fail(line_of(*paired), "sweep.paired_seeds", "must be true or false");
    grid.paired_seeds = paired->as_boolean()->get();
  }
  return grid;
}

Grid load_grid(const std::string& path) {
  const std::string text = read_input_file(path, "grid file");
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return parse_grid(text, path, base_dir);
}

std::uint64_t derive_seed(std::uint64_t grid_seed, std::uint64_t point_id,
                          std::uint32_t replicate) {
  std::uint64_t state = splitmix64(grid_seed);
  state = splitmix64(state ^ splitmix64(point_id + 0x5eed));
  return splitmix64(state ^ replicate);
}

GridPoint grid_point(const Grid& grid, std::uint64_t point_id) {
  GridPoint point;
  point.point_id = point_id;
  point.config_id = point_id / grid.replicates;
  point.replicate = static_cast<std::uint32_t>(point_id % grid.replicates);
  // Paired seeds leave point_id out so every configuration sees the same replicate streams.
  point.seed = derive_seed(grid.seed, grid.paired_seeds ? 0 : point_id, point.replicate);
  point.value_index.assign(grid.axes.size(), 0);
  std::uint64_t rest = point.config_id;
  for (std::size_t d = grid.dimensions.size(); d-- > 0;) {
    const Dimension& dimension = grid.dimensions[d];
    std::size_t index = rest % dimension.size;
    rest /= dimension.size;
    for (std::size_t axis : dimension.axes) point.value_index[axis] = index;
  }
  return point;
}

toml::table point_table(const Grid& grid, const GridPoint& point) {
  toml::table table = grid.base;
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    const Axis& axis = grid.axes[a];
    toml::table* parent = &table;
    for (std::size_t i = 0; i + 1 < axis.path_parts.size(); ++i) {
      const std::string& part = axis.path_parts[i];
      toml::node* child = parent->get(part);
      if (child == nullptr) {
        parent = parent->insert_or_assign(part, toml::table{}).first->second.as_table();
      } else if (child->is_table()) {
        parent = child->as_table();
      } else {
        throw InputError(grid.source_name, axis.line, "sweep." + axis.path,
                         "'" + part + "' is a value in the run config, not a table");
      }
    }
    parent->insert_or_assign(axis.path_parts.back(), *axis.values.get(point.value_index[a]));
  }
  return table;
}

std::string describe_point(const Grid& grid, const GridPoint& point) {
  std::string text;
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    text += grid.axes[a].path + "=" + grid.axes[a].labels[point.value_index[a]] + " ";
  }
  return text + "replicate=" + std::to_string(point.replicate);
}

}  // namespace clustersim::sweep
