// Cluster (CDS) decoding and validation. Rules and error wording follow gRPC
// C-core 1.51 src/core/ext/xds/xds_cluster.cc, restricted to the fields our
// proto/ has; A37 §Validation for LOGICAL_DNS and aggregate clusters; A47
// §CDS Resource Validation and §xDS API Changes for xdstp: names and `self`.
#include "lib/resources/cluster.h"

#include <climits>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "google/protobuf/arena.h"
#include "lib/base/validation_errors.h"
#include "lib/name/name_template.h"
#include "lib/resources/cluster_fast.h"
#include "lib/resources/internal/wire_nesting.h"

namespace xdsfed {
namespace resources {

namespace {

using envoy::config::cluster::v3::Cluster;

constexpr absl::string_view kAggregateClusterConfig =
    "envoy.extensions.clusters.aggregate.v3.ClusterConfig";
constexpr absl::string_view kUpstreamTlsContext =
    "envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext";

// type: EDS (gRPC 1.51 EdsConfigParse; A47 §xDS API Changes allows `self`).
ClusterResource::Eds ParseEds(const DecodeContext& context,
                              const Cluster& cluster,
                              ValidationErrors* errors) {
  ClusterResource::Eds eds;
  ValidationErrors::ScopedField field(errors, ".eds_cluster_config");
  if (!cluster.has_eds_cluster_config()) {
    errors->AddError("field not present");
    return eds;
  }
  const Cluster::EdsClusterConfig& config = cluster.eds_cluster_config();
  {
    ValidationErrors::ScopedField field2(errors, ".eds_config");
    if (!config.has_eds_config()) {
      errors->AddError("field not present");
    } else if (!config.eds_config().has_ads() &&
               !config.eds_config().has_self()) {
      errors->AddError("ConfigSource is not ads or self");
    }
  }
  eds.eds_service_name = config.service_name();
  // A47 §CDS Resource Validation: the default (the cluster's own name) would
  // name a resource of the CDS type, so an xdstp: cluster must say which
  // EDS resource it means.
  if (context.federation && eds.eds_service_name.empty() &&
      IsXdstpName(cluster.name())) {
    ValidationErrors::ScopedField field2(errors, ".service_name");
    errors->AddError("must be set if Cluster resource has an xdstp name");
  }
  return eds;
}

// type: LOGICAL_DNS (A37 §Validation; gRPC 1.51 LogicalDnsParse).
ClusterResource::LogicalDns ParseLogicalDns(const Cluster& cluster,
                                            ValidationErrors* errors) {
  ClusterResource::LogicalDns dns;
  ValidationErrors::ScopedField field(errors, ".load_assignment");
  if (!cluster.has_load_assignment()) {
    errors->AddError("field not present for LOGICAL_DNS cluster");
    return dns;
  }
  const auto& localities = cluster.load_assignment().endpoints();
  ValidationErrors::ScopedField field2(errors, ".endpoints");
  if (localities.size() != 1) {
    errors->AddError(absl::StrCat(
        "must contain exactly one locality for LOGICAL_DNS cluster, found ",
        localities.size()));
    return dns;
  }
  const auto& lb_endpoints = localities[0].lb_endpoints();
  ValidationErrors::ScopedField field3(errors, "[0].lb_endpoints");
  if (lb_endpoints.size() != 1) {
    errors->AddError(absl::StrCat(
        "must contain exactly one endpoint for LOGICAL_DNS cluster, found ",
        lb_endpoints.size()));
    return dns;
  }
  ValidationErrors::ScopedField field4(errors, "[0].endpoint");
  if (!lb_endpoints[0].has_endpoint()) {
    errors->AddError("field not present");
    return dns;
  }
  const auto& endpoint = lb_endpoints[0].endpoint();
  ValidationErrors::ScopedField field5(errors, ".address");
  if (!endpoint.has_address()) {
    errors->AddError("field not present");
    return dns;
  }
  ValidationErrors::ScopedField field6(errors, ".socket_address");
  if (!endpoint.address().has_socket_address()) {
    errors->AddError("field not present");
    return dns;
  }
  const auto& socket_address = endpoint.address().socket_address();
  if (!socket_address.resolver_name().empty()) {
    ValidationErrors::ScopedField field7(errors, ".resolver_name");
    errors->AddError(
        "LOGICAL_DNS clusters must NOT have a custom resolver name set");
  }
  if (socket_address.address().empty()) {
    ValidationErrors::ScopedField field7(errors, ".address");
    errors->AddError("field not present");
  }
  {
    ValidationErrors::ScopedField field7(errors, ".port_value");
    if (!socket_address.has_port_value()) {
      errors->AddError("field not present");
    } else if (socket_address.port_value() > 65535) {
      // gRPC would pass "host:70000" on to the resolver, which fails later;
      // rejecting it here names the field.
      errors->AddError("must be at most 65535");
    }
  }
  dns.dns_host = socket_address.address();
  dns.dns_port = socket_address.port_value();
  return dns;
}

// cluster_type (A37 §Validation; gRPC 1.51 CdsResourceParse).
ClusterResource::Aggregate ParseAggregate(google::protobuf::Arena* arena,
                                          const Cluster& cluster,
                                          ValidationErrors* errors) {
  ClusterResource::Aggregate aggregate;
  ValidationErrors::ScopedField field(errors, ".cluster_type");
  ValidationErrors::ScopedField field2(errors, ".typed_config");
  if (!cluster.cluster_type().has_typed_config()) {
    errors->AddError("field not present");
    return aggregate;
  }
  const auto& typed_config = cluster.cluster_type().typed_config();
  const absl::string_view type_url =
      absl::StripPrefix(typed_config.type_url(), kTypeUrlPrefix);
  if (type_url != kAggregateClusterConfig) {
    ValidationErrors::ScopedField field3(errors, ".type_url");
    errors->AddError(
        absl::StrCat("unknown cluster_type extension: ", type_url));
    return aggregate;
  }
  ValidationErrors::ScopedField field3(
      errors, absl::StrCat(".value[", kAggregateClusterConfig, "]"));
  auto* config = google::protobuf::Arena::CreateMessage<
      envoy::extensions::clusters::aggregate::v3::ClusterConfig>(arena);
  if (!config->ParseFromString(typed_config.value())) {
    errors->AddError("can't parse aggregate cluster config");
    return aggregate;
  }
  if (config->clusters().empty()) {
    ValidationErrors::ScopedField field4(errors, ".clusters");
    errors->AddError("must be non-empty");
    return aggregate;
  }
  aggregate.prioritized_cluster_names.assign(config->clusters().begin(),
                                             config->clusters().end());
  return aggregate;
}

ClusterResource Validate(const DecodeContext& context,
                         google::protobuf::Arena* arena, const Cluster& cluster,
                         ValidationErrors* errors) {
  ClusterResource value;
  value.name = cluster.name();
  // Discovery type. An unset oneof reads as type STATIC.
  if (cluster.has_type() && cluster.type() == Cluster::EDS) {
    value.kind = ParseEds(context, cluster, errors);
  } else if (cluster.has_type() && cluster.type() == Cluster::LOGICAL_DNS) {
    value.kind = ParseLogicalDns(cluster, errors);
  } else if (cluster.has_cluster_type()) {
    value.kind = ParseAggregate(arena, cluster, errors);
  } else {
    ValidationErrors::ScopedField field(errors, ".type");
    errors->AddError("unknown discovery type");
  }
  // LB policy. Without ring_hash_lb_config in our proto, RING_HASH gets
  // gRPC's default ring sizes (the value's initializers).
  switch (cluster.lb_policy()) {
    case Cluster::ROUND_ROBIN:
      value.lb_policy = ClusterResource::LbPolicy::kRoundRobin;
      break;
    case Cluster::RING_HASH:
      value.lb_policy = ClusterResource::LbPolicy::kRingHash;
      break;
    default: {
      ValidationErrors::ScopedField field(errors, ".lb_policy");
      errors->AddError("LB policy is not supported");
    }
  }
  // transport_socket: gRPC accepts only an UpstreamTlsContext (A29 §CDS for
  // Client Side Security; C-core 1.51 UpstreamTlsContextParse).
  if (cluster.has_transport_socket()) {
    ValidationErrors::ScopedField field(errors, ".transport_socket");
    ValidationErrors::ScopedField field2(errors, ".typed_config");
    if (!cluster.transport_socket().has_typed_config()) {
      errors->AddError("field not present");
    } else {
      const auto& any = cluster.transport_socket().typed_config();
      const absl::string_view type_url =
          absl::StripPrefix(any.type_url(), kTypeUrlPrefix);
      if (type_url != kUpstreamTlsContext) {
        ValidationErrors::ScopedField field3(errors, ".type_url");
        errors->AddError(
            absl::StrCat("unrecognized transport socket type: ", type_url));
      } else {
        ValidationErrors::ScopedField field3(
            errors, absl::StrCat(".value[", kUpstreamTlsContext, "]"));
        value.upstream_tls = ParseUpstreamTlsContext(
            any.value(), errors, context.certificate_provider_instances);
      }
    }
  }
  // LRS server: only `self` (A47 §LRS Server Representation); the client
  // substitutes the server the Cluster came from.
  if (cluster.has_lrs_server()) {
    if (!cluster.lrs_server().has_self()) {
      ValidationErrors::ScopedField field(errors, ".lrs_server");
      errors->AddError("ConfigSource is not self");
    }
    value.lrs_load_reporting_server_is_self = true;
  }
  // Circuit breaking: the first thresholds entry for priority DEFAULT only.
  for (const auto& threshold : cluster.circuit_breakers().thresholds()) {
    if (threshold.priority() != envoy::config::core::v3::DEFAULT) continue;
    if (threshold.has_max_requests()) {
      value.max_concurrent_requests = threshold.max_requests().value();
    }
    break;
  }
  return value;
}

class ClusterType final : public XdsResourceType<ClusterResource> {
 public:
  absl::string_view type_url() const override { return kClusterTypeUrl; }
  absl::string_view short_name() const override { return "Cluster"; }
  bool all_resources_required_in_sotw() const override { return true; }

