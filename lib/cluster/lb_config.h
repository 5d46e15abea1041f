// The LB policy configs of gRFC A37, with A47's XdsServer for the LRS server
// (A47 §LB Policy Config Changes), built from a resolved cluster tree as
// typed values of the generated schema (schema/lb_config.proto) and written
// as gRPC service-config JSON that the generated loaders read back equal.
// The configs follow what gRPC C-core 1.51 generates (cds.cc and
// xds_cluster_resolver.cc):
//
//   xds_cluster_resolver_experimental  one discovery mechanism per leaf
//   priority_experimental              per mechanism, one child per priority
//     "{cluster=B, child_number=0}": ignore_reresolution_requests (EDS only)
//       xds_cluster_impl_experimental  cluster, EDS service, LRS server,
//                                      max requests, drop categories (EDS)
//         weighted_target_experimental one target per locality, named
//                                      {region="r", zone="z", sub_zone="s"}
//           round_robin                (the endpoint-picking policy)
//         or pick_first                (LOGICAL_DNS: replaces the
//                                      weighted_target, as C-core does)
//
//   std::vector<ResolvedMechanism> resolved = ...;  // from ResolveClusterTree
//   auto resolver = BuildClusterResolverConfig(resolved);
//   std::cout << ServiceConfigJson(WrapPolicy(*resolver));
//   PriorityConfigBuilder builder;  // kept across endpoint updates
//   absl::StatusOr<PriorityConfig> priority = builder.Build(resolved);
//   priority->ToJson();      // [{"priority_experimental":{...}}]
//   priority->children[0];   // child name, localities, weights, addresses
#ifndef XDSFED_LIB_CLUSTER_LB_CONFIG_H_
#define XDSFED_LIB_CLUSTER_LB_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "json/json.h"
#include "lib/bootstrap/xds_server_config.h"
#include "lib/cluster/cluster_tree.h"
#include "lib/cluster/priority_child_names.h"
#include "lib/resources/endpoint.h"
#include "schema/lb_config.xds.h"

namespace xdsfed {
namespace cluster {

// One discovery mechanism with what is known about it.
struct ResolvedMechanism {
  DiscoveryMechanism mechanism;
  // Where load reports go; nullopt = no load reporting. The caller has
  // already expanded `self` (mechanism.lrs_load_reporting_server_is_self)
  // to the server the Cluster came from (A47 §LRS Server Representation).
  std::optional<XdsServerConfig> lrs_server;
  // The EDS result, or a DNS result from EndpointsFromDnsAddresses(). Null,
  // or a resource with no priorities, means the mechanism failed before any
  // result or its resource does not exist: A37 treats it as one priority
  // with no endpoints. Not used by BuildClusterResolverConfig().
  std::shared_ptr<const resources::EndpointResource> endpoints;
};

// A37 §xds_cluster_resolver_experimental LB Policy: a LOGICAL_DNS result is
// "a single priority and a single locality, whose fields are empty"; the
// locality has weight 1 (C-core 1.51). Addresses are kept as given
// ("ip:port"), each with endpoint weight 1; an empty list gives a locality
// with no endpoints.
std::shared_ptr<const resources::EndpointResource> EndpointsFromDnsAddresses(
    absl::string_view cluster_name, const std::vector<std::string>& addresses);

// [{"round_robin":{}}]: the endpoint-picking policy when none is given.
std::vector<schema::LoadBalancingConfig> DefaultXdsLbPolicy();

// The xds_cluster_resolver_experimental config: one discovery mechanism per
// entry, in order. `xds_lb_policy` empty = DefaultXdsLbPolicy(). Fails with
// kInvalidArgument, listing every problem with its field path, when the
// list is empty, a cluster name is empty or repeated (the priority child
// names would collide), or a LOGICAL_DNS entry has no dns_hostname.
absl::StatusOr<schema::XdsClusterResolverLbConfig> BuildClusterResolverConfig(
    absl::Span<const ResolvedMechanism> mechanisms,
    std::vector<schema::LoadBalancingConfig> xds_lb_policy = {});

// One weighted_target target: a locality and its endpoints.
struct LocalityAssignment {
  std::string name;  // the target name: {region="r", zone="z", sub_zone="s"}
  resources::EndpointResource::Locality locality;
  uint32_t weight = 0;
  std::vector<resources::EndpointResource::Endpoint> endpoints;
};

// One child of the priority policy and the endpoints it balances over.
struct PriorityChildAssignment {
  std::string child_name;  // "{cluster=B, child_number=0}"
  size_t mechanism_index = 0;
  std::string cluster;
  size_t priority = 0;                         // within its mechanism's update
  std::vector<LocalityAssignment> localities;  // in locality order
};

struct PriorityConfig {
  schema::PriorityLbConfig config;
  // One per entry of config.priorities, in the same order.
  std::vector<PriorityChildAssignment> children;

