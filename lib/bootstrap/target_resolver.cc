#include "lib/bootstrap/target_resolver.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/base/status_macros.h"
#include "lib/name/name_template.h"
#include "lib/name/resource_name.h"
#include "lib/name/xds_target.h"

namespace xdsfed {
namespace {

// Picks the servers for a Listener name: an xdstp: name (federation on) uses
// its authority's entry, anything else the top-level list.
absl::Status AssignServers(const Bootstrap& bootstrap,
                           ResolvedListener* resolved) {
  const std::string& name = resolved->listener_resource_name;
  if (!bootstrap.federation() || !IsXdstpName(name)) {
    resolved->xds_servers = bootstrap.servers();
    return absl::OkStatus();
  }
  absl::StatusOr<ResourceName> parsed =
      ResourceName::Parse(name, /*federation=*/true, Bootstrap::kListenerType);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid Listener resource name \"", name,
                     "\": ", parsed.status().message()));
  }
  const Bootstrap::Authority* authority =
      bootstrap.LookupAuthority(parsed->authority);
  if (authority == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "authority \"", parsed->authority, "\" of Listener resource name \"",
        name, "\" is not in the bootstrap's authorities"));
  }
  resolved->authority = parsed->authority;
  resolved->xds_servers = authority->xds_servers;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ResolvedListener> ResolveXdsTarget(const Bootstrap& bootstrap,
                                                  absl::string_view target) {
  XDSFED_ASSIGN_OR_RETURN(XdsTarget parsed, ParseXdsTarget(target));
  ResolvedListener resolved;
  resolved.data_plane_authority = parsed.data_plane_authority;
  if (parsed.authority.has_value() && !parsed.authority->empty()) {
    const Bootstrap::Authority* authority =
        bootstrap.LookupAuthority(*parsed.authority);
    if (authority == nullptr) {
      const std::vector<std::string>& ignored = bootstrap.authorities_ignored();
      if (std::find(ignored.begin(), ignored.end(), *parsed.authority) !=
          ignored.end()) {
        // Not "not in the bootstrap": it is, but the gate hides it.
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid target \"", target, "\": authority \"", *parsed.authority,
            "\" is in the bootstrap's authorities, but federation is off, "
            "which ignores them (gRFC A47: GRPC_EXPERIMENTAL_XDS_FEDERATION="
            "true turns it on)"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid target \"", target, "\": authority \"", *parsed.authority,
          "\" is not in the bootstrap's authorities"));
    }
    // Validated to start with "xdstp://", so the hostname is encoded.
    resolved.listener_resource_name = ExpandListenerTemplate(
        authority->client_listener_resource_name_template, parsed.hostname);
  } else {
    resolved.listener_resource_name = ExpandListenerTemplate(
        bootstrap.client_default_listener_resource_name_template(),
        parsed.hostname);
  }
  XDSFED_RETURN_IF_ERROR(AssignServers(bootstrap, &resolved));
  return resolved;
}

absl::StatusOr<ResolvedListener> ResolveServerListener(
    const Bootstrap& bootstrap, absl::string_view listening_address) {
  XDSFED_ASSIGN_OR_RETURN(std::string address,
                          FormatListeningAddress(listening_address));
  const std::optional<std::string>& tmpl =
      bootstrap.server_listener_resource_name_template();
  if (!tmpl.has_value()) {
    return absl::FailedPreconditionError(
        "bootstrap has no server_listener_resource_name_template, so an "
        "xDS-enabled server cannot start");
  }
  ResolvedListener resolved;
  // A47: the address is percent-encoded only into xdstp: templates; A36
  // leaves other templates' replacement untouched.
  resolved.listener_resource_name = ExpandListenerTemplate(*tmpl, address);
  XDSFED_RETURN_IF_ERROR(AssignServers(bootstrap, &resolved));
  return resolved;
}

}  // namespace xdsfed
