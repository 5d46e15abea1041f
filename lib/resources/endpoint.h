// The EDS resource (envoy.config.endpoint.v3.ClusterLoadAssignment), decoded
// and validated by the gRPC C-core 1.51 rules (xds_endpoint.cc) into an
// immutable value: endpoints grouped by priority and locality, plus the drop
// categories the client applies before picking an endpoint.
//
//   const auto& eds = resources::EndpointResourceType();
//   resources::DecodeResult r = eds.Decode(context, bytes);
//   if (!r.value.ok()) return r.value.status();
//   const resources::EndpointResource& cla = *eds.Cast(r.value->get());
//   for (size_t p = 0; p < cla.priorities.size(); ++p) {
//     for (const auto& [locality, group] : cla.priorities[p].localities) {
//       // group.weight > 0; group.endpoints: {"10.0.0.1:443", ...}
//     }
//   }
#ifndef XDSFED_LIB_RESOURCES_ENDPOINT_H_
#define XDSFED_LIB_RESOURCES_ENDPOINT_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "json/json.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {

struct EndpointResource {
  // envoy.config.core.v3.HealthStatus. gRPC 1.51 drops endpoints in any
  // other state than UNKNOWN and HEALTHY, so only those two appear.
  enum class HealthStatus { kUnknown, kHealthy };

  struct Endpoint {
    // "ip:port" in canonical form ("10.0.0.1:80", "[2001:db8::1]:80").
    std::string address;
    HealthStatus health_status = HealthStatus::kUnknown;
    uint32_t load_balancing_weight = 1;  // > 0; 1 when unset
    bool operator==(const Endpoint& other) const {
      return address == other.address && health_status == other.health_status &&
             load_balancing_weight == other.load_balancing_weight;
    }
  };

  struct Locality {
    std::string region, zone, sub_zone;
    bool operator==(const Locality& other) const {
      return region == other.region && zone == other.zone &&
             sub_zone == other.sub_zone;
    }
    bool operator<(const Locality& other) const {
      return std::tie(region, zone, sub_zone) <
             std::tie(other.region, other.zone, other.sub_zone);
    }
    // {region="r", zone="z", sub_zone="s"}
    std::string ToString() const;
  };

  struct LocalityEndpoints {
    uint32_t weight = 0;  // > 0: localities without weight are left out
    std::vector<Endpoint> endpoints;  // in resource order; may be empty
    bool operator==(const LocalityEndpoints& other) const {
      return weight == other.weight && endpoints == other.endpoints;
    }
  };

  struct Priority {
    std::map<Locality, LocalityEndpoints> localities;  // never empty
    bool operator==(const Priority& other) const {
      return localities == other.localities;
    }
  };

  struct DropCategory {
    std::string name;            // not empty
    uint32_t parts_per_million;  // 0..1,000,000
    bool operator==(const DropCategory& other) const {
      return name == other.name && parts_per_million == other.parts_per_million;
    }
  };

  std::string cluster_name;
  // Indexed by priority (0 = highest), without gaps.
  std::vector<Priority> priorities;
  // policy.drop_overloads, in order.
  std::vector<DropCategory> drop_categories;

  // True if some category drops every request.
  bool DropsAll() const;

  bool operator==(const EndpointResource& other) const {
    return cluster_name == other.cluster_name &&
           priorities == other.priorities &&
           drop_categories == other.drop_categories;
  }
  bool operator!=(const EndpointResource& other) const {
    return !(*this == other);
  }

  // {"cluster_name":...,
  //  "priorities":[{"priority":0,"localities":[{"locality":{"region":..,
  //      "zone":..,"sub_zone":..},"weight":N,"endpoints":[{"address":"ip:port",
  //      "health_status":"UNKNOWN"|"HEALTHY","load_balancing_weight":N}]}]}],
  //  "drop_categories":[{"category":..,"parts_per_million":N}]}
  Json::Value ToJson() const;
};

// Decodes and validates one serialized ClusterLoadAssignment. Every problem
// is reported in one kInvalidArgument "errors validating
// ClusterLoadAssignment resource: [...]" with field paths. `name` (optional)
// receives cluster_name whenever the bytes parse.
absl::StatusOr<EndpointResource> DecodeClusterLoadAssignment(
    const DecodeContext& context, absl::string_view serialized,
    std::string* name = nullptr);

// The client's resource type for EndpointResource (the same object as
// XdsResourceType<EndpointResource>::Get()).
template <>
const XdsResourceType<EndpointResource>&
XdsResourceType<EndpointResource>::Get();
const XdsResourceType<EndpointResource>& EndpointResourceType();

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_ENDPOINT_H_
