// Picks the VirtualHost of a RouteConfiguration that serves a domain (the
// data-plane authority on a client, the :authority header on a server), the
// way gRPC and Envoy rank domain patterns: an exact match beats a suffix
// wildcard ("*.example.com"), which beats a prefix wildcard ("example.*"),
// which beats "*"; among patterns of one kind the longest wins; among equals
// the first listed. Matching ignores ASCII case.
//
//   const VirtualHost* vh = FindVirtualHost(route_config.virtual_hosts,
//                                           "svc.example.com");
//   if (vh == nullptr) { /* no virtual host: RPCs fail */ }
#ifndef XDSFED_LIB_RESOURCES_VIRTUAL_HOST_SELECT_H_
#define XDSFED_LIB_RESOURCES_VIRTUAL_HOST_SELECT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace resources {

const VirtualHost* FindVirtualHost(
    const std::vector<VirtualHost>& virtual_hosts, absl::string_view domain);

// Every cluster name the routes of `virtual_host` can send to (route
// `cluster` and `weighted_clusters`), first appearance first, no duplicates.
std::vector<std::string> ClusterNamesOf(const VirtualHost& virtual_host);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_VIRTUAL_HOST_SELECT_H_
