// Reading and merging whole result files (result_store.h: read_root_attributes,
// write_merged_result_file; `clustersim merge`).
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "clustersim/atomic_file.h"
#include "clustersim/error.h"
#include "clustersim/sweep/result_store.h"
#include "errno_error.h"
#include "hdf5_file.h"
#include "result_rows.h"

namespace clustersim::sweep {

namespace hdf5 {

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
    if (type_class == H5T_STRING && H5Tis_variable_str(type) > 0)
      return read_variable_text(attribute, name);
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

// The columns of a row table whose inputs hold different columns: every input's built-in
// columns (built_in_row_columns) must be the same; the columns components added may differ (a
// shard none of whose points ran a component lacks its columns), and the result has their
// union in the order the store writes them (order_added_columns), so that merged shards equal
// the file one sweep writes. Any other difference is an error naming the input.
std::vector<std::string> union_of_row_columns(const std::string& group_name,
                                              const std::vector<Handle>& groups,
                                              const std::vector<std::string>& inputs) {
  const std::vector<std::string> built_in = built_in_row_columns(group_name);
  auto split = [&](std::size_t i, std::vector<std::string>& added) {
    std::vector<std::string> fixed;
    for (const std::string& name : link_names(groups[i]))
      (std::find(built_in.begin(), built_in.end(), name) != built_in.end() ? fixed : added)
          .push_back(name);
    return fixed;
  };
  std::vector<std::string> added;
  const std::vector<std::string> fixed = split(0, added);
  for (std::size_t i = 1; i < groups.size(); ++i) {
    if (built_in.empty() || split(i, added) != fixed)
      throw InputError(inputs[i], 0, "",
                       "/" + group_name + " holds other columns than in " + inputs[0] +
                           " (files of different clustersim versions or options)");
  }
  std::vector<std::string> columns = fixed;
  for (std::string& name : order_added_columns(std::move(added), group_name == "timeseries"))
    columns.push_back(std::move(name));
  return columns;
}

// Where an output row comes from.
struct RowSource {
  std::int64_t point_id;
  std::uint32_t input;
  hsize_t row;
};

// `points_of[i]`: the sorted point ids of input i's /points, which every row of its other groups
// must belong to (empty for /points itself).
void merge_group(hid_t out_file, const std::string& group_name, const std::vector<Handle>& files,
                 const std::vector<std::string>& inputs,
                 const std::vector<std::vector<std::int64_t>>& points_of) {
  std::vector<Handle> groups;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (H5Lexists(files[i], group_name.c_str(), H5P_DEFAULT) <= 0 ||
        !is_group(files[i], group_name))
      throw InputError(inputs[i], 0, "",
                       "has no group /" + group_name + ", which " + inputs[0] + " has");
    groups.emplace_back(H5Gopen2(files[i], group_name.c_str(), H5P_DEFAULT), H5Gclose,
                        "open /" + group_name);
  }
  std::vector<std::string> columns = link_names(groups[0]);
  bool same_columns = true;
  for (std::size_t i = 1; i < groups.size(); ++i) same_columns &= link_names(groups[i]) == columns;
  if (!same_columns) columns = union_of_row_columns(group_name, groups, inputs);
  if (std::find(columns.begin(), columns.end(), "point_id") == columns.end())
    throw InputError(inputs[0], 0, "",
                     "/" + group_name + " has no point_id column: merge cannot order its rows");

