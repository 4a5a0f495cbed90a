#include "clustersim/sweep/result_store.h"

#include <hdf5.h>
#include <oneapi/tbb/parallel_for.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <variant>

#include "clustersim/atomic_file.h"
#include "clustersim/error.h"
#include "clustersim/sweep/row_spool.h"

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

// ---- /jobs and /timeseries: row tables built in chunks from the results or their spools ------
//
// A row table's rows are every point's rows in point_id order. They are written chunk by chunk
// (kRowChunk rows, as before: chunked, shuffled, deflated), never whole in memory: a block of
// chunks is gathered from the results (rows that travelled with a result) or the row spools
// (rows the computing rank wrote, row_spool.h), its chunks are shuffled and deflated on all of
// this process' threads (zlib, the same format as HDF5's own filters) and written as they are
// (H5Dwrite_chunk), in order.

constexpr hsize_t kRowChunk = hsize_t{1} << 16;
constexpr hsize_t kBlockChunks = 8;  // chunks gathered and compressed together
// Deflate level 1 with run-length matching only (Z_RLE): a standard zlib stream that any reader
// inflates, made ~2.5x faster than level 4 for ~4% more bytes on these shuffled columns (most
// of their gain is runs of equal bytes: zeros, exponents, point ids). The dataset's deflate
// filter records level 1; `clustersim merge` recompresses with it.
constexpr int kRowDeflateLevel = 1;

enum class ColumnKind { kPointId, kJobIndex, kRejected, kCount, kReal };

struct RowColumn {
  std::string name;
  ColumnKind kind;
  std::size_t size;  // bytes per value in memory and in the file
  const JobField* job = nullptr;
  const SampleField* sample = nullptr;
};

// point_id, job_index, the original job fields, rejected, then fields added since.
std::vector<RowColumn> job_columns() {
  std::vector<RowColumn> columns{{"point_id", ColumnKind::kPointId, 8},
                                 {"job_index", ColumnKind::kJobIndex, 8}};
  auto add = [&](const JobField& field) {
    columns.push_back({std::string(field.name),
                       field.type == FieldType::kCount ? ColumnKind::kCount : ColumnKind::kReal,
                       field.type == FieldType::kCount ? std::size_t{4} : std::size_t{8}, &field});
  };
  for (const JobField& field : job_record_fields())
    if (field.first_block) add(field);
  columns.push_back({"rejected", ColumnKind::kRejected, 1});
  for (const JobField& field : job_record_fields())
    if (!field.first_block) add(field);
  return columns;
}

std::vector<RowColumn> sample_columns() {
  std::vector<RowColumn> columns{{"point_id", ColumnKind::kPointId, 8}};
  for (const SampleField& field : sample_fields())
    columns.push_back({std::string(field.name),
                       field.type == FieldType::kCount ? ColumnKind::kCount : ColumnKind::kReal,
                       field.type == FieldType::kCount ? std::size_t{4} : std::size_t{8}, nullptr,
                       &field});
  return columns;
}

void put_value(const RowColumn& column, std::int64_t point_id, const JobRecord& job, char* out) {
  switch (column.kind) {
    case ColumnKind::kPointId:
      std::memcpy(out, &point_id, 8);
      break;
    case ColumnKind::kJobIndex: {
      const std::int64_t index = job.index;
      std::memcpy(out, &index, 8);
      break;
    }
    case ColumnKind::kRejected:
      *out = job.rejected ? 1 : 0;
      break;
    case ColumnKind::kCount: {
      const std::int32_t value = job.*(column.job->count);
      std::memcpy(out, &value, 4);
      break;
    }
    case ColumnKind::kReal:
      std::memcpy(out, &(job.*(column.job->real)), 8);
      break;
  }
}

void put_value(const RowColumn& column, std::int64_t point_id, const Sample& sample, char* out) {
  switch (column.kind) {
    case ColumnKind::kPointId:
      std::memcpy(out, &point_id, 8);
      break;
    case ColumnKind::kCount: {
      const std::int32_t value = sample.*(column.sample->count);
      std::memcpy(out, &value, 4);
      break;
    }
    default:
      std::memcpy(out, &(sample.*(column.sample->real)), 8);
      break;
  }
}

