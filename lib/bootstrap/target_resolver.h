// Turns an `xds:` channel target, or the address an xDS-enabled server listens
// on, into the Listener resource to watch and the xDS servers to ask, exactly
// as gRFC A47 §xds Resolver Changes and §xDS-Enabled gRPC Server Changes say.
//
// clang-format off
//   auto r = ResolveXdsTarget(*bootstrap, "xds://xds.other.com/server.other.com");
//   r->listener_resource_name;
//       // "xdstp://xds.other.com/envoy.config.listener.v3.Listener/server.other.com"
//   r->authority;               // "xds.other.com"
//   r->xds_servers;             // the authority's own servers
//   r->data_plane_authority;    // "server.other.com"
// clang-format on
#ifndef XDSFED_LIB_BOOTSTRAP_TARGET_RESOLVER_H_
#define XDSFED_LIB_BOOTSTRAP_TARGET_RESOLVER_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/bootstrap/bootstrap.h"

namespace xdsfed {

struct ResolvedListener {
  std::string listener_resource_name;
  // The authority the name belongs to; nullopt for an old-style name (also
  // every name while federation is off).
  std::optional<std::string> authority;
  Bootstrap::ServerList xds_servers;
  // Client only: the target's path minus its leading '/', percent-encoded as
  // an authority (ParseXdsTarget); used as :authority and to pick the
  // VirtualHost.
  std::string data_plane_authority;
};

// Fails with kInvalidArgument for a malformed target, an authority missing
// from the bootstrap, an empty data-plane authority, or a template that
// produces a malformed Listener name.
absl::StatusOr<ResolvedListener> ResolveXdsTarget(const Bootstrap& bootstrap,
                                                  absl::string_view target);

// `listening_address` is "ip:port" (IPv6 in brackets). Fails with
// kFailedPrecondition when the bootstrap has no
// server_listener_resource_name_template (A36: no default).
absl::StatusOr<ResolvedListener> ResolveServerListener(
    const Bootstrap& bootstrap, absl::string_view listening_address);

}  // namespace xdsfed

#endif  // XDSFED_LIB_BOOTSTRAP_TARGET_RESOLVER_H_
