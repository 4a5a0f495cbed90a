// The queue of waiting jobs, kept in buckets of one VC, one GPU count and one GPU type, each in
// policy order (the built-in decider's ordering stage owns it: ordering.h).
// A scheduling walk merges the buckets (MergedWalk) and drops, whole, every bucket that cannot
// start anything now — its jobs need more GPUs than are free, or its VC is at its quota — so a
// backlog of large jobs or of one saturated VC costs nothing per event.
//
// A bucket is a sorted list in chunks of at most 256 job indices (ChunkedJobs): inserting a job
// anywhere moves at most a chunk (an arrival under Tiresias lands before the whole demoted
// backlog), and removing the jobs a pass started from the front moves only what the pass walked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace clustersim::internal {

// Fixed-size chunks of job indices for every bucket of a queue, in one growing array (so the
// number of allocations grows with the log of the backlog, not with the backlog).
class ChunkStore {
 public:
  static constexpr std::uint32_t kChunk = 256;

  std::uint32_t acquire() {
    if (!free_.empty()) {
      const std::uint32_t id = free_.back();
      free_.pop_back();
      sizes_[id] = 0;
      return id;
    }
    const auto id = static_cast<std::uint32_t>(sizes_.size());
    sizes_.push_back(0);
    storage_.resize(storage_.size() + kChunk);
    return id;
  }
  void release(std::uint32_t id) { free_.push_back(id); }
  std::uint32_t* data(std::uint32_t id) { return storage_.data() + std::size_t{id} * kChunk; }
  const std::uint32_t* data(std::uint32_t id) const {
    return storage_.data() + std::size_t{id} * kChunk;
  }
  std::uint32_t& size(std::uint32_t id) { return sizes_[id]; }
  std::uint32_t size(std::uint32_t id) const { return sizes_[id]; }

 private:
  std::vector<std::uint32_t> storage_;
  std::vector<std::uint32_t> sizes_;
  std::vector<std::uint32_t> free_;
};

// A sorted list of job indices in chunks of a ChunkStore.
class ChunkedJobs {
 public:
  static constexpr std::size_t kChunk = ChunkStore::kChunk;

  explicit ChunkedJobs(ChunkStore* store = nullptr) : store_(store) {}
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint32_t front() const { return store_->data(chunks_[head_])[0]; }
  // Chunks in order, from first_chunk() (those before it are spent).
  std::size_t first_chunk() const { return head_; }
  std::size_t chunk_count() const { return chunks_.size(); }
  const std::uint32_t* chunk_data(std::size_t c) const { return store_->data(chunks_[c]); }
  std::size_t chunk_size(std::size_t c) const { return store_->size(chunks_[c]); }

