// The result file's row tables, /jobs and /timeseries (result_rows.h): built in chunks from the
// results or their spools, by rank 0 alone, by the ranks in turn, or by all ranks together.
#include "result_rows.h"

#include <hdf5.h>
#include <mpi.h>
#include <oneapi/tbb/parallel_for.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "clustersim/component.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
#include "hdf5_file.h"

namespace clustersim::sweep {

namespace hdf5 {

namespace {

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

// kAdded: a column a component added (PointResult::job_columns, sample_columns), float64.
enum class ColumnKind { kPointId, kJobIndex, kRejected, kCount, kReal, kAdded };

struct RowColumn {
  std::string name;
  ColumnKind kind;
  std::size_t size;  // bytes per value in memory and in the file
  const JobField* job = nullptr;
  const SampleField* sample = nullptr;
};

// The columns a point's components added to a table's rows.
inline const std::vector<RunResult::Column>& added_columns(const PointResult& result,
                                                           std::vector<JobRecord> PointResult::*) {
  return result.job_columns;
}
inline const std::vector<RunResult::Column>& added_columns(const PointResult& result,
                                                           std::vector<Sample> PointResult::*) {
  return result.sample_columns;
}

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
    case ColumnKind::kAdded:
      break;  // RowGatherer::gather writes them
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
    case ColumnKind::kAdded:
      break;  // RowGatherer::gather writes them
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
        // Each added column's values in this point, or NaN where its components did not add it.
        std::vector<const double*> added(columns_.size(), nullptr);
        for (std::size_t c = 0; c < columns_.size(); ++c) {
          if (columns_[c].kind != ColumnKind::kAdded) continue;
          for (const RunResult::Column& column : added_columns(holder_of(point), member_))
            if (column.name == columns_[c].name) added[c] = column.values.data();
        }
        for (; row < point_end; ++row) {
          const std::size_t at = row - starts_[point];
          const Row& source = rows[at];
          for (std::size_t c = 0; c < columns_.size(); ++c) {
            char* out = buffers[c].data() + (row - first) * columns_[c].size;
            if (columns_[c].kind != ColumnKind::kAdded) {
              put_value(columns_[c], point_id, source, out);
            } else {
              const double value = added[c] ? added[c][at] : kMissing;
              std::memcpy(out, &value, 8);
            }
          }
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

  static constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

  const std::vector<Row>& rows_of(std::size_t index) const {
    static const std::vector<Row> kNone;
    const PointResult& result = results_[index];
    if (!result.rows) return result.*member_;
    if (rows_in(index) == 0) return kNone;
    return loaded_.at(index).get()->*member_;
  }
  // The result that holds a point's rows (and its added columns' values): its own, or the one
  // loaded from its spool. Only for a point with rows.
  const PointResult& holder_of(std::size_t index) const {
    const PointResult& result = results_[index];
    return result.rows ? *loaded_.at(index) : result;
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
      if (rows_in(i) == 0) continue;
      for (const RunResult::Column& column : added_columns(holder_of(i), member_))
        if (column.values.size() != rows_in(i))
          throw std::runtime_error("point " + std::to_string(results_[i].point_id) + ": column " +
                                   column.name + " has " + std::to_string(column.values.size()) +
                                   " values for " + std::to_string(rows_in(i)) + " rows");
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

// A table's built-in columns, then the columns the points' components added: the union of
// their names over `results` (every point's names travel with its metrics, so the schema is
// known before any row is written), in declaration order (declared_columns), then any column
// no component declares, by name. Every writer of one file derives the same schema from the
// same results.
template <typename Row>
RowTable row_table(std::string group, std::vector<RowColumn> columns,
                   const std::vector<PointResult>& results, std::vector<Row> PointResult::*member) {
  std::vector<std::string> names;
  for (const PointResult& result : results)
    for (const RunResult::Column& column : added_columns(result, member))
      if (std::find(names.begin(), names.end(), column.name) == names.end())
        names.push_back(column.name);
  const std::size_t built_in = columns.size();
  for (const std::string& name : order_added_columns(std::move(names), group == "timeseries")) {
    for (std::size_t c = 0; c < built_in; ++c)
      if (columns[c].name == name)
        throw std::runtime_error("a component adds a column " + name + " that /" + group +
                                 " has already");
    columns.push_back({name, ColumnKind::kAdded, 8});
  }
  return {std::move(group), std::move(columns)};
}

RowTable jobs_table(const std::vector<PointResult>& results) {
  return row_table("jobs", job_columns(), results, &PointResult::jobs);
}
RowTable timeseries_table(const std::vector<PointResult>& results) {
  return row_table("timeseries", sample_columns(), results, &PointResult::samples);
}

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
      case ColumnKind::kAdded:
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

// The added columns' unit and description (their declarations) as attributes of their
// datasets, for readers of the file; a column no component declares has none.
void describe_added_columns(hid_t group, const RowTable& table) {
  const std::vector<ColumnDecl> declared = declared_columns(table.group == "timeseries");
  for (const RowColumn& column : table.columns) {
    if (column.kind != ColumnKind::kAdded) continue;
    for (const ColumnDecl& decl : declared) {
      if (decl.name != column.name) continue;
      Handle dataset(H5Dopen2(group, column.name.c_str(), H5P_DEFAULT), H5Dclose,
                     "open /" + table.group + "/" + column.name);
      write_attribute(dataset, "unit", std::string(decl.unit));
      write_attribute(dataset, "description", std::string(decl.meaning));
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
    describe_added_columns(group, table);
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
  describe_added_columns(group, table);
  if (!write_rows) return;
  for (hsize_t block = 0; block < layout.blocks; ++block)
    write_block(datasets, table, layout, block,
                compress_block(gatherer, table.columns, layout, block));
}

}  // namespace

std::vector<std::string> order_added_columns(std::vector<std::string> names, bool samples) {
  const std::vector<ColumnDecl> declared = declared_columns(samples);
  auto rank = [&](const std::string& name) {
    for (std::size_t d = 0; d < declared.size(); ++d)
      if (declared[d].name == name) return d;
    return declared.size();
  };
  std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    const std::size_t rank_a = rank(a), rank_b = rank(b);
    return rank_a != rank_b ? rank_a < rank_b : a < b;
  });
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> built_in_row_columns(const std::string& group) {
  std::vector<std::string> names;
  if (group == "jobs" || group == "timeseries")
    for (const RowColumn& column : group == "jobs" ? job_columns() : sample_columns())
      names.push_back(column.name);
  return names;
}

void write_row_tables(hid_t file, const std::vector<PointResult>& results,
                      const ResultFileOptions& options, const std::string& rows_folder,
                      bool write_rows) {
  if (options.save_jobs)
    write_row_table(file, jobs_table(results), results, &PointResult::jobs, rows_folder,
                    write_rows);
  if (options.save_timeseries)
    write_row_table(file, timeseries_table(results), results, &PointResult::samples, rows_folder,
                    write_rows);
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
  if (options.save_jobs) one(jobs_table(results), &PointResult::jobs);
  if (options.save_timeseries) one(timeseries_table(results), &PointResult::samples);
}

}  // namespace

}  // namespace hdf5

void compress_row_blocks(
    const std::vector<PointResult>& results, const ResultFileOptions& options,
    const std::string& rows_folder, int worker, int workers,
    const std::function<void(std::size_t block, std::vector<std::string> chunks)>& deliver) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
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
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
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
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
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
        WrittenFile file(H5Fopen(temporary.c_str(), H5F_ACC_RDWR, access), temporary,
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
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  silence_hdf5_error_stack();
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  check(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL), "use MPI-IO");
  // Every rank opens the file to write it: HDF5's own lock would refuse all but one (rank 0
  // holds the result file's OutputLock for them all).
  check(H5Pset_file_locking(access, false, true), "configure file locking");
  WrittenFile file(H5Fopen(temporary.c_str(), H5F_ACC_RDWR, access), temporary,
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
  if (options.save_jobs) write_table(jobs_table(results), &PointResult::jobs);
  if (options.save_timeseries) write_table(timeseries_table(results), &PointResult::samples);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush " + temporary);
}

}  // namespace clustersim::sweep
