#include "clustersim/sweep/result_store.h"

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "clustersim/atomic_file.h"
#include "clustersim/component.h"
#include "clustersim/error.h"
#include "errno_error.h"
#include "hdf5_file.h"
#include "result_rows.h"

namespace clustersim::sweep {

namespace hdf5 {

namespace {

std::string json_string_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    text += (i ? ", \"" : "\"") + items[i] + "\"";
  }
  return text + "]";
}

void write_axis_column(hid_t group, const Axis& axis, std::size_t axis_index,
                       const std::vector<PointResult>& results, const Grid& grid) {
  std::vector<std::size_t> index;
  index.reserve(results.size());
  for (const auto& result : results)
    index.push_back(grid_point(grid, result.point_id).value_index[axis_index]);
  switch (axis.kind) {
    case ValueKind::kInteger: {
      std::vector<std::int64_t> values;
      for (auto i : index) values.push_back(axis.values.get(i)->as_integer()->get());
      write_column(group, axis.path, H5T_NATIVE_INT64, values);
      break;
    }
    case ValueKind::kFloat: {
      std::vector<double> values;
      for (auto i : index) values.push_back(axis.values.get(i)->value<double>().value_or(0.0));
      write_column(group, axis.path, H5T_NATIVE_DOUBLE, values);
      break;
    }
    case ValueKind::kBoolean: {
      std::vector<std::int8_t> values;
      for (auto i : index) values.push_back(axis.values.get(i)->as_boolean()->get() ? 1 : 0);
      Handle type = bool_type();
      write_column(group, axis.path, type, values);
      break;
    }
    case ValueKind::kString:
    case ValueKind::kToml: {
      std::vector<std::string> values;
      for (auto i : index) values.push_back(axis.labels[i]);
      write_text_column(group, axis.path, values);
      break;
    }
  }
}

// Writes the whole file at `temporary` (with `skeleton`: the row tables' datasets are created,
// their rows left for write_row_tables_collectively).
void write_contents(const std::string& temporary, const Grid& grid,
                    const std::vector<PointResult>& results, const ResultFileOptions& options,
                    const Provenance& provenance, const std::string& rows_folder, bool skeleton) {
  {
    Handle access = file_access();
    WrittenFile file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), temporary,
                     "create " + temporary);
    Handle points = create_group(file, "points");

    std::vector<std::int64_t> point_id, config_id, replicate, rank, session;
    std::vector<std::uint64_t> seed;
    std::vector<double> elapsed;
    std::vector<std::string> status;
    for (const auto& result : results) {
      GridPoint point = grid_point(grid, result.point_id);
      point_id.push_back(static_cast<std::int64_t>(point.point_id));
      config_id.push_back(static_cast<std::int64_t>(point.config_id));
      replicate.push_back(point.replicate);
      seed.push_back(point.seed);
      status.push_back(result.error.empty() ? "ok" : result.error);
      rank.push_back(result.rank);
      elapsed.push_back(result.elapsed_s);
      session.push_back(result.session);
    }
    write_column(points, "point_id", H5T_NATIVE_INT64, point_id);
    write_column(points, "config_id", H5T_NATIVE_INT64, config_id);
    write_column(points, "replicate", H5T_NATIVE_INT64, replicate);
    write_column(points, "seed", H5T_NATIVE_UINT64, seed);
    std::vector<std::string> axis_names;
    for (std::size_t a = 0; a < grid.axes.size(); ++a) {
      write_axis_column(points, grid.axes[a], a, results, grid);
      axis_names.push_back(grid.axes[a].path);
    }
    write_text_column(points, "status", status);
    std::vector<std::string> metric_names;
    for (const MetricField& field : run_metric_fields()) {
      const std::string name(field.name);
      metric_names.push_back(name);
      if (field.type == FieldType::kCount) {
        std::vector<std::int64_t> values;
        for (const auto& result : results)
          values.push_back(static_cast<std::int64_t>(result.metrics.*field.count));
        write_column(points, name, H5T_NATIVE_INT64, values);
      } else {
        std::vector<double> values;
        for (const auto& result : results) values.push_back(result.metrics.*field.real);
        write_column(points, name, H5T_NATIVE_DOUBLE, values);
      }
    }
    write_column(points, "rank", H5T_NATIVE_INT64, rank);
    write_column(points, "elapsed_s", H5T_NATIVE_DOUBLE, elapsed);
    write_column(points, "session", H5T_NATIVE_INT64, session);

    write_row_tables(file, results, options, rows_folder, !skeleton);