  // [{"priority_experimental":{...}}], see ServiceConfigJson().
  Json::Value ToJson() const;
  // For printing beside the config:
  // [{"child":"{cluster=B, child_number=0}","cluster":"B","localities":
  //   [{"locality":"{region=...}","weight":N,
  //     "endpoints":[{"address":"ip:port","weight":N}]}]}]
  Json::Value EndpointsToJson() const;
};

// The priority_experimental config for `mechanisms`, as C-core 1.51's
// xds_cluster_resolver builds it. `namers[i]` is mechanism i's naming state;
// it is updated with mechanism i's endpoints. Fails with kInvalidArgument
// (field paths as for BuildClusterResolverConfig) if the mechanisms are
// invalid or the spans differ in size; the namers are then unchanged.
absl::StatusOr<PriorityConfig> BuildPriorityConfig(
    absl::Span<const ResolvedMechanism> mechanisms,
    absl::Span<PriorityChildNamer> namers,
    const std::vector<schema::LoadBalancingConfig>& xds_lb_policy = {});

// Keeps the naming state for a list of mechanisms across endpoint updates.
// When the mechanism list changes (any field, LRS server included), the
// names start over, as C-core switches to a new xds_cluster_resolver policy
// whenever its discovery mechanisms change.
class PriorityConfigBuilder {
 public:
  explicit PriorityConfigBuilder(
      std::vector<schema::LoadBalancingConfig> xds_lb_policy = {})
      : xds_lb_policy_(std::move(xds_lb_policy)) {}

  absl::StatusOr<PriorityConfig> Build(
      absl::Span<const ResolvedMechanism> mechanisms);

 private:
  std::vector<schema::LoadBalancingConfig> xds_lb_policy_;
  std::vector<DiscoveryMechanism> mechanisms_;
  std::vector<std::optional<XdsServerConfig>> lrs_servers_;
  std::vector<PriorityChildNamer> namers_;
};

// One policy as a list entry.
schema::LoadBalancingConfig WrapPolicy(schema::XdsClusterResolverLbConfig c);
schema::LoadBalancingConfig WrapPolicy(schema::PriorityLbConfig c);

// The service-config JSON of a policy list: [ policy.ToJson() ]. Every
// xds_cluster_impl_experimental config in it has "dropCategories", [] when
// empty, since C-core 1.51 requires that field (the schema's always_emit).
Json::Value ServiceConfigJson(const schema::LoadBalancingConfig& policy);

// Loads a policy list (e.g. ServiceConfigJson's output) with the generated
// loaders, takes its first known policy, which must be of the named kind,
// and checks what the schema leaves to lib/cluster: a LOGICAL_DNS mechanism
// has a dnsHostname, every priority names a child, every nested policy list
// has a known policy. kInvalidArgument with field paths on failure.
absl::StatusOr<schema::XdsClusterResolverLbConfig> ParseClusterResolverConfig(
    const Json::Value& json);
absl::StatusOr<schema::PriorityLbConfig> ParsePriorityConfig(
    const Json::Value& json);

// The checks of the Parse functions on an already-loaded policy; `prefix`
// starts the error message.
absl::Status CheckLbPolicy(const schema::LoadBalancingConfig& policy,
                           absl::string_view prefix);

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_LB_CONFIG_H_