// One deflate stream and buffers per thread, reset for every chunk: a fresh stream allocates
// ~270 kB (and faults its pages in) for every chunk of every column otherwise.
class ChunkDeflater {
 public:
  ChunkDeflater() {
    if (deflateInit2(&stream_, kRowDeflateLevel, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK)
      throw std::runtime_error("zlib: cannot start compressing a chunk");
  }
  ~ChunkDeflater() { deflateEnd(&stream_); }
  ChunkDeflater(const ChunkDeflater&) = delete;
  ChunkDeflater& operator=(const ChunkDeflater&) = delete;

  std::string operator()(const char* chunk, std::size_t bytes, std::size_t value_size) {
    shuffled_.resize(bytes);
    const std::size_t values = bytes / value_size;
    if (value_size == 1) {
      std::memcpy(shuffled_.data(), chunk, bytes);
    } else {
      for (std::size_t byte = 0; byte < value_size; ++byte) {
        char* plane = shuffled_.data() + byte * values;
        const char* in = chunk + byte;
        for (std::size_t i = 0; i < values; ++i) plane[i] = in[i * value_size];
      }
    }
    if (deflateReset(&stream_) != Z_OK) throw std::runtime_error("zlib: cannot reset a stream");
    out_.resize(deflateBound(&stream_, static_cast<uLong>(bytes)));
    stream_.next_in = reinterpret_cast<Bytef*>(shuffled_.data());
    stream_.avail_in = static_cast<uInt>(bytes);
    stream_.next_out = reinterpret_cast<Bytef*>(out_.data());
    stream_.avail_out = static_cast<uInt>(out_.size());
    if (deflate(&stream_, Z_FINISH) != Z_STREAM_END)
      throw std::runtime_error("zlib: cannot compress a chunk");
    return std::string(out_.data(), stream_.total_out);
  }

 private:
  z_stream stream_{};
  std::vector<char> shuffled_;
  std::vector<char> out_;
};

// HDF5's shuffle filter (byte j of every value, then byte j + 1...) and deflate filter (a zlib
// stream) applied to one whole chunk, as H5Dwrite would store it.
std::string shuffle_and_deflate(const char* chunk, std::size_t bytes, std::size_t value_size) {
  thread_local ChunkDeflater deflater;
  return deflater(chunk, bytes, value_size);
}

// How many rows of a table a result has (carried, or in its spool record).
inline std::size_t row_count(const PointResult& result, std::vector<JobRecord> PointResult::*) {
  return result.job_count();
}
inline std::size_t row_count(const PointResult& result, std::vector<Sample> PointResult::*) {
  return result.sample_count();
}

// Gathers the rows [first, end) of a row table into one buffer per column (the values in the
// file's types), from the results or their spools; spooled points are loaded on all threads,
// and a point that goes on past `end` is kept for the next range.
template <typename Row>
class RowGatherer {
 public:
  RowGatherer(const std::vector<RowColumn>& columns, const std::vector<PointResult>& results,
              std::vector<Row> PointResult::*member, const std::string& rows_folder)
      : columns_(columns), results_(results), member_(member), folder_(rows_folder) {
    starts_.assign(results.size() + 1, 0);
    for (std::size_t i = 0; i < results.size(); ++i)
      starts_[i + 1] = starts_[i] + row_count(results[i], member);
  }
  hsize_t total() const { return starts_.back(); }

  // The buffers are reused from one range to the next (every row of the range is written).
  const std::vector<std::vector<char>>& gather(hsize_t first, hsize_t end) {
    std::vector<std::vector<char>>& buffers = buffers_;
    buffers.resize(columns_.size());
    for (std::size_t c = 0; c < columns_.size(); ++c)
      buffers[c].resize((end - first) * columns_[c].size);
    if (end <= first) return buffers;
    load(first, end);
    // Slices of at most a chunk's rows, on all threads.
    const hsize_t slices = (end - first + kRowChunk - 1) / kRowChunk;
    tbb::parallel_for(hsize_t{0}, slices, [&](hsize_t slice) {
      const hsize_t slice_first = first + slice * kRowChunk;
      const hsize_t slice_end = std::min(end, slice_first + kRowChunk);
      std::size_t point = point_at(slice_first);
      for (hsize_t row = slice_first; row < slice_end; ++point) {
        const hsize_t point_end = std::min(slice_end, starts_[point + 1]);
        if (point_end <= row) continue;
        const std::vector<Row>& rows = rows_of(point);
        const auto point_id = static_cast<std::int64_t>(results_[point].point_id);
        for (; row < point_end; ++row) {
          const Row& source = rows[row - starts_[point]];
          for (std::size_t c = 0; c < columns_.size(); ++c)
            put_value(columns_[c], point_id, source,
                      buffers[c].data() + (row - first) * columns_[c].size);
        }
      }
    });
    return buffers;
  }

