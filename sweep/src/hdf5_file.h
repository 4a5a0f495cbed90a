// Private to the sweep's sources: the HDF5 helpers of the result file's writers, readers and
// merge (result_store.cc, result_rows.cc, result_merge.cc): handles closed in scope, checked
// calls, the string and bool types h5py reads, columns and scalar attributes.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace clustersim::sweep::hdf5 {

// The operating system's error under the failure HDF5 has just reported ("No space left on
// device", "Disk quota exceeded", "Input/output error"), from its error stack, where its file
// driver recorded one; "" otherwise.
std::string system_error_in_stack();

// Throws "HDF5: cannot WHAT", with the system error underneath where there is one.
[[noreturn]] void fail(const std::string& what);

// Closes an HDF5 handle with the right function when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id_ < 0) fail(what);
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

// A file this process writes, closed in scope like a Handle (`path`: its name, for messages).
// Left by an exception (a full disk, a quota, an I/O error), it gives the discarded file's space
// back (truncates it) before closing it. HDF5 1.10 cannot close a file whose flush failed: the
// file stays half-destroyed inside the library, and the library's clean-up at exit or at
// MPI_Finalize then crashes (issue 45: exit 139 in H5F__close_cb). file_left_open() then says
// so, and the commands leave without that clean-up (std::_Exit, or MPI_Abort on several ranks).
class WrittenFile {
 public:
  WrittenFile(hid_t id, std::string path, const std::string& what);
  ~WrittenFile();
  WrittenFile(const WrittenFile&) = delete;
  WrittenFile& operator=(const WrittenFile&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  std::string path_;
  int exceptions_;
};

// True once a WrittenFile could not be closed: the process must not run HDF5's clean-up (at
// exit, or at MPI_Finalize, which runs it), which would crash on that file.
bool file_left_open();

// Exits with `status` at once: stdio flushed, no atexit handlers, no destructors of statics (nor
// HDF5's clean-up among them), no MPI_Finalize. Locks and temporaries must be released first.
[[noreturn]] void leave_without_hdf5_cleanup(int status);

// Throws "HDF5: cannot WHAT" for a failed call.
void check(herr_t status, const std::string& what);

// h5py reads variable-length UTF-8 strings as str (attributes) or via .asstr() (datasets).
Handle text_type();
// The enum h5py uses for numpy bool, so boolean axes come back as bool columns.
Handle bool_type();
// A group that remembers creation order (h5py lists its columns in schema order).
Handle create_group(hid_t file, const std::string& name);

void write_dataset(hid_t group, const std::string& name, hid_t type, std::size_t rows,
                   const void* data, bool compress);

template <typename T>
void write_column(hid_t group, const std::string& name, hid_t type, const std::vector<T>& values,
                  bool compress = false) {
  write_dataset(group, name, type, values.size(), values.data(), compress);
}

void write_text_column(hid_t group, const std::string& name, const std::vector<std::string>& values,
                       bool compress = false);

// Scalar attributes: text, integer, real.
void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, double value);

// Errors become exceptions with context; HDF5's own stack dump to stderr would only add noise.
void silence_hdf5_error_stack();
// File access properties: HDF5's file lock where the file system supports it.
Handle file_access();

std::int64_t read_integer_attribute(hid_t file, const std::string& name);
// The variable-length string of an open attribute (`name` for errors).
std::string read_variable_text(hid_t attribute, const std::string& name);
std::string read_text_attribute(hid_t file, const std::string& name);

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

std::vector<std::string> read_text_column(hid_t file, const std::string& name);

// The result file at `path`, read-only; an InputError where it is no HDF5 file.
Handle open_result_file(const std::string& path);

}  // namespace clustersim::sweep::hdf5
