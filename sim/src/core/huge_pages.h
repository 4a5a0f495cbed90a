// Large per-job arrays on huge pages where the system offers them on request (Linux transparent
// huge pages in `madvise` mode): a million-job run's job states and records fill ~300 MB, and
// filling them 4 KiB at a time costs one page fault per page (~15% of a 1M-job FIFO run went to
// page faults). Advice only: where it is not honoured nothing changes. Private to the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace clustersim::internal {

// Advises huge pages for the whole 2 MiB pages inside [data, data + bytes) (none for smaller
// arrays: they are not worth a huge page's memory).
inline void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// Room for `n` elements in `values`, on huge pages where it is new (capacity exactly `n`).
template <class T>
void reserve_on_huge_pages(std::vector<T>& values, std::size_t n) {
  if (n <= values.capacity()) return;
  values.reserve(n);
  advise_huge_pages(values.data(), values.capacity() * sizeof(T));
}

// resize(n, value), the room for it advised as reserve_on_huge_pages does.
template <class T>
void resize_on_huge_pages(std::vector<T>& values, std::size_t n, const T& value) {
  reserve_on_huge_pages(values, n);
  values.resize(n, value);
}

}  // namespace clustersim::internal
