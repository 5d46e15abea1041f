// Memory for the resource cache's entries and index (internal to lib/cache).
//
// At a million entries a lookup is bound by its dependent memory accesses,
// and on 4 KiB pages each one also misses the TLB (a nested page walk on a
// VM). So large regions are 2 MiB aligned and advised for transparent huge
// pages, and entries are carved from such regions instead of malloc'd one by
// one (which also saves malloc's per-block header).
//
//   BlockArena arena;
//   void* p = arena.Allocate(200);  // 16-byte aligned
//   arena.Free(p, 200);             // same size; reused by the next 200
#ifndef XDSFED_LIB_CACHE_INTERNAL_BLOCK_ARENA_H_
#define XDSFED_LIB_CACHE_INTERNAL_BLOCK_ARENA_H_

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace xdsfed {
namespace cache {
namespace internal {

inline constexpr size_t kHugePage = size_t{2} << 20;

// size bytes, at least 16-byte aligned. At least kHugePage bytes: 2 MiB
// aligned and advised MADV_HUGEPAGE (Linux; elsewhere a plain allocation).
// FreeRegion must get the same size.
void* AllocateRegion(size_t size);
void FreeRegion(void* p, size_t size) noexcept;

// Bump allocation from growing regions (64 KiB doubling up to 2 MiB huge
// pages), with an exact-size free list per 16-byte size class. Memory goes
// back to the system only when the arena is destroyed; freed blocks serve
// later allocations of the same class. Blocks over kMaxBlock bytes come from
// the heap. Not thread-safe.
class BlockArena {
 public:
  static constexpr size_t kMaxBlock = 4096;

  BlockArena() = default;
  ~BlockArena();
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  void* Allocate(size_t size);
  void Free(void* p, size_t size) noexcept;

 private:
  static size_t Class(size_t size) { return (size + 15) / 16; }

  std::vector<std::pair<void*, size_t>> regions_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t next_region_size_ = size_t{64} << 10;
  // By class: head of an intrusive list (sized up front: Free never throws).
  std::vector<void*> free_ = std::vector<void*>(kMaxBlock / 16 + 1, nullptr);
};

// std allocator over AllocateRegion, for the index's table (rebinds as
// absl's containers require).
template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    return static_cast<T*>(AllocateRegion(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { FreeRegion(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

}  // namespace internal
}  // namespace cache
}  // namespace xdsfed

#endif  // XDSFED_LIB_CACHE_INTERNAL_BLOCK_ARENA_H_