 private:
  std::size_t point_at(hsize_t row) const {
    return static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), row) -
                                    starts_.begin() - 1);
  }
  std::size_t rows_in(std::size_t index) const { return starts_[index + 1] - starts_[index]; }

  const std::vector<Row>& rows_of(std::size_t index) const {
    static const std::vector<Row> kNone;
    const PointResult& result = results_[index];
    if (!result.rows) return result.*member_;
    if (rows_in(index) == 0) return kNone;
    return loaded_.at(index).get()->*member_;
  }

  void load(hsize_t first, hsize_t end) {
    const std::size_t first_point = point_at(first);
    std::size_t end_point = first_point;
    while (end_point < results_.size() && starts_[end_point] < end) ++end_point;
    std::map<std::size_t, std::shared_ptr<const PointResult>> loaded;
    std::vector<std::size_t> to_load;
    for (std::size_t i = first_point; i < end_point; ++i) {
      if (!results_[i].rows || rows_in(i) == 0) continue;
      if (auto kept = loaded_.find(i); kept != loaded_.end()) {
        loaded.emplace(i, kept->second);
      } else {
        loaded.emplace(i, nullptr);
        to_load.push_back(i);
      }
    }
    if (!to_load.empty() && folder_.empty())
      throw std::runtime_error("point " + std::to_string(results_[to_load[0]].point_id) +
                               ": its rows are in a row spool, but no rows folder was given");
    std::vector<std::shared_ptr<const PointResult>> fresh(to_load.size());
    tbb::parallel_for(std::size_t{0}, to_load.size(), [&](std::size_t n) {
      fresh[n] = std::make_shared<const PointResult>(
          read_spooled_rows(folder_, *results_[to_load[n]].rows));
    });
    for (std::size_t n = 0; n < to_load.size(); ++n) loaded[to_load[n]] = fresh[n];
    loaded_ = std::move(loaded);
    for (std::size_t i = first_point; i < end_point; ++i) {
      if (rows_of(i).size() != rows_in(i))
        throw std::runtime_error("point " + std::to_string(results_[i].point_id) + ": " +
                                 std::to_string(rows_of(i).size()) + " rows, its result says " +
                                 std::to_string(rows_in(i)));
    }
  }

  const std::vector<RowColumn>& columns_;
  const std::vector<PointResult>& results_;
  std::vector<Row> PointResult::*member_;
  std::string folder_;
  std::vector<hsize_t> starts_;
  std::map<std::size_t, std::shared_ptr<const PointResult>> loaded_;
  std::vector<std::vector<char>> buffers_;
};

struct RowTable {
  std::string group;
  std::vector<RowColumn> columns;
};

RowTable jobs_table() { return {"jobs", job_columns()}; }
RowTable timeseries_table() { return {"timeseries", sample_columns()}; }

// The file type of a column (also its memory type: the store writes native types).
class ColumnTypes {
 public:
  hid_t of(const RowColumn& column) const {
    switch (column.kind) {
      case ColumnKind::kPointId:
      case ColumnKind::kJobIndex:
        return H5T_NATIVE_INT64;
      case ColumnKind::kRejected:
        return bool_;
      case ColumnKind::kCount:
        return H5T_NATIVE_INT32;
      case ColumnKind::kReal:
        break;
    }
    return H5T_NATIVE_DOUBLE;
  }

 private:
  Handle bool_ = bool_type();
};

// The blocks of a row table: kBlockChunks chunks of `chunk_rows` rows each (the last block and
// chunk may be shorter), in row order.
struct BlockLayout {
  hsize_t total = 0;       // rows
  hsize_t chunk_rows = 0;  // rows per chunk (fewer than kRowChunk for a smaller table)
  hsize_t chunks = 0;
  hsize_t blocks = 0;
  explicit BlockLayout(hsize_t rows) : total(rows) {
    if (total == 0) return;
    chunk_rows = std::min(total, kRowChunk);
    chunks = (total + chunk_rows - 1) / chunk_rows;
    blocks = (chunks + kBlockChunks - 1) / kBlockChunks;
  }
  hsize_t first_chunk(hsize_t block) const { return block * kBlockChunks; }
  hsize_t chunks_in(hsize_t block) const {
    return std::min(kBlockChunks, chunks - first_chunk(block));
  }
};

// Block `block` of a table, gathered and compressed on all threads: every column's chunks,
// column by column (the order write_row_table writes them).
template <typename Row>
std::vector<std::string> compress_block(RowGatherer<Row>& gatherer,
                                        const std::vector<RowColumn>& columns,
                                        const BlockLayout& layout, hsize_t block) {
  const hsize_t block_chunks = layout.chunks_in(block);
  const hsize_t chunk_rows = layout.chunk_rows;
  const hsize_t first_row = layout.first_chunk(block) * chunk_rows;
  const hsize_t end_row = std::min(layout.total, first_row + block_chunks * chunk_rows);
  const std::vector<std::vector<char>>& values = gatherer.gather(first_row, end_row);
  std::vector<std::string> compressed(columns.size() * block_chunks);
  tbb::parallel_for(std::size_t{0}, compressed.size(), [&](std::size_t task) {
    const std::size_t c = task / block_chunks;
    const hsize_t k = task % block_chunks;
    const std::size_t size = columns[c].size;
    const hsize_t begin = k * chunk_rows;
    const hsize_t rows = std::min(end_row - first_row - begin, chunk_rows);
    if (rows == chunk_rows) {
      compressed[task] = shuffle_and_deflate(values[c].data() + begin * size, rows * size, size);
    } else {
      std::vector<char> chunk(chunk_rows * size, '\0');  // an edge chunk is padded
      std::memcpy(chunk.data(), values[c].data() + begin * size, rows * size);
      compressed[task] = shuffle_and_deflate(chunk.data(), chunk.size(), size);
    }
  });
  return compressed;
}

