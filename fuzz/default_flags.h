// For LLVMFuzzerInitialize: adds libFuzzer flags to the command line unless
// it already sets them. libFuzzer parses its flags after calling
// LLVMFuzzerInitialize, so a target can carry defaults that CI
// (scripts/test.sh) and scripts/fuzz.sh both get.
//
//   extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
//     xdsfed::fuzz::AddDefaultFlag(argc, argv, "-entropic=", "0");
//     return 0;
//   }
#ifndef XDSFED_FUZZ_DEFAULT_FLAGS_H_
#define XDSFED_FUZZ_DEFAULT_FLAGS_H_

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace xdsfed::fuzz {

// Adds `<prefix><value>` (prefix like "-entropic=") unless an argument
// already starts with prefix. The new argv lives until exit. Call at most
// once per process.
inline void AddDefaultFlag(int* argc, char*** argv, absl::string_view prefix,
                           absl::string_view value) {
  for (int i = 1; i < *argc; ++i) {
    if (absl::StartsWith((*argv)[i], prefix)) return;
  }
  // Held by static pointers: alive and reachable until exit (LeakSanitizer
  // reports an object only pointed into, as a vector's buffer would leave
  // the vector itself).
  static std::string* const flag = new std::string();
  static std::vector<char*>* const args = new std::vector<char*>();
  *flag = std::string(prefix) + std::string(value);
  args->assign(*argv, *argv + *argc);
  args->insert(args->begin() + 1, flag->data());
  args->push_back(nullptr);
  *argc += 1;
  *argv = args->data();
}

}  // namespace xdsfed::fuzz

#endif  // XDSFED_FUZZ_DEFAULT_FLAGS_H_
