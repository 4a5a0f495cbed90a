// The HDF5 helpers of the result file's writers, readers and merge (hdf5_file.h).
#include "hdf5_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/error.h"

namespace clustersim::sweep::hdf5 {

std::string system_error_in_stack() {
  std::string found;
  // The sec2 and MPI-IO drivers describe a failed system call as "... errno = 28, error
  // message = 'No space left on device' ...".
  auto visit = [](unsigned, const H5E_error2_t* error, void* data) -> herr_t {
    const char* text =
        error && error->desc ? std::strstr(error->desc, "error message = '") : nullptr;
    if (!text) return 0;
    text += std::strlen("error message = '");
    const char* end = std::strchr(text, '\'');
    *static_cast<std::string*>(data) = end ? std::string(text, end) : std::string(text);
    return 1;  // the innermost one is enough
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, visit, &found);
  return found;
}

void fail(const std::string& what) {
  const std::string cause = system_error_in_stack();
  throw std::runtime_error("HDF5: cannot " + what + (cause.empty() ? "" : ": " + cause));
}

void check(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

WrittenFile::WrittenFile(hid_t id, std::string path, const std::string& what)
    : id_(id), path_(std::move(path)), exceptions_(std::uncaught_exceptions()) {
  if (id_ < 0) fail(what);
}

namespace {
bool g_file_left_open = false;
}  // namespace

bool file_left_open() { return g_file_left_open; }

void leave_without_hdf5_cleanup(int status) {
  std::fflush(nullptr);
  std::_Exit(status);
}

WrittenFile::~WrittenFile() {
  if (id_ < 0) return;
  // Discarded anyway: give its space back to whatever else needs it.
  if (std::uncaught_exceptions() > exceptions_) (void)::truncate(path_.c_str(), 0);
  if (H5Fclose(id_) < 0) g_file_left_open = true;
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

void write_text_column(hid_t group, const std::string& name, const std::vector<std::string>& values,
                       bool compress) {
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

Handle file_access() {
  silence_hdf5_error_stack();
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  // Lock where the file system supports it; on NFS/Lustre (no locks) carry on without.
  check(H5Pset_file_locking(access, true, true), "configure file locking");
  return access;
}

std::int64_t read_integer_attribute(hid_t file, const std::string& name) {
  Handle attribute(H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + name);
  std::int64_t value = 0;
  check(H5Aread(attribute, H5T_NATIVE_INT64, &value), "read attribute " + name);
  return value;
}

std::string read_variable_text(hid_t attribute, const std::string& name) {
  Handle type = text_type();
  char* pointer = nullptr;
  check(H5Aread(attribute, type, &pointer), "read attribute " + name);
  std::string value = pointer ? pointer : "";
  H5free_memory(pointer);
  return value;
}

std::string read_text_attribute(hid_t file, const std::string& name) {
  Handle attribute(H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + name);
  return read_variable_text(attribute, name);
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

void write_attribute(hid_t object, const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar dataspace");
  Handle attribute(
      H5Acreate2(object, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose, "create attribute " + name);
  check(H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value), "write attribute " + name);
}

}  // namespace clustersim::sweep::hdf5
