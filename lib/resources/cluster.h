// The CDS resource (envoy.config.cluster.v3.Cluster), decoded and validated
// by the gRPC rules (gRPC C-core 1.51 xds_cluster.cc, gRFC A37 §Validation,
// A47 §CDS Resource Validation) into an immutable value. lib/cluster builds
// the A37 cluster tree from these values.
//
//   const auto& cds = resources::ClusterResourceType();
//   resources::DecodeContext context;
//   context.federation = true;
//   resources::DecodeResult r = cds.Decode(context, bytes);
//   if (r.value.ok()) {
//     const resources::ClusterResource& cluster = *cds.Cast(r.value->get());
//     if (const auto* eds = std::get_if<resources::ClusterResource::Eds>(
//             &cluster.kind)) {
//       Watch(eds->EdsResourceName(cluster.name));
//     }
//   }
#ifndef XDSFED_LIB_RESOURCES_CLUSTER_H_
#define XDSFED_LIB_RESOURCES_CLUSTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "json/json.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/upstream_tls_context.h"

namespace xdsfed {
namespace resources {

struct ClusterResource {
  // type: EDS. Endpoints come from the ClusterLoadAssignment named
  // eds_service_name, or the cluster's own name when that is empty.
  struct Eds {
    std::string eds_service_name;  // may be an xdstp: name
    // The EDS resource to watch for the cluster called cluster_name.
    const std::string& EdsResourceName(const std::string& cluster_name) const {
      return eds_service_name.empty() ? cluster_name : eds_service_name;
    }
    bool operator==(const Eds& other) const {
      return eds_service_name == other.eds_service_name;
    }
  };
  // type: LOGICAL_DNS (A37): one host name resolved by DNS.
  struct LogicalDns {
    std::string dns_host;  // socket_address.address, not empty
    uint32_t dns_port = 0;
    // "host:port", with the host in brackets if it contains ':' (IPv6).
    std::string HostPort() const;
    bool operator==(const LogicalDns& other) const {
      return dns_host == other.dns_host && dns_port == other.dns_port;
    }
  };
  // cluster_type envoy.extensions.clusters.aggregate.v3.ClusterConfig (A37):
  // child cluster names, highest priority first; never empty.
  struct Aggregate {
    std::vector<std::string> prioritized_cluster_names;
    bool operator==(const Aggregate& other) const {
      return prioritized_cluster_names == other.prioritized_cluster_names;
    }
  };

  enum class LbPolicy { kRoundRobin, kRingHash };
  // Ring sizes for kRingHash. Our Cluster proto has no ring_hash_lb_config,
  // so these are always gRPC's defaults.
  static constexpr uint64_t kDefaultMinRingSize = 1024;
  static constexpr uint64_t kDefaultMaxRingSize = 8 * 1024 * 1024;

  std::string name;
  std::variant<Eds, LogicalDns, Aggregate> kind;
  LbPolicy lb_policy = LbPolicy::kRoundRobin;
  uint64_t min_ring_size = kDefaultMinRingSize;
  uint64_t max_ring_size = kDefaultMaxRingSize;
  // circuit_breakers: max_requests of the first thresholds entry with
  // priority DEFAULT, else 1024.
  uint32_t max_concurrent_requests = 1024;
  // lrs_server was set (it can only be `self`): load reports go to the xDS
  // server this Cluster came from (A47 §LRS Server Representation).
  bool lrs_load_reporting_server_is_self = false;
  // transport_socket's UpstreamTlsContext (A29): connections to this
  // cluster's endpoints use TLS with these settings. None: plaintext.
  std::optional<UpstreamTlsContext> upstream_tls;

  bool operator==(const ClusterResource& other) const;
  bool operator!=(const ClusterResource& other) const {
    return !(*this == other);
  }

  // {"name":..., "type":"EDS"|"LOGICAL_DNS"|"AGGREGATE", then per type
  //  "eds_service_name" | "dns_host","dns_port" | "prioritized_cluster_names",
  //  "lb_policy":"ROUND_ROBIN"|"RING_HASH" (+ "min_ring_size",
  //  "max_ring_size" for RING_HASH), "max_concurrent_requests",
  //  "lrs_load_reporting_server_is_self", and "upstream_tls" when set}
  Json::Value ToJson() const;
};

// Decodes and validates one serialized Cluster. Every problem is reported
// in one kInvalidArgument "errors validating Cluster resource: [...]" with
// field paths. `name` (optional) receives the resource's name whenever the
// bytes parse.
absl::StatusOr<ClusterResource> DecodeCluster(const DecodeContext& context,
                                              absl::string_view serialized,
                                              std::string* name = nullptr);

// The client's resource type for ClusterResource (the same object as
// XdsResourceType<ClusterResource>::Get()).
template <>
const XdsResourceType<ClusterResource>& XdsResourceType<ClusterResource>::Get();
const XdsResourceType<ClusterResource>& ClusterResourceType();

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_CLUSTER_H_