  // Output row j comes from sources[j]: all inputs' rows, stably ordered by point_id.
  std::vector<RowSource> sources;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    std::vector<std::int64_t> ids =
        read_column<std::int64_t>(groups[i], "point_id", H5T_NATIVE_INT64);
    if (!points_of.empty()) {
      // A row of a point the file does not hold (a hand-edited or damaged file) would enter the
      // merged file as results of no point: refused, nothing written.
      const std::vector<std::int64_t>& points = points_of[i];
      std::size_t unknown = 0;
      std::int64_t first = 0;
      for (const std::int64_t id : ids) {
        if (std::binary_search(points.begin(), points.end(), id)) continue;
        if (unknown++ == 0) first = id;
      }
      if (unknown > 0)
        throw InputError(
            inputs[i], 0, "",
            "/" + group_name + " has " + std::to_string(unknown) +
                (unknown == 1 ? " row" : " rows") + " of point " + std::to_string(first) +
                (unknown > 1 ? " (and others)" : "") +
                ", which its /points does not hold: a damaged result file; not merged");
    }
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
    // An input without the column (a component column none of its points added: only those
    // are missing, union_of_row_columns) gives its rows NaN; `datasets` has none there.
    std::vector<std::optional<Handle>> datasets;
    std::size_t first = groups.size();  // the first input that has the column
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (H5Lexists(groups[i], column.c_str(), H5P_DEFAULT) <= 0) {
        datasets.emplace_back();
        continue;
      }
      if (is_group(groups[i], column))
        throw InputError(inputs[i], 0, "", what + " is a group: merge cannot combine it");
      datasets.emplace_back(std::in_place, H5Dopen2(groups[i], column.c_str(), H5P_DEFAULT),
                            H5Dclose, "open " + what);
      if (first == groups.size()) first = i;
    }
    Handle file_type(H5Dget_type(*datasets[first]), H5Tclose, "get the type of " + what);
    std::size_t largest = first;
    for (std::size_t i = 0; i < datasets.size(); ++i) {
      if (!datasets[i]) continue;
      Handle type(H5Dget_type(*datasets[i]), H5Tclose, "get the type of " + what);
      if (H5Tequal(type, file_type) <= 0)
        throw InputError(inputs[i], 0, "",
                         what + " has another type than in " + inputs[0] +
                             " (files of different clustersim versions)");
      if (dataset_rows(*datasets[i]) > dataset_rows(*datasets[largest])) largest = i;
    }
    Handle memory_type(H5Tget_native_type(file_type, H5T_DIR_ASCEND), H5Tclose,
                       "get the native type of " + what);
    const std::size_t size = H5Tget_size(memory_type);
    if (first > 0 && (H5Tget_class(file_type) != H5T_FLOAT || size != sizeof(double)))
      throw InputError(inputs[0], 0, "", "has no " + what + ", which " + inputs[first] + " has");
    std::vector<std::unique_ptr<ColumnBuffer>> buffers;
    for (std::size_t i = 0; i < datasets.size(); ++i) {
      if (!datasets[i]) {
        buffers.push_back(nullptr);
        continue;
      }
      buffers.push_back(std::make_unique<ColumnBuffer>(*datasets[i], memory_type, what));
      hsize_t expected = 0;
      for (const RowSource& source : sources) expected += source.input == i ? 1 : 0;
      if (buffers.back()->rows() != expected)
        throw InputError(inputs[i], 0, "",
                         what + " has " + std::to_string(buffers.back()->rows()) +
                             " rows, its point_id column " + std::to_string(expected));
    }
    std::vector<char> merged(total * size);
    constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
    for (hsize_t j = 0; j < total; ++j) {
      const ColumnBuffer* buffer = buffers[sources[j].input].get();
      std::memcpy(
          merged.data() + j * size,
          buffer ? buffer->row(sources[j].row, size) : reinterpret_cast<const char*>(&kMissing),
          size);
    }

    // Storage as in the input with the most rows (chunking and filters); chunks no larger than
    // the merged column, and no chunking for an empty one (as the writer does).
    Handle input_create(H5Dget_create_plist(*datasets[largest]), H5Pclose,
                        "get dataset properties");
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
    copy_attributes(*datasets[first], out_dataset, inputs[first]);
  }
}

}  // namespace

}  // namespace hdf5

Attributes read_root_attributes(const std::string& path) {
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
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
  using namespace hdf5;  // the HDF5 helpers and the row tables' internals
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
      WrittenFile out_file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access),
                           temporary, "create " + temporary);
      // Each input's points, which the rows of its other groups must belong to.
      std::vector<std::vector<std::int64_t>> points_of;
      for (std::size_t i = 0; i < files.size(); ++i) {
        Handle points(H5Gopen2(files[i], "points", H5P_DEFAULT), H5Gclose, "open /points");
        points_of.push_back(read_column<std::int64_t>(points, "point_id", H5T_NATIVE_INT64));
        std::sort(points_of.back().begin(), points_of.back().end());
      }
      for (const std::string& group : groups)
        merge_group(out_file, group, files, inputs,
                    group == "points" ? std::vector<std::vector<std::int64_t>>{} : points_of);
      for (const auto& [name, value] : attributes) write_attribute_value(out_file, name, value);
      check(H5Fflush(out_file, H5F_SCOPE_GLOBAL), "flush " + temporary);
    }
  } catch (const InputError&) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);  // never leave a half-written file behind
    throw;
  } catch (const std::exception& error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(out + ": cannot write the merged file: " + error.what());
  }
  rename_into_place(temporary, out);
}

}  // namespace clustersim::sweep
