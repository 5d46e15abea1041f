#include "lib/cache/internal/block_arena.h"

#include <cstdlib>

#include "absl/base/config.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
// Freed blocks stay poisoned until reused, so ASan still sees a use of an
// erased entry.
#define XDSFED_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define XDSFED_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define XDSFED_POISON(p, n) ((void)(p), (void)(n))
#define XDSFED_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace xdsfed {
namespace cache {
namespace internal {
namespace {

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void* AllocateRegion(size_t size) {
  if (size < kHugePage) return ::operator new(size);
  const size_t rounded = RoundUp(size, kHugePage);
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: without THP the region still works on small pages.
  madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void FreeRegion(void* p, size_t size) noexcept {
  if (size < kHugePage) {
    ::operator delete(p);
  } else {
    std::free(p);
  }
}

BlockArena::~BlockArena() {
  for (const auto& [p, size] : regions_) XDSFED_UNPOISON(p, size);
  for (const auto& [p, size] : regions_) FreeRegion(p, size);
}

void* BlockArena::Allocate(size_t size) {
  if (size > kMaxBlock) return ::operator new(size);
  const size_t cls = Class(size);
  if (cls < free_.size() && free_[cls] != nullptr) {
    void* p = free_[cls];
    XDSFED_UNPOISON(p, cls * 16);
    free_[cls] = *static_cast<void**>(p);
    return p;
  }
  const size_t bytes = cls * 16;
  if (left_ < bytes) {
    // The tail of the old region is too small for this block: keep it for
    // the free list of its own class rather than waste it.
    if (left_ >= 16) {
      XDSFED_UNPOISON(next_, left_);
      Free(next_, left_);
    }
    const size_t region = next_region_size_;
    if (next_region_size_ < kHugePage) next_region_size_ *= 2;
    next_ = static_cast<char*>(AllocateRegion(region));
    regions_.emplace_back(next_, region);
    left_ = region;
    XDSFED_POISON(next_, left_);
  }
  void* p = next_;
  XDSFED_UNPOISON(p, bytes);
  next_ += bytes;
  left_ -= bytes;
  return p;
}

void BlockArena::Free(void* p, size_t size) noexcept {
  if (size > kMaxBlock) {
    ::operator delete(p);
    return;
  }
  const size_t cls = Class(size);
  *static_cast<void**>(p) = free_[cls];
  free_[cls] = p;
  XDSFED_POISON(p, cls * 16);
}

}  // namespace internal
}  // namespace cache
}  // namespace xdsfed