// Writes block `block` of a table's compressed chunks (compress_block) into its datasets.
void write_block(const std::vector<Handle>& datasets, const RowTable& table,
                 const BlockLayout& layout, hsize_t block,
                 const std::vector<std::string>& compressed) {
  const std::vector<RowColumn>& columns = table.columns;
  const hsize_t block_chunks = layout.chunks_in(block);
  if (compressed.size() != columns.size() * block_chunks)
    throw std::runtime_error("block " + std::to_string(block) + " of /" + table.group + " has " +
                             std::to_string(compressed.size()) + " chunks, expected " +
                             std::to_string(columns.size() * block_chunks));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    for (hsize_t k = 0; k < block_chunks; ++k) {
      const std::string& bytes = compressed[c * block_chunks + k];
      hsize_t offset[1] = {(layout.first_chunk(block) + k) * layout.chunk_rows};
      check(H5Dwrite_chunk(datasets[c], H5P_DEFAULT, 0, offset, bytes.size(), bytes.data()),
            "write /" + table.group + "/" + columns[c].name);
    }
  }
}

// Creates a row table's group and datasets: chunks of kRowChunk rows (fewer for a smaller
// table), shuffled and deflated; a table without rows gets empty, unchunked datasets. With
// `write_rows`, also writes the rows (else they are left for write_row_tables_collectively or
// write_row_block).
template <typename Row>
void write_row_table(hid_t file, const RowTable& table, const std::vector<PointResult>& results,
                     std::vector<Row> PointResult::*member, const std::string& rows_folder,
                     bool write_rows) {
  Handle group = create_group(file, table.group);
  RowGatherer<Row> gatherer(table.columns, results, member, rows_folder);
  const BlockLayout layout(gatherer.total());
  ColumnTypes types;
  if (layout.total == 0) {
    for (const RowColumn& column : table.columns)
      write_dataset(group, column.name, types.of(column), 0, nullptr, true);
    return;
  }
  std::vector<Handle> datasets;
  {
    hsize_t dims[1] = {layout.total};
    Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "create a dataspace");
    Handle create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create dataset properties");
    hsize_t chunk[1] = {layout.chunk_rows};
    check(H5Pset_chunk(create, 1, chunk), "chunk /" + table.group);
    check(H5Pset_shuffle(create), "shuffle /" + table.group);
    check(H5Pset_deflate(create, kRowDeflateLevel), "compress /" + table.group);
    for (const RowColumn& column : table.columns)
      datasets.emplace_back(H5Dcreate2(group, column.name.c_str(), types.of(column), space,
                                       H5P_DEFAULT, create, H5P_DEFAULT),
                            H5Dclose, "create dataset /" + table.group + "/" + column.name);
  }
  if (!write_rows) return;
  for (hsize_t block = 0; block < layout.blocks; ++block)
    write_block(datasets, table, layout, block,
                compress_block(gatherer, table.columns, layout, block));
}

}  // namespace

