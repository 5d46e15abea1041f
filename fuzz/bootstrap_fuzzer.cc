// Bootstrap loader fuzzer. Invariants, with the federation gate on and off:
// - parsing never crashes, throws or aborts;
// - every error names a field path or says the JSON is malformed;
// - a loaded bootstrap writes bootstrap JSON that loads back to an equal one;
// - Parse, which loads "authorities" one entry at a time, gives what FromJson
//   gives for the whole tree: the same value, warnings, or error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lib/base/check.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/json/json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<Json::Value> json = xdsfed::ParseJsonText(text);
  for (bool federation : {true, false}) {
    auto bootstrap = xdsfed::Bootstrap::Parse(text, federation);
    auto whole =
        json.ok()
            ? xdsfed::Bootstrap::FromJson(*json, federation)
            : absl::InvalidArgumentError(absl::StrCat(
                  "errors validating bootstrap: ", json.status().message()));
    XDSFED_CHECK(bootstrap.ok() == whole.ok());
    if (bootstrap.ok()) {
      XDSFED_CHECK(**bootstrap == **whole);
      XDSFED_CHECK((*bootstrap)->warnings() == (*whole)->warnings());
    } else {
      XDSFED_CHECK(bootstrap.status() == whole.status());
    }
    if (!bootstrap.ok()) {
      const absl::string_view message = bootstrap.status().message();
      XDSFED_CHECK(absl::StartsWith(message, "errors validating bootstrap: "));
      XDSFED_CHECK(absl::StrContains(message, "[field:") ||
                   absl::StrContains(message, "malformed JSON"));
      continue;
    }
    XDSFED_CHECK((*bootstrap)->federation() == federation);
    auto again = xdsfed::Bootstrap::FromJson((*bootstrap)->ToBootstrapJson(),
                                             federation);
    XDSFED_CHECK(again.ok());
    XDSFED_CHECK(**again == **bootstrap);
  }
  return 0;
}
