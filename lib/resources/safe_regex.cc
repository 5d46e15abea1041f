#include "lib/resources/safe_regex.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace xdsfed {
namespace resources {

absl::StatusOr<std::shared_ptr<const re2::RE2>> CompileSafeRegex(
    absl::string_view pattern, bool case_sensitive) {
  re2::RE2::Options options;
  options.set_case_sensitive(case_sensitive);
  // A hostile pattern is reported in the NACK; RE2 must not also print it.
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(
      re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid RE2 regex: ", re->error()));
  }
  return re;
}

}  // namespace resources
}  // namespace xdsfed
