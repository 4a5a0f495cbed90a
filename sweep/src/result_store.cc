#include "clustersim/sweep/result_store.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "clustersim/error.h"
#include "clustersim/internal/atomic_file.h"

namespace clustersim::sweep {

namespace {

// Closes an HDF5 handle with the right function when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error("HDF5: cannot " + what);
  }
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what);
}

// h5py reads variable-length UTF-8 strings as str (attributes) or via .asstr() (datasets).
Handle text_type() {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
  check(H5Tset_size(type, H5T_VARIABLE), "size a string type");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "set UTF-8");
  return type;
}

// The enum h5py uses for numpy bool, so boolean axes come back as bool columns.
Handle bool_type() {
  Handle type(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, "create a bool type");
  std::int8_t value = 0;
  check(H5Tenum_insert(type, "FALSE", &value), "define FALSE");
  value = 1;
  check(H5Tenum_insert(type, "TRUE", &value), "define TRUE");
  return type;
}

// Groups remember creation order, so h5py (and the DataFrame built from it) lists the columns in
// schema order (ids, axes, status, metrics) rather than alphabetically.
Handle create_group(hid_t file, const std::string& name) {
  Handle properties(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "create group properties");
  check(H5Pset_link_creation_order(properties, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
        "track creation order");
  return Handle(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, properties, H5P_DEFAULT), H5Gclose,
                "create /" + name);
}

void write_dataset(hid_t group, const std::string& name, hid_t type, std::size_t rows,
                   const void* data, bool compress) {
  hsize_t dims[1] = {rows};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "create a dataspace");
  Handle create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create dataset properties");
  if (compress && rows > 0) {
    hsize_t chunk[1] = {std::min<hsize_t>(rows, 1 << 16)};
    check(H5Pset_chunk(create, 1, chunk), "chunk " + name);
    check(H5Pset_shuffle(create), "shuffle " + name);
    check(H5Pset_deflate(create, 4), "compress " + name);
  }
  Handle dataset(H5Dcreate2(group, name.c_str(), type, space, H5P_DEFAULT, create, H5P_DEFAULT),
                 H5Dclose, "create dataset " + name);
  if (rows > 0)
    check(H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write " + name);
}

template <typename T>
void write_column(hid_t group, const std::string& name, hid_t type, const std::vector<T>& values,
                  bool compress = false) {
  write_dataset(group, name, type, values.size(), values.data(), compress);
}

void write_text_column(hid_t group, const std::string& name, const std::vector<std::string>& values,
                       bool compress = false) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& value : values) pointers.push_back(value.c_str());
  Handle type = text_type();
  write_dataset(group, name, type, pointers.size(), pointers.data(), compress);
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle type = text_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar dataspace");
  Handle attribute(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose, "create attribute " + name);
  const char* pointer = value.c_str();
  check(H5Awrite(attribute, type, &pointer), "write attribute " + name);
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar dataspace");
  Handle attribute(
      H5Acreate2(object, name.c_str(), H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
      "create attribute " + name);
  check(H5Awrite(attribute, H5T_NATIVE_INT64, &value), "write attribute " + name);
}

// Errors become exceptions with context; HDF5's own stack dump to stderr would only add noise.
void silence_hdf5_error_stack() {
  static const bool silenced = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }();
  (void)silenced;
}

std::string json_string_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    text += (i ? ", \"" : "\"") + items[i] + "\"";
  }
  return text + "]";
}

Handle file_access() {
  silence_hdf5_error_stack();
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  // Lock where the file system supports it; on NFS/Lustre (no locks) carry on without.
  check(H5Pset_file_locking(access, true, true), "configure file locking");
  return access;
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

// A /jobs or /timeseries column from a field table: int32 counts, float64 reals.
template <typename Field, typename Rows>
void write_field_column(hid_t group, const Field& field, const std::vector<PointResult>& results,
                        Rows rows) {
  if (field.type == FieldType::kCount) {
    std::vector<std::int32_t> values;
    for (const auto& result : results)
      for (const auto& row : rows(result)) values.push_back(row.*field.count);
    write_column(group, std::string(field.name), H5T_NATIVE_INT32, values, true);
  } else {
    std::vector<double> values;
    for (const auto& result : results)
      for (const auto& row : rows(result)) values.push_back(row.*field.real);
    write_column(group, std::string(field.name), H5T_NATIVE_DOUBLE, values, true);
  }
}

// point_id, job_index, the original job fields, rejected, then fields added since.
void write_jobs(hid_t file, const std::vector<PointResult>& results) {
  Handle group = create_group(file, "jobs");
  std::vector<std::int64_t> point_id, job_index;
  std::vector<std::int8_t> rejected;
  for (const auto& result : results) {
    for (const auto& job : result.jobs) {
      point_id.push_back(static_cast<std::int64_t>(result.point_id));
      job_index.push_back(job.index);
      rejected.push_back(job.rejected ? 1 : 0);
    }
  }
  write_column(group, "point_id", H5T_NATIVE_INT64, point_id, true);
  write_column(group, "job_index", H5T_NATIVE_INT64, job_index, true);
  const auto jobs_of = [](const PointResult& result) -> const std::vector<JobRecord>& {
    return result.jobs;
  };
  for (const JobField& field : job_record_fields())
    if (field.first_block) write_field_column(group, field, results, jobs_of);
  Handle type = bool_type();
  write_column(group, "rejected", type, rejected, true);
  for (const JobField& field : job_record_fields())
    if (!field.first_block) write_field_column(group, field, results, jobs_of);
}

void write_timeseries(hid_t file, const std::vector<PointResult>& results) {
  Handle group = create_group(file, "timeseries");
  std::vector<std::int64_t> point_id;
  for (const auto& result : results)
    for (std::size_t i = 0; i < result.samples.size(); ++i)
      point_id.push_back(static_cast<std::int64_t>(result.point_id));
  write_column(group, "point_id", H5T_NATIVE_INT64, point_id, true);
  for (const SampleField& field : sample_fields())
    write_field_column(
        group, field, results,
        [](const PointResult& result) -> const std::vector<Sample>& { return result.samples; });
}

}  // namespace

