// XDSFED_CHECK: aborts on a broken internal invariant.
//
// Never use it on anything derived from input: input errors are returned as
// absl::Status. It exists for fuzzers and for "cannot happen" states, where
// continuing would corrupt memory.
#ifndef XDSFED_LIB_BASE_CHECK_H_
#define XDSFED_LIB_BASE_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define XDSFED_CHECK(cond)                                               \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: XDSFED_CHECK failed: %s\n", __FILE__, \
                   __LINE__, #cond);                                     \
      std::abort();                                                      \
    }                                                                    \
  } while (false)

#endif  // XDSFED_LIB_BASE_CHECK_H_
