// The side-file cache (clustersim/side_file_cache.h): stat stamps, trusted once old enough, and
// the bytes kept (and compared at every use) while they are not.
#include "clustersim/side_file_cache.h"

#include <sys/stat.h>
#include <time.h>

#include "clustersim/input_file.h"

namespace clustersim {

// What stat says of a file: any write, truncation, rename over it or `touch` changes one of
// these (within the tick caveat of side_file_cache.h).
struct SideFileCache::Stamp {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{}, changed{};

  bool operator==(const Stamp& other) const {
    return exists == other.exists && device == other.device && inode == other.inode &&
           size == other.size && modified.tv_sec == other.modified.tv_sec &&
           modified.tv_nsec == other.modified.tv_nsec && changed.tv_sec == other.changed.tv_sec &&
           changed.tv_nsec == other.changed.tv_nsec;
  }
};

namespace {

using Stamp = SideFileCache::Stamp;

Stamp stamp_of(const std::string& path) {
  struct stat info {};
  Stamp stamp;
  if (::stat(path.c_str(), &info) != 0) return stamp;  // read_input_file says why
  stamp.exists = true;
  stamp.device = info.st_dev;
  stamp.inode = info.st_ino;
  stamp.size = info.st_size;
  stamp.modified = info.st_mtim;
  stamp.changed = info.st_ctim;
  return stamp;
}

std::vector<Stamp> stamps_of(const std::vector<std::string>& files) {
  std::vector<Stamp> stamps;
  stamps.reserve(files.size());
  for (const std::string& file : files) stamps.push_back(stamp_of(file));
  return stamps;
}

double seconds(const timespec& time) {
  return static_cast<double>(time.tv_sec) + 1e-9 * static_cast<double>(time.tv_nsec);
}

double now_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return seconds(now);
}

// Whether the stamps alone vouch for the bytes read at `read_at`: every file was last written
// (and its status changed) more than `margin` seconds before, so a later write would carry a
// later time.
bool trustworthy(const std::vector<Stamp>& stamps, double read_at, double margin) {
  for (const Stamp& stamp : stamps)
    if (!stamp.exists || seconds(stamp.modified) > read_at - margin ||
        seconds(stamp.changed) > read_at - margin)
      return false;
  return true;
}

}  // namespace

struct SideFileCache::Entry {
  std::vector<std::string> files;
  std::vector<Stamp> stamps;
  bool trusted = false;
  std::vector<std::string> texts;  // kept while not trusted: compared at every use
  std::shared_ptr<const void> value;
};

namespace {

// The files' bytes, read with their stamps: read again (up to three times) when a stamp moved
// during the read; `stable` says whether the last read saw none move.
struct Read {
  std::vector<std::string> texts;
  std::vector<Stamp> stamps;
  double read_at = 0.0;
  bool stable = false;
  std::size_t reads = 0;  // file reads, every attempt's
};

Read read_files(const std::vector<std::string>& files, std::string_view what) {
  Read read;
  for (int attempt = 0; attempt < 3 && !read.stable; ++attempt) {
    read.read_at = now_seconds();
    const std::vector<Stamp> before = stamps_of(files);
    read.texts.clear();
    for (const std::string& file : files) read.texts.push_back(read_input_file(file, what));
    read.reads += files.size();
    read.stamps = stamps_of(files);
    read.stable = read.stamps == before;
  }
  return read;
}

}  // namespace

std::shared_ptr<const void> SideFileCache::get_erased(const std::string& key,
                                                      const std::vector<std::string>& files,
                                                      std::string_view what,
                                                      const ErasedParse& parse) {
  const std::vector<Stamp> stamps = stamps_of(files);
  std::shared_ptr<const Entry> entry;
  {
    std::lock_guard lock(mutex_);
    ++stats_.lookups;
    if (auto found = entries_.find(key); found != entries_.end()) entry = found->second;
    if (entry && entry->trusted && entry->files == files && entry->stamps == stamps) {
      ++stats_.hits;
      return entry->value;
    }
  }
  Read read = read_files(files, what);
  if (entry && entry->files == files && read.stable && read.stamps == entry->stamps &&
      read.texts == entry->texts) {
    // Too recent to trust on its stamps, and still the same bytes: the same value, trusted
    // from now on if the files have since aged enough.
    std::lock_guard lock(mutex_);
    ++stats_.verified;
    stats_.files_read += read.reads;
    if (trustworthy(read.stamps, read.read_at, trust_after_seconds_)) {
      auto trusted = std::make_shared<Entry>(*entry);
      trusted->trusted = true;
      trusted->texts.clear();
      entries_[key] = std::move(trusted);
    }
    return entry->value;
  }
  // A first use, or changed files: parse (outside the lock: another key's use need not wait).
  auto fresh = std::make_shared<Entry>();
  fresh->files = files;
  const std::size_t reads = read.reads;
  fresh->value = parse(read.texts);
  fresh->trusted = read.stable && trustworthy(read.stamps, read.read_at, trust_after_seconds_);
  fresh->stamps = std::move(read.stamps);
  if (!fresh->trusted) fresh->texts = std::move(read.texts);
  std::lock_guard lock(mutex_);
  ++stats_.parses;
  stats_.files_read += reads;
  entries_[key] = fresh;
  return fresh->value;
}

SideFileCache::Stats SideFileCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace clustersim