namespace {

// Writes the whole file at `temporary` (with `skeleton`: the row tables' datasets are created,
// their rows left for write_row_tables_collectively).
void write_contents(const std::string& temporary, const Grid& grid,
                    const std::vector<PointResult>& results, const ResultFileOptions& options,
                    const Provenance& provenance, const std::string& rows_folder, bool skeleton) {
  {
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

    if (options.save_jobs)
      write_row_table(file, jobs_table(), results, &PointResult::jobs, rows_folder, !skeleton);
    if (options.save_timeseries)
      write_row_table(file, timeseries_table(), results, &PointResult::samples, rows_folder,
                      !skeleton);

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

void write_result_file(const std::string& path, const Grid& grid,
                       const std::vector<PointResult>& results, const ResultFileOptions& options,
                       const Provenance& provenance, const std::string& rows_folder) {
  // Unique per host and process: two writers never share a temporary (see output_lock.h for why
  // there is only ever one writer of `path` anyway).
  const std::string temporary = temporary_path_for(path);
  std::filesystem::remove(temporary);
  try {
    write_contents(temporary, grid, results, options, provenance, rows_folder, false);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);  // never leave a half-written file behind
    throw;
  }
  std::filesystem::rename(temporary, path);
}

void write_result_skeleton(const std::string& temporary, const Grid& grid,
                           const std::vector<PointResult>& results,
                           const ResultFileOptions& options, const Provenance& provenance) {
  std::filesystem::remove(temporary);
  write_contents(temporary, grid, results, options, provenance, "", true);
}

namespace {

// A row table's datasets (created by write_result_skeleton), column by column.
std::vector<Handle> open_row_datasets(hid_t file, const RowTable& table) {
  Handle group(H5Gopen2(file, table.group.c_str(), H5P_DEFAULT), H5Gclose, "open /" + table.group);
  std::vector<Handle> datasets;
  for (const RowColumn& column : table.columns)
    datasets.emplace_back(H5Dopen2(group, column.name.c_str(), H5P_DEFAULT), H5Dclose,
                          "open /" + table.group + "/" + column.name);
  return datasets;
}

// Calls visit(table, member, layout, first_index) for each row table of the file in order;
// first_index is the number of blocks of the tables before it.
template <typename Visit>
void for_each_row_table(const std::vector<PointResult>& results, const ResultFileOptions& options,
                        Visit&& visit) {
  std::size_t first_index = 0;
  auto one = [&](const RowTable& table, auto member) {
    using Row = typename std::remove_reference_t<decltype(results[0].*member)>::value_type;
    const BlockLayout layout(RowGatherer<Row>(table.columns, results, member, "").total());
    visit(table, member, layout, first_index);
    first_index += layout.blocks;
  };
  if (options.save_jobs) one(jobs_table(), &PointResult::jobs);
  if (options.save_timeseries) one(timeseries_table(), &PointResult::samples);
}

}  // namespace

void compress_row_blocks(
    const std::vector<PointResult>& results, const ResultFileOptions& options,
    const std::string& rows_folder, int worker, int workers,
    const std::function<void(std::size_t block, std::vector<std::string> chunks)>& deliver) {
  for_each_row_table(
      results, options,
      [&](const RowTable& table, auto member, const BlockLayout& layout, std::size_t first_index) {
        using Row = typename std::remove_reference_t<decltype(results[0].*member)>::value_type;
        RowGatherer<Row> gatherer(table.columns, results, member, rows_folder);
        for (hsize_t block = 0; block < layout.blocks; ++block) {
          const std::size_t index = first_index + block;
          if (index % static_cast<std::size_t>(workers) == static_cast<std::size_t>(worker))
            deliver(index, compress_block(gatherer, table.columns, layout, block));
        }
      });
}

std::size_t count_row_blocks(const std::vector<PointResult>& results,
                             const ResultFileOptions& options) {
  std::size_t blocks = 0;
  for_each_row_table(results, options,
                     [&](const RowTable&, auto, const BlockLayout& layout, std::size_t) {
                       blocks += layout.blocks;
                     });
  return blocks;
}

void write_row_block(const std::string& temporary, const std::vector<PointResult>& results,
                     const ResultFileOptions& options, std::size_t index,
                     const std::vector<std::string>& chunks) {
  bool written = false;
  for_each_row_table(
      results, options,
      [&](const RowTable& table, auto, const BlockLayout& layout, std::size_t first_index) {
        if (written || index < first_index || index >= first_index + layout.blocks) return;
        silence_hdf5_error_stack();
        // The file's writers take turns (rank 0's OutputLock guards the result for them all);
        // HDF5's own lock is left out, as on file systems that refuse it.
        Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
        check(H5Pset_file_locking(access, false, true), "configure file locking");
        Handle file(H5Fopen(temporary.c_str(), H5F_ACC_RDWR, access), H5Fclose,
                    "open " + temporary);
        const std::vector<Handle> datasets = open_row_datasets(file, table);
        write_block(datasets, table, layout, index - first_index, chunks);
        check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush " + temporary);
        written = true;
      });
  if (!written)
    throw std::runtime_error(temporary + ": the row tables have no block " + std::to_string(index));
}

void write_row_tables_collectively(const std::string& temporary,
                                   const std::vector<PointResult>& results,
                                   const ResultFileOptions& options,
                                   const std::string& rows_folder) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  silence_hdf5_error_stack();
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  check(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL), "use MPI-IO");
  // Every rank opens the file to write it: HDF5's own lock would refuse all but one (rank 0
  // holds the result file's OutputLock for them all).
  check(H5Pset_file_locking(access, false, true), "configure file locking");
  Handle file(H5Fopen(temporary.c_str(), H5F_ACC_RDWR, access), H5Fclose,
              "open " + temporary + " on every rank (MPI-IO)");
  Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create transfer properties");
  // Deflated datasets take parallel writes only as collective ones.
  check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE), "use collective writes");
  auto write_table = [&](const RowTable& table, auto member) {
    using Row = typename std::remove_reference_t<decltype(results[0].*member)>::value_type;
    RowGatherer<Row> gatherer(table.columns, results, member, rows_folder);
    const hsize_t total = gatherer.total();
    if (total == 0) return;
    const hsize_t chunk_rows = std::min(total, kRowChunk);
    const hsize_t chunks = (total + chunk_rows - 1) / chunk_rows;
    // Rank r writes chunks [chunks x r / ranks, chunks x (r + 1) / ranks): each chunk has one
    // writer, which deflates it; every rank makes the same number of collective calls.
    const auto share = [&](int r) { return chunks * static_cast<hsize_t>(r) / ranks; };
    const hsize_t first_chunk = share(rank), end_chunk = share(rank + 1);
    const hsize_t most = (chunks + ranks - 1) / ranks;
    const hsize_t rounds = (most + kBlockChunks - 1) / kBlockChunks;
    ColumnTypes types;
    const std::vector<Handle> datasets = open_row_datasets(file, table);
    for (hsize_t round = 0; round < rounds; ++round) {
      const hsize_t block_first = std::min(end_chunk, first_chunk + round * kBlockChunks);
      const hsize_t block_end = std::min(end_chunk, block_first + kBlockChunks);
      const hsize_t first_row = std::min(total, block_first * chunk_rows);
      const hsize_t end_row = std::min(total, block_end * chunk_rows);
      const std::vector<std::vector<char>>& values = gatherer.gather(first_row, end_row);
      hsize_t count[1] = {end_row - first_row}, start[1] = {first_row};
      hsize_t memory_rows[1] = {std::max<hsize_t>(count[0], 1)};
      for (std::size_t c = 0; c < table.columns.size(); ++c) {
        Handle file_space(H5Dget_space(datasets[c]), H5Sclose, "get a dataspace");
        Handle memory_space(H5Screate_simple(1, memory_rows, nullptr), H5Sclose,
                            "create a dataspace");
        if (count[0] > 0) {
          check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr),
                "select rows");
        } else {
          check(H5Sselect_none(file_space), "select no rows");
          check(H5Sselect_none(memory_space), "select no rows");
        }
        check(H5Dwrite(datasets[c], types.of(table.columns[c]), memory_space, file_space, transfer,
                       values[c].data()),
              "write /" + table.group + "/" + table.columns[c].name + " of " + temporary);
      }
    }
  };
  if (options.save_jobs) write_table(jobs_table(), &PointResult::jobs);
  if (options.save_timeseries) write_table(timeseries_table(), &PointResult::samples);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush " + temporary);
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

