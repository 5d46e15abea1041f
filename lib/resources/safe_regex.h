// RE2 compilation of the `safe_regex` matchers of RouteConfigurations
// (envoy.type.matcher.v3.RegexMatcher), shared by the validators, which NACK
// a pattern RE2 rejects (as gRPC does), and by lib/routing, which matches
// with the compiled object:
//
//   absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
//       resources::CompileSafeRegex("/svc/(Get|List).*", true);
//   if (!re.ok()) errors->AddError(re.status().message());
//   bool m = re2::RE2::FullMatch(path, **re);  // safe_regex is a full match
//
// The object is immutable once built; RE2 allows concurrent matching on one
// object, so it is shared as shared_ptr<const RE2> across copies of a value.
#ifndef XDSFED_LIB_RESOURCES_SAFE_REGEX_H_
#define XDSFED_LIB_RESOURCES_SAFE_REGEX_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace xdsfed {
namespace resources {

// Compiles `pattern` with RE2's default syntax (UTF-8, Perl classes), ASCII
// case folded when !case_sensitive, and RE2's default 8 MiB program budget
// (a larger pattern is an error, which bounds what one regex can cost).
// Errors: InvalidArgument "not a valid RE2 regex: <RE2's reason>".
absl::StatusOr<std::shared_ptr<const re2::RE2>> CompileSafeRegex(
    absl::string_view pattern, bool case_sensitive);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_SAFE_REGEX_H_
