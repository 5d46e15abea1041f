// Counts heap allocations in a test or benchmark binary, so that "no
// allocation on the hot path" is measured, not assumed:
//
//   const int64_t before = xdsfed::test_support::AllocationCount();
//   normalizer.Normalize(name, true);
//   EXPECT_EQ(xdsfed::test_support::AllocationCount() - before, 0);
//
// Linking the object library xdsfed_alloc_counter replaces the global
// operator new/delete of the whole binary with counting versions.
#ifndef XDSFED_TESTS_SUPPORT_ALLOC_COUNTER_H_
#define XDSFED_TESTS_SUPPORT_ALLOC_COUNTER_H_

#include <cstdint>

namespace xdsfed::test_support {

// Every operator new / new[] call since the program started.
int64_t AllocationCount();

}  // namespace xdsfed::test_support

#endif  // XDSFED_TESTS_SUPPORT_ALLOC_COUNTER_H_
