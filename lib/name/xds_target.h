// The pure pieces of A47 §gRPC Client Target URI Syntax and §xDS-Enabled gRPC
// Server Changes: splitting an "xds:" channel target and canonicalizing a
// server's listening address. Bootstrap-based resolution is in lib/bootstrap.
//
//   auto t = ParseXdsTarget("xds://xds.authority.com/server.example.com");
//   // t->authority == "xds.authority.com",
//   // t->hostname == "server.example.com",
//   // t->data_plane_authority == "server.example.com"
//   auto a = FormatListeningAddress("[::1]:8080");  // "[::1]:8080"
#ifndef XDSFED_LIB_NAME_XDS_TARGET_H_
#define XDSFED_LIB_NAME_XDS_TARGET_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

struct XdsTarget {
  // The target's authority, decoded: the bootstrap authority to use. Unset for
  // "xds:x" and, as in gRPC C-core, for an empty one ("xds:///x").
  std::optional<std::string> authority;
  // Path minus its leading '/', percent-decoded: what %s is replaced by
  // (percent-encoded again for an xdstp: template, verbatim otherwise).
  std::string hostname;
  // The channel's default authority (:authority, VirtualHost selection): the
  // hostname percent-encoded as an authority, so '/' becomes %2F.
  std::string data_plane_authority;
};

// Parses "xds:[//authority]/path" as gRPC C-core does (ParseTargetUri,
// PercentDecodeLenient): any byte is accepted in the authority and the path,
// and a '%' not followed by two hex digits stays a literal '%'. Errors: no
// scheme, scheme other than xds, bad query or fragment, and (C-core's
// IsValidUri) an empty path or one ending in '/'.
absl::StatusOr<XdsTarget> ParseXdsTarget(absl::string_view target);

// Validates "ip:port" (IPv4 dotted quad, or IPv6 in brackets; port 0-65535)
// and returns the canonical form used for %s: IPv4 as written without leading
// zeros, IPv6 compressed lower-case (RFC 5952) in brackets, port decimal
// without leading zeros.
absl::StatusOr<std::string> FormatListeningAddress(absl::string_view ip_port);

}  // namespace xdsfed

#endif  // XDSFED_LIB_NAME_XDS_TARGET_H_
