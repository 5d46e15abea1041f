// RFC 3986 URI references split into their five components, for xds: channel
// targets and xdstp: resource names.
//
//   auto uri = ParseUri("xds://a.com/svc?x=1#f");
//   // uri->scheme == "xds", uri->has_authority, uri->authority == "a.com",
//   // uri->path == "/svc", uri->query == "x=1", uri->fragment == "f"
//
// Components are kept as written (still percent-encoded); callers decode what
// they need with PercentDecode.
#ifndef XDSFED_LIB_NAME_URI_H_
#define XDSFED_LIB_NAME_URI_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

struct Uri {
  std::string scheme;          // lower-cased
  bool has_authority = false;  // "//" present
  std::string authority;
  std::string path;
  bool has_query = false;  // "?" present
  std::string query;
  bool has_fragment = false;  // "#" present
  std::string fragment;

  // Re-assembles the URI (RFC 3986 §5.3). ParseUri(ToString()) == *this.
  std::string ToString() const;

  bool operator==(const Uri& o) const {
    return scheme == o.scheme && has_authority == o.has_authority &&
           authority == o.authority && path == o.path &&
           has_query == o.has_query && query == o.query &&
           has_fragment == o.has_fragment && fragment == o.fragment;
  }
};

// Parses an absolute URI: scheme ":" ["//" authority] path ["?" query]
// ["#" fragment]. Errors (prefixed "invalid uri: "): empty or malformed
// scheme, bytes outside the component's RFC 3986 class (control, space,
// non-ASCII, ...), and malformed percent-escapes. Unlike gRPC C-core's
// permissive parser, a '%' not followed by two hex digits is an error rather
// than a literal '%'.
absl::StatusOr<Uri> ParseUri(absl::string_view text);

// Parses a gRPC channel target the way gRPC C-core's URI parser does, so that
// every target a gRPC channel accepts (`xds:///[::1]:8080`, `xds:///a b`,
// `xds:///50%off`) parses here too. The scheme is checked as by ParseUri; the
// authority and the path are taken as written, any byte but their delimiters
// (C-core does not police them); a query must be non-empty, and a query or
// fragment may hold only RFC 3986 query characters and '%' (C-core checks
// those). Decode components with PercentDecodeLenient.
absl::StatusOr<Uri> ParseTargetUri(absl::string_view text);

}  // namespace xdsfed

#endif  // XDSFED_LIB_NAME_URI_H_