void write_result_file(const std::string& path, const Grid& grid,
                       const std::vector<PointResult>& results, const ResultFileOptions& options,
                       const Provenance& provenance) {
  // Unique per host and process: two writers never share a temporary (see output_lock.h for why
  // there is only ever one writer of `path` anyway).
  const std::string temporary = temporary_path_for(path);
  std::filesystem::remove(temporary);
  try {
    Handle access = file_access();
    Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose,
                "create " + temporary);
    Handle points = create_group(file, "points");

    std::vector<std::int64_t> point_id, config_id, replicate, rank;
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

    if (options.save_jobs) write_jobs(file, results);
    if (options.save_timeseries) write_timeseries(file, results);

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
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);  // never leave a half-written file behind
    throw;
  }
  std::filesystem::rename(temporary, path);
}

namespace {

std::int64_t read_integer_attribute(hid_t file, const std::string& name) {
  Handle attribute(H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + name);
  std::int64_t value = 0;
  check(H5Aread(attribute, H5T_NATIVE_INT64, &value), "read attribute " + name);
  return value;
}

std::string read_text_attribute(hid_t file, const std::string& name) {
  Handle attribute(H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + name);
  Handle type = text_type();
  char* pointer = nullptr;
  check(H5Aread(attribute, type, &pointer), "read attribute " + name);
  std::string value = pointer ? pointer : "";
  H5free_memory(pointer);
  return value;
}

template <typename T>
std::vector<T> read_column(hid_t file, const std::string& name, hid_t memory_type) {
  Handle dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + name);
  Handle space(H5Dget_space(dataset), H5Sclose, "get the space of " + name);
  hsize_t dims[1] = {0};
  if (H5Sget_simple_extent_ndims(space) != 1) throw std::runtime_error(name + " is not 1-D");
  H5Sget_simple_extent_dims(space, dims, nullptr);
  std::vector<T> values(dims[0]);
  if (dims[0] > 0)
    check(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
          "read " + name);
  return values;
}

std::vector<std::string> read_text_column(hid_t file, const std::string& name) {
  Handle dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + name);
  Handle space(H5Dget_space(dataset), H5Sclose, "get the space of " + name);
  hsize_t dims[1] = {0};
  if (H5Sget_simple_extent_ndims(space) != 1) throw std::runtime_error(name + " is not 1-D");
  H5Sget_simple_extent_dims(space, dims, nullptr);
  std::vector<char*> pointers(dims[0], nullptr);
  std::vector<std::string> values;
  if (dims[0] == 0) return values;
  Handle type = text_type();
  check(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), "read " + name);
  values.reserve(pointers.size());
  for (char* pointer : pointers) values.emplace_back(pointer ? pointer : "");
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, pointers.data());
  return values;
}

Handle open_result_file(const std::string& path) {
  Handle access = file_access();
  hid_t id = -1;
  // Quiet: "not an HDF5 file" is reported as an InputError, not as HDF5's error stack.
  H5E_BEGIN_TRY { id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access); }
  H5E_END_TRY;
  if (id < 0) throw InputError(path, 0, "", "cannot open as an HDF5 file");
  return Handle(id, H5Fclose, "open " + path);
}

}  // namespace

ResultFileSummary read_result_file_summary(const std::string& path) {
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
  Handle file = open_result_file(path);
  return read_column<double>(file, dataset, H5T_NATIVE_DOUBLE);
}

std::string read_text_attribute(const std::string& path, const std::string& name) {
  Handle file = open_result_file(path);
  return read_text_attribute(static_cast<hid_t>(file), name);
}

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace clustersim::sweep