// ---- Reading and merging whole result files ------------------------------------------------

namespace {

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  return 0;
}

herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  return 0;
}

std::vector<std::string> attribute_names(hid_t object) {
  std::vector<std::string> names;
  hsize_t index = 0;
  check(H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &index, collect_name, &names),
        "list attributes");
  return names;
}

// Links of a group in creation order where the group tracks it (as the store's groups do, so
// columns keep their schema order), else by name.
std::vector<std::string> link_names(hid_t group) {
  Handle properties(H5Gget_create_plist(group), H5Pclose, "get group properties");
  unsigned flags = 0;
  check(H5Pget_link_creation_order(properties, &flags), "get link creation order");
  const H5_index_t index_type =
      (flags & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  hsize_t index = 0;
  check(H5Literate(group, index_type, H5_ITER_INC, &index, collect_link, &names), "list links");
  return names;
}

// A scalar attribute of the kinds the store writes (fixed-length strings read as text too).
AttributeValue read_attribute_value(hid_t object, const std::string& name,
                                    const std::string& path) {
  Handle attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + name);
  Handle space(H5Aget_space(attribute), H5Sclose, "get the space of attribute " + name);
  Handle type(H5Aget_type(attribute), H5Tclose, "get the type of attribute " + name);
  const H5T_class_t type_class = H5Tget_class(type);
  if (H5Sget_simple_extent_type(space) == H5S_SCALAR) {
    if (type_class == H5T_INTEGER) {
      std::int64_t value = 0;
      check(H5Aread(attribute, H5T_NATIVE_INT64, &value), "read attribute " + name);
      return value;
    }
    if (type_class == H5T_FLOAT) {
      double value = 0;
      check(H5Aread(attribute, H5T_NATIVE_DOUBLE, &value), "read attribute " + name);
      return value;
    }
    if (type_class == H5T_STRING && H5Tis_variable_str(type) > 0) {
      Handle memory = text_type();
      char* pointer = nullptr;
      check(H5Aread(attribute, memory, &pointer), "read attribute " + name);
      std::string value = pointer ? pointer : "";
      H5free_memory(pointer);
      return value;
    }
    if (type_class == H5T_STRING) {
      Handle memory(H5Tcopy(type), H5Tclose, "copy a string type");
      std::string value(H5Tget_size(type), '\0');
      check(H5Aread(attribute, memory, value.data()), "read attribute " + name);
      return value.substr(0, value.find('\0'));
    }
  }
  throw InputError(path, 0, "",
                   "attribute '" + name +
                       "' is not a scalar integer, float or string: not a clustersim result file");
}

void write_attribute(hid_t object, const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar dataspace");
  Handle attribute(
      H5Acreate2(object, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose, "create attribute " + name);
  check(H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value), "write attribute " + name);
}

void write_attribute_value(hid_t object, const std::string& name, const AttributeValue& value) {
  std::visit([&](const auto& v) { write_attribute(object, name, v); }, value);
}

void copy_attributes(hid_t from, hid_t to, const std::string& path) {
  for (const std::string& name : attribute_names(from))
    write_attribute_value(to, name, read_attribute_value(from, name, path));
}

bool is_group(hid_t parent, const std::string& name) {
  Handle object(H5Oopen(parent, name.c_str(), H5P_DEFAULT), H5Oclose, "open " + name);
  return H5Iget_type(object) == H5I_GROUP;
}