  // Inserts `job` after every job that `less` puts before or level with it.
  template <typename Less>
  void insert_sorted(std::uint32_t job, Less less) {
    ++size_;
    if (head_ == chunks_.size()) {
      chunks_.push_back(store_->acquire());
      push(chunks_.back(), 0, job);
      return;
    }
    // The first chunk whose last job comes after `job` (else the last chunk).
    std::size_t c;
    if (!less(job, last_of(chunks_.size() - 1))) {
      c = chunks_.size() - 1;  // the usual case: after everyone (FIFO arrivals)
    } else {
      std::size_t low = head_, high = chunks_.size() - 1;
      while (low < high) {
        const std::size_t mid = low + (high - low) / 2;
        if (less(job, last_of(mid))) {
          high = mid;
        } else {
          low = mid + 1;
        }
      }
      c = low;
    }
    if (store_->size(chunks_[c]) == kChunk) {
      // Split: the upper half moves to a new chunk after this one.
      const std::uint32_t upper = store_->acquire();
      const std::uint32_t lower = chunks_[c];
      std::copy(store_->data(lower) + kChunk / 2, store_->data(lower) + kChunk,
                store_->data(upper));
      store_->size(upper) = kChunk - kChunk / 2;
      store_->size(lower) = kChunk / 2;
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c + 1), upper);
      if (!less(job, last_of(c))) ++c;
    }
    const std::uint32_t id = chunks_[c];
    const std::uint32_t* data = store_->data(id);
    const auto at = std::upper_bound(data, data + store_->size(id), job, less) - data;
    push(id, static_cast<std::size_t>(at), job);
  }

  // Removes `job`, which `less` orders as when it was inserted (its key has not changed yet).
  // Costs a binary search over the chunks and a move within one chunk.
  template <typename Less>
  bool erase(std::uint32_t job, Less less) {
    if (head_ == chunks_.size()) return false;
    std::size_t low = head_, high = chunks_.size() - 1;
    while (low < high) {  // the first chunk whose last job is not before `job`
      const std::size_t mid = low + (high - low) / 2;
      if (less(last_of(mid), job)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    const std::uint32_t id = chunks_[low];
    std::uint32_t* data = store_->data(id);
    std::uint32_t& size = store_->size(id);
    std::uint32_t* at = std::lower_bound(data, data + size, job, less);
    if (at == data + size || *at != job) return false;
    std::copy(at + 1, data + size, at);
    --size;
    --size_;
    if (size == 0) {
      store_->release(id);
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(low));
    }
    return true;
  }

  // Drops from the first `prefix` jobs those for which `left` is true, keeping the order.
  // Costs what the prefix spans, not the list's length.
  template <typename Left>
  void remove_left(std::size_t prefix, Left left) {
    std::size_t last = head_;  // the last chunk the prefix reaches
    for (std::size_t c = head_; c < chunks_.size() && prefix > 0; ++c) {
      const std::uint32_t id = chunks_[c];
      std::uint32_t* data = store_->data(id);
      const std::size_t span = std::min<std::size_t>(prefix, store_->size(id));
      prefix -= span;
      std::uint32_t* kept_end = std::remove_if(data, data + span, left);
      const auto removed = static_cast<std::uint32_t>((data + span) - kept_end);
      std::copy(data + span, data + store_->size(id), kept_end);
      store_->size(id) -= removed;
      size_ -= removed;
      last = c;
    }
    if (head_ == chunks_.size()) return;
    // Emptied chunks go back to the store; the order of the others is kept.
    std::size_t write = last + 1;
    for (std::size_t r = last + 1; r-- > head_;) {
      if (store_->size(chunks_[r]) == 0) {
        store_->release(chunks_[r]);
      } else {
        chunks_[--write] = chunks_[r];
      }
    }
    head_ = write;
    if (head_ > 0 && head_ * 2 >= chunks_.size()) {
      chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::uint32_t last_of(std::size_t c) const {
    return store_->data(chunks_[c])[store_->size(chunks_[c]) - 1];
  }
  void push(std::uint32_t id, std::size_t at, std::uint32_t job) {
    std::uint32_t* data = store_->data(id);
    std::uint32_t& size = store_->size(id);
    std::copy_backward(data + at, data + size, data + size + 1);
    data[at] = job;
    ++size;
  }

  ChunkStore* store_;
  std::vector<std::uint32_t> chunks_;  // chunk ids in order; those before head_ are spent
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

class WaitingQueue {
 public:
  struct Bucket {
    int vc = 0;
    int gpus = 0;
    int gpu_type = -1;
    int milli = 0;     // jobs asking for a share of one GPU: its thousandths (gpus is 0)
    ChunkedJobs jobs;  // in policy order
  };

  // Empty, with room for jobs of up to `max_gpus` GPUs (it grows for larger ones).
  void reset(int max_gpus);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Smallest GPU count among waiting jobs of whole GPUs; 0 when there are none.
  int min_demand() const { return min_demand_; }
  // Waiting jobs of 0 whole GPUs (CPU-only or a share of one GPU): they may start with no GPU
  // free.
  std::size_t small_jobs() const { return small_; }
  std::size_t num_buckets() const { return buckets_.size(); }
  Bucket& bucket(std::size_t b) { return buckets_[b]; }
  const Bucket& bucket(std::size_t b) const { return buckets_[b]; }
  // The buckets holding entries (in no particular order): what walks visit.
  const std::vector<std::uint32_t>& active_buckets() const { return active_; }

  // Inserts `job` after every job of its bucket that `less` puts before or level with it.
  template <typename Less>
  void insert_sorted(std::uint32_t job, int vc, int gpus, int gpu_type, int milli, Less less) {
    const std::uint32_t b = bucket_for(vc, gpus, gpu_type, milli);
    if (buckets_[b].jobs.empty()) {
      active_position_[b] = static_cast<std::uint32_t>(active_.size());
      active_.push_back(b);
    }
    buckets_[b].jobs.insert_sorted(job, less);
    count_in(gpus);
  }
  // Accounts for a job that left the queue; its entry is removed later by `remove_left`.
  void count_out(int gpus);
  // Removes a waiting job now (to re-insert it under a new key): false if it is not listed.
  template <typename Less>
  bool erase(std::uint32_t job, int vc, int gpus, int gpu_type, int milli, Less less) {
    const std::uint32_t b = bucket_for(vc, gpus, gpu_type, milli);
    if (!buckets_[b].jobs.erase(job, less)) return false;
    count_out(gpus);
    if (buckets_[b].jobs.empty()) {
      const std::uint32_t position = active_position_[b];
      active_[position] = active_.back();
      active_position_[active_[position]] = position;
      active_.pop_back();
    }
    return true;
  }
  // Drops from the first `prefix` entries of a bucket the jobs for which `left` is true.
  template <typename Left>
  void remove_left(std::size_t b, std::size_t prefix, Left left) {
    buckets_[b].jobs.remove_left(prefix, left);
    if (buckets_[b].jobs.empty()) {
      const std::uint32_t position = active_position_[b];
      active_[position] = active_.back();
      active_position_[active_[position]] = position;
      active_.pop_back();
    }
  }

 private:
  std::uint32_t bucket_for(int vc, int gpus, int gpu_type, int milli);
  void count_in(int gpus);

  ChunkStore store_;
  std::vector<Bucket> buckets_;  // created as (VC, GPUs, type) first appear; never removed
  std::vector<std::uint32_t> active_, active_position_;
  std::unordered_map<std::uint64_t, std::uint32_t> bucket_index_;  // (VC, type, GPUs) -> bucket
  std::vector<int> demand_;                                        // waiting jobs per GPU count
  int min_demand_ = 0;
  std::size_t small_ = 0;
  std::size_t size_ = 0;
};

// A list a MergedWalk visits: a bucket's chunks, or one plain vector (running jobs in rounds).
struct WalkList {
  const ChunkedJobs* chunked = nullptr;
  const std::vector<std::uint32_t>* flat = nullptr;
};

// Visits several sorted lists of job indices in one merged order (a k-way merge over a heap of
// list heads). A list may be dropped mid-walk. When `less` depends on state that changes as
// jobs are taken (fair-share ranks), call `reorder` after each change.
class MergedWalk {
 public:
  // Starts a walk over `lists` (not owned; must outlive the walk). Reuses its own storage.
  template <typename Less>
  void start(const std::vector<WalkList>& lists, Less less) {
    lists_ = &lists;
    cursors_.resize(lists.size());
    heap_.clear();
    for (std::size_t s = 0; s < lists.size(); ++s) {
      Cursor& cursor = cursors_[s];
      cursor.position = 0;
      cursor.offset = 0;
      if (lists[s].chunked) {
        const ChunkedJobs& jobs = *lists[s].chunked;
        cursor.chunk = jobs.first_chunk();
        cursor.left = jobs.size();
        cursor.data = cursor.left ? jobs.chunk_data(cursor.chunk) : nullptr;
        cursor.in_chunk = cursor.left ? jobs.chunk_size(cursor.chunk) : 0;
      } else {
        cursor.chunk = 0;
        cursor.left = lists[s].flat->size();
        cursor.data = lists[s].flat->data();
        cursor.in_chunk = cursor.left;
      }
      if (cursor.left > 0) heap_.push_back(s);
    }
    reorder(less);
  }
  template <typename Less>
  void reorder(Less less) {
    std::make_heap(heap_.begin(), heap_.end(), later(less));
  }
  bool done() const { return heap_.empty(); }
  // The list whose head comes first, and that head.
  std::size_t source() const { return heap_.front(); }
  std::uint32_t job() const { return head(heap_.front()); }
  // How far the walk got into a list (its first `position` entries were visited).
  std::size_t position(std::size_t source) const { return cursors_[source].position; }

  // Moves past the current head.
  template <typename Less>
  void advance(Less less) {
    std::pop_heap(heap_.begin(), heap_.end(), later(less));
    const std::size_t s = heap_.back();
    if (step(s)) {
      std::push_heap(heap_.begin(), heap_.end(), later(less));
    } else {
      heap_.pop_back();
    }
  }
  // Stops visiting the current head's list.
  template <typename Less>
  void drop(Less less) {
    std::pop_heap(heap_.begin(), heap_.end(), later(less));
    heap_.pop_back();
  }

 private:
  struct Cursor {
    const std::uint32_t* data = nullptr;  // the current chunk
    std::size_t in_chunk = 0;             // its length
    std::size_t offset = 0;               // position in it
    std::size_t chunk = 0;
    std::size_t left = 0;  // entries not yet passed, this one included
    std::size_t position = 0;
  };
  std::uint32_t head(std::size_t s) const { return cursors_[s].data[cursors_[s].offset]; }
  // Moves list s past its head; false when the list is exhausted.
  bool step(std::size_t s) {
    Cursor& cursor = cursors_[s];
    ++cursor.position;
    if (--cursor.left == 0) return false;
    if (++cursor.offset == cursor.in_chunk) {
      const ChunkedJobs& jobs = *(*lists_)[s].chunked;  // flat lists are one chunk
      ++cursor.chunk;
      cursor.data = jobs.chunk_data(cursor.chunk);
      cursor.in_chunk = jobs.chunk_size(cursor.chunk);
      cursor.offset = 0;
    }
    return true;
  }
  // std heaps keep the greatest on top: order lists so that the earliest head is "greatest".
  template <typename Less>
  auto later(Less less) const {
    return [this, less](std::size_t a, std::size_t b) { return less(head(b), head(a)); };
  }

  const std::vector<WalkList>* lists_ = nullptr;
  std::vector<Cursor> cursors_;
  std::vector<std::size_t> heap_;
};

}  // namespace clustersim::internal