    write_attribute(file, "schema_version", kResultSchemaVersion);
    write_attribute(file, "grid_text", grid.text);
    write_attribute(file, "grid_sha256", grid.sha256);
    write_attribute(file, "grid_path", grid.source_name);
    write_attribute(file, "grid_seed", static_cast<std::int64_t>(grid.seed));
    write_attribute(file, "replicates", static_cast<std::int64_t>(grid.replicates));
    write_attribute(file, "paired_seeds", static_cast<std::int64_t>(grid.paired_seeds));
    write_attribute(file, "axes", json_string_list(axis_names));
    write_attribute(file, "metrics", json_string_list(metric_names));
    std::string units = "{";
    for (const MetricField& field : run_metric_fields())
      units += (units.size() > 1 ? ", \"" : "\"") + std::string(field.name) + "\": \"" +
               std::string(field.unit) + "\"";
    write_attribute(file, "metric_units", units + "}");
    write_attribute(file, "points_total", static_cast<std::int64_t>(grid.size()));
    write_attribute(file, "points_done", static_cast<std::int64_t>(results.size()));
    write_attribute(file, "complete", static_cast<std::int64_t>(results.size() == grid.size()));
    write_attribute(file, "save_jobs", static_cast<std::int64_t>(options.save_jobs));
    write_attribute(file, "save_timeseries", static_cast<std::int64_t>(options.save_timeseries));
    for (const auto& [name, value] : provenance.text) write_attribute(file, name, value);
    for (const auto& [name, value] : provenance.integers) write_attribute(file, name, value);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush " + temporary);
  }
}

}  // namespace

}  // namespace hdf5

void write_result_file(const std::string& path, const Grid& grid,
                       const std::vector<PointResult>& results, const ResultFileOptions& options,
                       const Provenance& provenance, const std::string& rows_folder) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
  // Unique per host and process: two writers never share a temporary (see output_lock.h for why
  // there is only ever one writer of `path` anyway).
  const std::string temporary = temporary_path_for(path);
  std::filesystem::remove(temporary);
  try {
    write_contents(temporary, grid, results, options, provenance, rows_folder, false);
  } catch (const InputError&) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);  // never leave a half-written file behind
    throw;
  } catch (const std::exception& error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    // The error names the temporary; the user knows the result file.
    throw std::runtime_error(path + ": cannot write the result file: " + error.what());
  }
  rename_into_place(temporary, path);
}

void write_result_skeleton(const std::string& temporary, const Grid& grid,
                           const std::vector<PointResult>& results,
                           const ResultFileOptions& options, const Provenance& provenance) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
  std::filesystem::remove(temporary);
  write_contents(temporary, grid, results, options, provenance, "", true);
}

std::string added_columns_markdown() {
  std::string text = "| table | column | unit | component | meaning |\n|---|---|---|---|---|\n";
  for (const bool samples : {false, true}) {
    // declared_columns' order (the file's), each with the first component declaring it.
    for (const ColumnDecl& column : declared_columns(samples)) {
      std::string owner;
      for (ComponentKind kind : {ComponentKind::kMechanism, ComponentKind::kRateModel})
        for (const ComponentDescriptor* d : components(kind))
          for (const ColumnDecl& own : samples ? d->sample_columns : d->job_columns)
            if (owner.empty() && own.name == column.name) owner = d->name;
      text += std::string("| ") + (samples ? "/timeseries" : "/jobs") + " | `" +
              std::string(column.name) + "` | " + std::string(column.unit) + " | " + owner + " | " +
              std::string(column.meaning) + " |\n";
    }
  }
  return text;
}

ResultFileSummary read_result_file_summary(const std::string& path) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
  Handle file = open_result_file(path);
  ResultFileSummary summary;
  try {
    summary.schema_version = read_integer_attribute(file, "schema_version");
    summary.grid_sha256 = read_text_attribute(file, "grid_sha256");
    summary.complete = read_integer_attribute(file, "complete") != 0;
    summary.point_ids = read_column<std::int64_t>(file, "points/point_id", H5T_NATIVE_INT64);
    summary.status = read_text_column(file, "points/status");
  } catch (const std::runtime_error& error) {
    throw InputError(path, 0, "",
                     std::string("not a clustersim sweep result file (") + error.what() + ")");
  }
  return summary;
}

std::vector<double> read_numeric_column(const std::string& path, const std::string& dataset) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
  Handle file = open_result_file(path);
  return read_column<double>(file, dataset, H5T_NATIVE_DOUBLE);
}

std::string read_text_attribute(const std::string& path, const std::string& name) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
  Handle file = open_result_file(path);
  return read_text_attribute(static_cast<hid_t>(file), name);
}

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace clustersim::sweep