// The rows of one 1-D dataset in memory, in the native form of its type; variable-length data
// (strings) is freed with the buffer.
class ColumnBuffer {
 public:
  ColumnBuffer(hid_t dataset, hid_t memory_type, const std::string& what)
      : memory_type_(memory_type),
        space_(H5Dget_space(dataset), H5Sclose, "get the space of " + what) {
    if (H5Sget_simple_extent_ndims(space_) != 1) throw std::runtime_error(what + " is not 1-D");
    hsize_t dims[1] = {0};
    H5Sget_simple_extent_dims(space_, dims, nullptr);
    rows_ = dims[0];
    bytes_.resize(rows_ * H5Tget_size(memory_type));
    if (rows_ > 0) {
      check(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes_.data()),
            "read " + what);
      variable_ = H5Tis_variable_str(memory_type) > 0 || H5Tdetect_class(memory_type, H5T_VLEN) > 0;
    }
  }
  ~ColumnBuffer() {
    if (variable_) {
#if H5_VERSION_GE(1, 12, 0)
      H5Treclaim(memory_type_, space_, H5P_DEFAULT, bytes_.data());
#else
      H5Dvlen_reclaim(memory_type_, space_, H5P_DEFAULT, bytes_.data());
#endif
    }
  }
  ColumnBuffer(const ColumnBuffer&) = delete;
  ColumnBuffer& operator=(const ColumnBuffer&) = delete;
  hsize_t rows() const { return rows_; }
  const char* row(hsize_t index, std::size_t size) const { return bytes_.data() + index * size; }

 private:
  hid_t memory_type_;
  Handle space_;
  hsize_t rows_ = 0;
  std::vector<char> bytes_;
  bool variable_ = false;
};

hsize_t dataset_rows(hid_t dataset) {
  Handle space(H5Dget_space(dataset), H5Sclose, "get a dataspace");
  hsize_t dims[1] = {0};
  if (H5Sget_simple_extent_ndims(space) != 1) return 0;
  H5Sget_simple_extent_dims(space, dims, nullptr);
  return dims[0];
}

// Where an output row comes from.
struct RowSource {
  std::int64_t point_id;
  std::uint32_t input;
  hsize_t row;
};

