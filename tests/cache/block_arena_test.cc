#include "lib/cache/internal/block_arena.h"

#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace xdsfed {
namespace cache {
namespace internal {
namespace {

// The entry allocator behind the A47 §Resource Cache entries: blocks are
// 16-byte aligned, never overlap, survive region changes, and a freed block
// serves the next allocation of its size class.
TEST(BlockArenaTest, AllocateFreeReuse) {
  struct Case {
    size_t size;
    size_t count;  // enough to cross several regions for the small ones
  };
  const Case kCases[] = {
      {96, 5000}, {200, 3000}, {4096, 100}, {4097, 10}, {1 << 16, 3},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.size);
    BlockArena arena;
    std::vector<char*> blocks;
    for (size_t i = 0; i < c.count; ++i) {
      char* p = static_cast<char*>(arena.Allocate(c.size));
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
      std::memset(p, static_cast<int>(i & 0xff), c.size);
      blocks.push_back(p);
    }
    // No two blocks overlap: every block still holds its own byte.
    for (size_t i = 0; i < c.count; ++i) {
      ASSERT_EQ(blocks[i][0], static_cast<char>(i & 0xff)) << i;
      ASSERT_EQ(blocks[i][c.size - 1], static_cast<char>(i & 0xff)) << i;
    }
    std::set<char*> freed;
    for (size_t i = 0; i < c.count; i += 2) {
      arena.Free(blocks[i], c.size);
      freed.insert(blocks[i]);
    }
    if (c.size <= BlockArena::kMaxBlock) {
      // Same class (size rounded up to 16): reused, not carved anew.
      for (size_t i = 0; i < c.count; i += 2) {
        EXPECT_EQ(freed.count(static_cast<char*>(arena.Allocate(c.size - 1))),
                  1u);
      }
    } else {
      // Heap blocks are the caller's to free; arena blocks go with the arena.
      for (size_t i = 1; i < c.count; i += 2) arena.Free(blocks[i], c.size);
    }
  }
}

TEST(BlockArenaTest, HugePageAllocatorRoundTrips) {
  HugePageAllocator<uint64_t> alloc;
  for (size_t n : {size_t{1}, size_t{1000}, kHugePage / 8, kHugePage / 8 + 1}) {
    SCOPED_TRACE(n);
    uint64_t* p = alloc.allocate(n);
    p[0] = 1;
    p[n - 1] = 2;
    if (n * 8 >= kHugePage) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePage, 0u);
    }
    alloc.deallocate(p, n);
  }
}

}  // namespace
}  // namespace internal
}  // namespace cache
}  // namespace xdsfed