 protected:
  absl::StatusOr<ClusterResource> DecodeValue(
      const DecodeContext& context, absl::string_view serialized,
      std::string* name) const override {
    return DecodeCluster(context, serialized, name);
  }
};

const char* LbPolicyName(ClusterResource::LbPolicy policy) {
  switch (policy) {
    case ClusterResource::LbPolicy::kRoundRobin:
      return "ROUND_ROBIN";
    case ClusterResource::LbPolicy::kRingHash:
      return "RING_HASH";
  }
  return "UNKNOWN";
}

}  // namespace

std::string ClusterResource::LogicalDns::HostPort() const {
  if (absl::StrContains(dns_host, ':')) {
    return absl::StrCat("[", dns_host, "]:", dns_port);
  }
  return absl::StrCat(dns_host, ":", dns_port);
}

bool ClusterResource::operator==(const ClusterResource& other) const {
  return name == other.name && kind == other.kind &&
         lb_policy == other.lb_policy && min_ring_size == other.min_ring_size &&
         max_ring_size == other.max_ring_size &&
         max_concurrent_requests == other.max_concurrent_requests &&
         lrs_load_reporting_server_is_self ==
             other.lrs_load_reporting_server_is_self &&
         upstream_tls == other.upstream_tls;
}

Json::Value ClusterResource::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  if (const auto* eds = std::get_if<Eds>(&kind)) {
    out["type"] = "EDS";
    out["eds_service_name"] = eds->eds_service_name;
  } else if (const auto* dns = std::get_if<LogicalDns>(&kind)) {
    out["type"] = "LOGICAL_DNS";
    out["dns_host"] = dns->dns_host;
    out["dns_port"] = dns->dns_port;
  } else if (const auto* aggregate = std::get_if<Aggregate>(&kind)) {
    out["type"] = "AGGREGATE";
    Json::Value names(Json::arrayValue);
    for (const std::string& child : aggregate->prioritized_cluster_names) {
      names.append(child);
    }
    out["prioritized_cluster_names"] = std::move(names);
  }
  out["lb_policy"] = LbPolicyName(lb_policy);
  if (lb_policy == LbPolicy::kRingHash) {
    out["min_ring_size"] = Json::UInt64(min_ring_size);
    out["max_ring_size"] = Json::UInt64(max_ring_size);
  }
  out["max_concurrent_requests"] = max_concurrent_requests;
  out["lrs_load_reporting_server_is_self"] = lrs_load_reporting_server_is_self;
  if (upstream_tls.has_value()) out["upstream_tls"] = upstream_tls->ToJson();
  return out;
}

absl::StatusOr<ClusterResource> DecodeCluster(const DecodeContext& context,
                                              absl::string_view serialized,
                                              std::string* name) {
  // Most clusters take the wire reader in cluster_fast.cc, which gives the
  // same value without building protobuf messages; it leaves anything
  // unusual and every error to the libprotobuf path, so error messages come
  // from one validator.
  ClusterResource value;
  if (internal::FastDecodeCluster(context, serialized, &value)) {
    if (name != nullptr) *name = value.name;
    return value;
  }
  return internal::DecodeClusterWithProtobuf(context, serialized, name);
}

namespace internal {

absl::StatusOr<ClusterResource> DecodeClusterWithProtobuf(
    const DecodeContext& context, absl::string_view serialized,
    std::string* name) {
  if (name != nullptr) name->clear();
  google::protobuf::Arena arena;
  auto* cluster = google::protobuf::Arena::CreateMessage<Cluster>(&arena);
  if (serialized.size() > static_cast<size_t>(INT_MAX) ||
      !cluster->ParseFromArray(serialized.data(),
                               static_cast<int>(serialized.size()))) {
    return absl::InvalidArgumentError(
        DecodeFailureMessage("cannot decode Cluster resource",
                             *cluster->GetDescriptor(), serialized));
  }
  if (name != nullptr) *name = cluster->name();
  ValidationErrors errors;
  ClusterResource value = Validate(context, &arena, *cluster, &errors);
  if (!errors.ok()) return errors.status("errors validating Cluster resource");
  return value;
}

}  // namespace internal

template <>
const XdsResourceType<ClusterResource>&
XdsResourceType<ClusterResource>::Get() {
  // The fast path's one-time descriptor check (it may build the messages'
  // descriptors: up to a few ms) runs here, when a client first registers
  // the type, rather than on its first response.
  static const ClusterType* const kType =
      (internal::ClusterFastPathAvailable(), new ClusterType());
  return *kType;
}

const XdsResourceType<ClusterResource>& ClusterResourceType() {
  return XdsResourceType<ClusterResource>::Get();
}

}  // namespace resources
}  // namespace xdsfed
