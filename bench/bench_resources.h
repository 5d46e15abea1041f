// Large xDS resources for the issue-4 benchmarks (ingestion_bench,
// ack_latency_bench): ClusterLoadAssignments with thousands of endpoints,
// RouteConfigurations with thousands of virtual hosts, thousands of Clusters,
// and the Listener that starts a chain. Every builder takes a `version`: two
// versions differ in every endpoint / virtual host / cluster, so a client
// that compares values (ResourceType::Equal) sees a real change each time.
//
//   auto cla = bench::MakeClusterLoadAssignment("eds-a", 10000, version);
//   std::string bytes = bench::SerializeResponse(
//       bench::kEdsTypeUrl, "v1", "n1", {&cla});
#ifndef XDSFED_BENCH_BENCH_RESOURCES_H_
#define XDSFED_BENCH_BENCH_RESOURCES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "google/protobuf/message.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace bench {

inline constexpr absl::string_view kLdsTypeUrl = resources::kListenerTypeUrl;
inline constexpr absl::string_view kRdsTypeUrl = resources::kRouteConfigTypeUrl;
inline constexpr absl::string_view kCdsTypeUrl = resources::kClusterTypeUrl;
inline constexpr absl::string_view kEdsTypeUrl = resources::kEndpointTypeUrl;

// Endpoints per locality in the generated assignments (a large zone).
inline constexpr int kEndpointsPerLocality = 100;

// `endpoints` endpoints at priority 0, kEndpointsPerLocality per locality
// (region "us-east1", zones "zone-<k>", weight 1), each "10.a.b.c:port" with
// the port taken from `version`.
envoy::config::endpoint::v3::ClusterLoadAssignment MakeClusterLoadAssignment(
    absl::string_view name, int endpoints, int version);

// For clients that build an LB tree (gRPC's): priority 0 is one locality
// holding only `backend_host`:`backend_port` (a live backend, so the priority
// policy never fails over), priority 1 holds the other `endpoints` - 1,
// generated as above. Same decoding work as MakeClusterLoadAssignment, but
// the client never connects to the made-up addresses.
envoy::config::endpoint::v3::ClusterLoadAssignment
MakeFailoverClusterLoadAssignment(absl::string_view name, int endpoints,
                                  int version, absl::string_view backend_host,
                                  int backend_port);

// The shared harness's EDS scale case (../shared/peers, tools/
// eds_snapshot.js), the same bytes but for the backend's port: one locality
// {r1, z1, s1} of weight 1; endpoint 0 is `backend_host`:`backend_port`,
// HEALTHY, weight 1 + version % 2 (what a push toggles); endpoints 1..N-1
// are UNHEALTHY, 127.<1 + i/65536>.<i/256 % 256>.<i % 256>:<20000 + i %
// 20000>, weight 1: decoded and validated, never connected to.
envoy::config::endpoint::v3::ClusterLoadAssignment
MakeHarnessClusterLoadAssignment(absl::string_view name, int endpoints,
                                 int version, absl::string_view backend_host,
                                 int backend_port);

// The harness's RDS scale case: hosts vh1..vh<N-1> {domains
// ["svc<i>.example.com"], prefix "/p<i>/" -> `cluster`}, then vh-real
// {domains ["*"], prefix "" -> `cluster`, timeout 1 + version % 2 seconds}.
envoy::config::route::v3::RouteConfiguration MakeHarnessRouteConfiguration(
    absl::string_view name, int virtual_hosts, int version,
    absl::string_view cluster);

// `virtual_hosts` virtual hosts, each one domain and one route. Virtual host
// 0 is {domains: [first_domain], prefix "" -> first_cluster}; host i > 0 is
// {domains: ["svc-<i>.v<version>.example.com"], prefix "/svc-<i>/" ->
// "cluster-<i>"}.
envoy::config::route::v3::RouteConfiguration MakeRouteConfiguration(
    absl::string_view name, int virtual_hosts, int version,
    absl::string_view first_domain, absl::string_view first_cluster);

// An EDS cluster (eds_config: ads) reading `service_name`, ROUND_ROBIN, with
// a circuit breaker whose max_requests depends on `version`.
envoy::config::cluster::v3::Cluster MakeEdsCluster(
    absl::string_view name, absl::string_view service_name, int version);

// An API listener whose HttpConnectionManager gets `route_config_name` over
// RDS (ADS) and runs the router filter.
envoy::config::listener::v3::Listener MakeApiListener(
    absl::string_view name, absl::string_view route_config_name);

// A serialized DiscoveryResponse carrying `resources` (each packed in an Any
// of `type_url`).
std::string SerializeResponse(
    absl::string_view type_url, absl::string_view version,
    absl::string_view nonce,
    const std::vector<const google::protobuf::Message*>& resources);

}  // namespace bench
}  // namespace xdsfed

#endif  // XDSFED_BENCH_BENCH_RESOURCES_H_