void merge_group(hid_t out_file, const std::string& group_name, const std::vector<Handle>& files,
                 const std::vector<std::string>& inputs) {
  std::vector<Handle> groups;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (H5Lexists(files[i], group_name.c_str(), H5P_DEFAULT) <= 0 ||
        !is_group(files[i], group_name))
      throw InputError(inputs[i], 0, "",
                       "has no group /" + group_name + ", which " + inputs[0] + " has");
    groups.emplace_back(H5Gopen2(files[i], group_name.c_str(), H5P_DEFAULT), H5Gclose,
                        "open /" + group_name);
  }
  const std::vector<std::string> columns = link_names(groups[0]);
  for (std::size_t i = 1; i < groups.size(); ++i) {
    if (link_names(groups[i]) != columns)
      throw InputError(inputs[i], 0, "",
                       "/" + group_name + " holds other columns than in " + inputs[0] +
                           " (files of different clustersim versions or options)");
  }
  if (std::find(columns.begin(), columns.end(), "point_id") == columns.end())
    throw InputError(inputs[0], 0, "",
                     "/" + group_name + " has no point_id column: merge cannot order its rows");

  // Output row j comes from sources[j]: all inputs' rows, stably ordered by point_id.
  std::vector<RowSource> sources;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    std::vector<std::int64_t> ids =
        read_column<std::int64_t>(groups[i], "point_id", H5T_NATIVE_INT64);
    for (hsize_t row = 0; row < ids.size(); ++row)
      sources.push_back({ids[row], static_cast<std::uint32_t>(i), row});
  }
  std::stable_sort(sources.begin(), sources.end(),
                   [](const RowSource& a, const RowSource& b) { return a.point_id < b.point_id; });
  const hsize_t total = sources.size();

  // A fresh group (a property list taken from another file's group carries that file's storage
  // details), tracking creation order like the input so that columns keep their order.
  Handle input_properties(H5Gget_create_plist(groups[0]), H5Pclose, "get group properties");
  unsigned order_flags = 0;
  check(H5Pget_link_creation_order(input_properties, &order_flags), "get link creation order");
  Handle group_properties(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "create group properties");
  check(H5Pset_link_creation_order(group_properties, order_flags), "track creation order");
  Handle out_group(
      H5Gcreate2(out_file, group_name.c_str(), H5P_DEFAULT, group_properties, H5P_DEFAULT),
      H5Gclose, "create /" + group_name);
  copy_attributes(groups[0], out_group, inputs[0]);

  for (const std::string& column : columns) {
    const std::string what = "/" + group_name + "/" + column;
    std::vector<Handle> datasets;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (is_group(groups[i], column))
        throw InputError(inputs[i], 0, "", what + " is a group: merge cannot combine it");
      datasets.emplace_back(H5Dopen2(groups[i], column.c_str(), H5P_DEFAULT), H5Dclose,
                            "open " + what);
    }
    Handle file_type(H5Dget_type(datasets[0]), H5Tclose, "get the type of " + what);
    std::size_t largest = 0;
    for (std::size_t i = 0; i < datasets.size(); ++i) {
      Handle type(H5Dget_type(datasets[i]), H5Tclose, "get the type of " + what);
      if (H5Tequal(type, file_type) <= 0)
        throw InputError(inputs[i], 0, "",
                         what + " has another type than in " + inputs[0] +
                             " (files of different clustersim versions)");
      if (dataset_rows(datasets[i]) > dataset_rows(datasets[largest])) largest = i;
    }
    Handle memory_type(H5Tget_native_type(file_type, H5T_DIR_ASCEND), H5Tclose,
                       "get the native type of " + what);
    const std::size_t size = H5Tget_size(memory_type);
    std::vector<std::unique_ptr<ColumnBuffer>> buffers;
    for (std::size_t i = 0; i < datasets.size(); ++i) {
      buffers.push_back(std::make_unique<ColumnBuffer>(datasets[i], memory_type, what));
      hsize_t expected = 0;
      for (const RowSource& source : sources) expected += source.input == i ? 1 : 0;
      if (buffers.back()->rows() != expected)
        throw InputError(inputs[i], 0, "",
                         what + " has " + std::to_string(buffers.back()->rows()) +
                             " rows, its point_id column " + std::to_string(expected));
    }
    std::vector<char> merged(total * size);
    for (hsize_t j = 0; j < total; ++j)
      std::memcpy(merged.data() + j * size, buffers[sources[j].input]->row(sources[j].row, size),
                  size);

    // Storage as in the input with the most rows (chunking and filters); chunks no larger than
    // the merged column, and no chunking for an empty one (as the writer does).
    Handle input_create(H5Dget_create_plist(datasets[largest]), H5Pclose, "get dataset properties");
    const bool chunked = H5Pget_layout(input_create) == H5D_CHUNKED;
    Handle create(chunked && total == 0 ? H5Pcreate(H5P_DATASET_CREATE) : H5Pcopy(input_create),
                  H5Pclose, "create dataset properties");
    if (chunked && total > 0) {
      hsize_t chunk[1] = {0};
      H5Pget_chunk(create, 1, chunk);
      chunk[0] = std::min(std::max<hsize_t>(chunk[0], 1), total);
      check(H5Pset_chunk(create, 1, chunk), "chunk " + what);
    }
    hsize_t dims[1] = {total};
    Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "create a dataspace");
    Handle out_dataset(
        H5Dcreate2(out_group, column.c_str(), file_type, space, H5P_DEFAULT, create, H5P_DEFAULT),
        H5Dclose, "create " + what);
    if (total > 0)
      check(H5Dwrite(out_dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, merged.data()),
            "write " + what);
    copy_attributes(datasets[0], out_dataset, inputs[0]);
  }
}

}  // namespace

Attributes read_root_attributes(const std::string& path) {
  Handle file = open_result_file(path);
  Attributes attributes;
  try {
    for (const std::string& name : attribute_names(file))
      attributes[name] = read_attribute_value(file, name, path);
  } catch (const std::runtime_error& error) {
    if (dynamic_cast<const InputError*>(&error)) throw;
    throw InputError(path, 0, "", std::string("cannot read its attributes (") + error.what() + ")");
  }
  return attributes;
}

void write_merged_result_file(const std::string& out, const std::vector<std::string>& inputs,
                              const Attributes& attributes) {
  if (inputs.empty()) throw std::invalid_argument("write_merged_result_file: no inputs");
  const std::string temporary = temporary_path_for(out);
  std::filesystem::remove(temporary);
  try {
    std::vector<Handle> files;
    for (const std::string& input : inputs) files.push_back(open_result_file(input));
    auto root_links = [](hid_t file) {
      Handle root(H5Gopen2(file, "/", H5P_DEFAULT), H5Gclose, "open /");
      return link_names(root);
    };
    const std::vector<std::string> groups = root_links(files[0]);
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::vector<std::string> names = root_links(files[i]);
      if (names != groups)
        throw InputError(inputs[i], 0, "",
                         "holds other groups than " + inputs[0] +
                             " (files of different clustersim versions or options)");
      for (const std::string& name : names) {
        if (!is_group(files[i], name))
          throw InputError(inputs[i], 0, "",
                           "/" + name + " is not a group of columns: merge cannot combine it");
      }
    }
    {
      Handle access = file_access();
      Handle out_file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose,
                      "create " + temporary);
      for (const std::string& group : groups) merge_group(out_file, group, files, inputs);
      for (const auto& [name, value] : attributes) write_attribute_value(out_file, name, value);
      check(H5Fflush(out_file, H5F_SCOPE_GLOBAL), "flush " + temporary);
    }
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);  // never leave a half-written file behind
    throw;
  }
  std::filesystem::rename(temporary, out);
}

}  // namespace clustersim::sweep
