#include "lib/resources/cluster_fast.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/strip.h"
#include "envoy/config/cluster/v3/circuit_breaker.pb.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/core/v3/base.pb.h"
#include "envoy/config/core/v3/config_source.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/wrappers.pb.h"
#include "lib/name/name_template.h"
#include "lib/resources/internal/descriptor_signature.h"
#include "lib/resources/internal/wire_reader.h"

namespace xdsfed {
namespace resources {
namespace internal {

namespace {

using wire::AsInt32;
using wire::ForEachField;
using wire::kLengthDelimited;
using wire::kVarint;
using wire::OneofBytes;
using wire::ParseWrappedVarint;
using wire::Reader;
using wire::Seen;
using wire::SingularBytes;
using wire::SingularString;
using wire::SingularVarint;
using wire::Tag;

using envoy::config::cluster::v3::Cluster;

constexpr absl::string_view kAggregateClusterConfig =
    "envoy.extensions.clusters.aggregate.v3.ClusterConfig";

// Every function below returns false to give up: on input the reader
// refuses, on a field it does not handle, on a singular field or oneof met
// twice, and on anything cluster.cc reports as an error.

// envoy.config.core.v3.ConfigSource {oneof config_source_specifier {string
// path = 1; ApiConfigSource api_config_source = 2; AggregatedConfigSource
// ads = 3; SelfConfigSource self = 5;} Duration initial_fetch_timeout = 4;
// ApiVersion resource_api_version = 6;}. *which: 3 (ads) or 5 (self); path
// and api_config_source, which cluster.cc rejects wherever it reads a
// ConfigSource, give up.
bool ReadConfigSource(absl::string_view bytes, uint32_t* which) {
  Seen seen;
  *which = 0;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 3:  // AggregatedConfigSource {}
      case 5:  // SelfConfigSource {ApiVersion transport_api_version = 1;}
        return OneofBytes(&r, tag, which, &v) && wire::SkipMessage(v);
      case 4:  // Duration
        return SingularBytes(&r, tag, &seen, &v) && wire::SkipMessage(v);
      case 1:
      case 2:
        return false;
      default:  // resource_api_version; unknown fields
        return r.Skip(tag.type);
    }
  });
}

// Cluster.EdsClusterConfig {ConfigSource eds_config = 1; string
// service_name = 2;}. *config_source as ReadConfigSource, 0 if absent.
bool ReadEdsClusterConfig(absl::string_view bytes, uint32_t* config_source,
                          absl::string_view* service_name) {
  Seen seen;
  *config_source = 0;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        return SingularBytes(&r, tag, &seen, &v) &&
               ReadConfigSource(v, config_source) && *config_source != 0;
      case 2:
        return SingularString(&r, tag, &seen, service_name);
      default:
        return r.Skip(tag.type);
    }
  });
}

// envoy.extensions.clusters.aggregate.v3.ClusterConfig {repeated string
// clusters = 1;}
bool ParseAggregateConfig(absl::string_view bytes,
                          std::vector<std::string>* clusters) {
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    if (tag.field != 1) return r.Skip(tag.type);
    if (!wire::RepeatedString(&r, tag, &v)) return false;
    clusters->emplace_back(v);
    return true;
  });
}

// Cluster.CustomClusterType {string name = 1; google.protobuf.Any
// typed_config = 2;}, Any {string type_url = 1; bytes value = 2;}: an
// aggregate cluster's children.
bool ParseCustomClusterType(absl::string_view bytes,
                            ClusterResource::Aggregate* out) {
  Seen seen;
  absl::string_view typed_config;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        return SingularString(&r, tag, &seen, &v);
      case 2:
        return SingularBytes(&r, tag, &seen, &typed_config);
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read || !seen.Has(2)) return false;  // "field not present"
  Seen any_seen;
  absl::string_view type_url;
  absl::string_view value;
  const bool any_read =
      ForEachField(typed_config, [&](Reader& r, const Tag& tag) {
        switch (tag.field) {
          case 1:
            return SingularString(&r, tag, &any_seen, &type_url);
          case 2:
            return SingularBytes(&r, tag, &any_seen, &value);
          default:
            return r.Skip(tag.type);
        }
      });
  if (!any_read ||
      absl::StripPrefix(type_url, kTypeUrlPrefix) != kAggregateClusterConfig) {
    return false;  // "unknown cluster_type extension"
  }
  // "can't parse aggregate cluster config", "must be non-empty"
  return ParseAggregateConfig(value, &out->prioritized_cluster_names) &&
         !out->prioritized_cluster_names.empty();
}

// CircuitBreakers.Thresholds {RoutingPriority priority = 1; UInt32Value
// max_connections = 2; max_pending_requests = 3; max_requests = 4;
// max_retries = 5;}
bool ReadThresholds(absl::string_view bytes, int32_t* priority,
                    bool* has_max_requests, uint32_t* max_requests) {
  Seen seen;
  *priority = 0;
  *has_max_requests = false;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 1:
        if (!SingularVarint(&r, tag, &seen, &u)) return false;
        *priority = AsInt32(u);
        return true;
      case 2:
      case 3:
      case 5:
        return SingularBytes(&r, tag, &seen, &v) && wire::SkipMessage(v);
      case 4:
        if (!SingularBytes(&r, tag, &seen, &v) || !ParseWrappedVarint(v, &u)) {
          return false;
        }
        *has_max_requests = true;
        *max_requests = static_cast<uint32_t>(u);
        return true;
      default:
        return r.Skip(tag.type);
    }
  });
}

// CircuitBreakers {repeated Thresholds thresholds = 1; repeated Thresholds
// per_host_thresholds = 2;}: max_requests of the first DEFAULT thresholds.
bool ParseCircuitBreakers(absl::string_view bytes, uint32_t* max_requests) {
  bool found = false;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    if (tag.field != 1 && tag.field != 2) return r.Skip(tag.type);
    int32_t priority = 0;
    bool has_max = false;
    uint32_t max = 0;
    if (tag.type != kLengthDelimited || !r.ReadBytes(&v) ||
        !ReadThresholds(v, &priority, &has_max, &max)) {
      return false;
    }
    if (tag.field == 1 && !found &&
        priority == envoy::config::core::v3::DEFAULT) {
      found = true;
      if (has_max) *max_requests = max;
    }
    return true;
  });
}

std::vector<std::string> ComputeMismatches() {
  namespace cluster = envoy::config::cluster::v3;
  namespace core = envoy::config::core::v3;
  namespace pb = google::protobuf;
  const ExpectedFields kExpected[] = {
      {cluster::Cluster::descriptor(),
       "proto3: 1 name string; "
       "2 type enum oneof cluster_discovery_type "
       "envoy.config.cluster.v3.Cluster.DiscoveryType; "
       "3 eds_cluster_config message "
       "envoy.config.cluster.v3.Cluster.EdsClusterConfig; "
       "4 connect_timeout message google.protobuf.Duration; "
       "6 lb_policy enum envoy.config.cluster.v3.Cluster.LbPolicy; "
       "10 circuit_breakers message envoy.config.cluster.v3.CircuitBreakers; "
       "24 transport_socket message envoy.config.core.v3.TransportSocket; "
       "25 metadata message envoy.config.core.v3.Metadata; "
       "33 load_assignment message "
       "envoy.config.endpoint.v3.ClusterLoadAssignment; "
       "38 cluster_type message oneof cluster_discovery_type "
       "envoy.config.cluster.v3.Cluster.CustomClusterType; "
       "42 lrs_server message envoy.config.core.v3.ConfigSource"},
      {cluster::Cluster::CustomClusterType::descriptor(),
       "proto3: 1 name string; 2 typed_config message google.protobuf.Any"},
      {cluster::Cluster::EdsClusterConfig::descriptor(),
       "proto3: 1 eds_config message envoy.config.core.v3.ConfigSource; "
       "2 service_name string"},
      {cluster::CircuitBreakers::descriptor(),
       "proto3: 1 thresholds message repeated "
       "envoy.config.cluster.v3.CircuitBreakers.Thresholds; "
       "2 per_host_thresholds message repeated "
       "envoy.config.cluster.v3.CircuitBreakers.Thresholds"},
      {cluster::CircuitBreakers::Thresholds::descriptor(),
       "proto3: 1 priority enum envoy.config.core.v3.RoutingPriority; "
       "2 max_connections message google.protobuf.UInt32Value; "
       "3 max_pending_requests message google.protobuf.UInt32Value; "
       "4 max_requests message google.protobuf.UInt32Value; "
       "5 max_retries message google.protobuf.UInt32Value"},
      {core::ConfigSource::descriptor(),
       "proto3: 1 path string oneof config_source_specifier; "
       "2 api_config_source message oneof config_source_specifier "
       "envoy.config.core.v3.ApiConfigSource; "
       "3 ads message oneof config_source_specifier "
       "envoy.config.core.v3.AggregatedConfigSource; "
       "4 initial_fetch_timeout message google.protobuf.Duration; "
       "5 self message oneof config_source_specifier "
       "envoy.config.core.v3.SelfConfigSource; "
       "6 resource_api_version enum envoy.config.core.v3.ApiVersion"},
      {core::AggregatedConfigSource::descriptor(), "proto3: "},
      {core::SelfConfigSource::descriptor(),
       "proto3: 1 transport_api_version enum "
       "envoy.config.core.v3.ApiVersion"},
      {envoy::extensions::clusters::aggregate::v3::ClusterConfig::descriptor(),
       "proto3: 1 clusters string repeated"},
      {pb::Any::descriptor(), "proto3: 1 type_url string; 2 value bytes"},
      {pb::Duration::descriptor(), "proto3: 1 seconds int64; 2 nanos int32"},
      {pb::UInt32Value::descriptor(), "proto3: 1 value uint32"},
  };
  return SignatureMismatches(kExpected);
}

const std::vector<std::string>& Mismatches() {
  static const auto* const kMismatches =
      new std::vector<std::string>(ComputeMismatches());
  return *kMismatches;
}

}  // namespace

bool FastDecodeCluster(const DecodeContext& context,
                       absl::string_view serialized, ClusterResource* out) {
  // Sizes near INT_MAX are where libprotobuf's own limits start to differ.
  if (serialized.size() > (size_t{1} << 30)) return false;
  static const bool kAvailable = ClusterFastPathAvailable();
  if (!kAvailable) return false;
  *out = ClusterResource();
  Seen seen;
  uint32_t kind = 0;  // which cluster_discovery_type member
  uint64_t type = 0;
  absl::string_view cluster_type;
  absl::string_view eds_config;
  uint32_t lrs_server = 0;
  const bool read = ForEachField(serialized, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 1:
        if (!SingularString(&r, tag, &seen, &v)) return false;
        out->name.assign(v.data(), v.size());
        return true;
      case 2:
        if (tag.type != kVarint || kind != 0) return false;
        kind = 2;
        return r.ReadVarint(&type);
      case 38:
        return OneofBytes(&r, tag, &kind, &cluster_type);
      case 3:
        return SingularBytes(&r, tag, &seen, &eds_config);
      case 4:  // connect_timeout: not used
        return SingularBytes(&r, tag, &seen, &v) && wire::SkipMessage(v);
      case 6:
        if (!SingularVarint(&r, tag, &seen, &u)) return false;
        switch (AsInt32(u)) {
          case Cluster::ROUND_ROBIN:
            out->lb_policy = ClusterResource::LbPolicy::kRoundRobin;
            return true;
          case Cluster::RING_HASH:
            out->lb_policy = ClusterResource::LbPolicy::kRingHash;
            return true;
          default:
            return false;  // "LB policy is not supported"
        }
      case 10:
        return SingularBytes(&r, tag, &seen, &v) &&
               ParseCircuitBreakers(v, &out->max_concurrent_requests);
      case 42:
        // Only `self` is valid (A47 §LRS Server Representation).
        return SingularBytes(&r, tag, &seen, &v) &&
               ReadConfigSource(v, &lrs_server) && lrs_server == 5;
      case 24:  // transport_socket: UpstreamTlsContext, left to libprotobuf
      case 25:  // metadata: a Struct tree, left to libprotobuf
      case 33:  // load_assignment: LOGICAL_DNS clusters, left to libprotobuf
        return false;
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  out->lrs_load_reporting_server_is_self = lrs_server == 5;
  // eds_cluster_config is checked to parse whatever the type.
  uint32_t eds_source = 0;
  absl::string_view service_name;
  if (seen.Has(3) &&
      !ReadEdsClusterConfig(eds_config, &eds_source, &service_name)) {
    return false;
  }
  if (kind == 2 && AsInt32(type) == Cluster::EDS) {
    // "field not present" (eds_cluster_config, eds_config)
    if (!seen.Has(3) || eds_source == 0) return false;
    // A47 §CDS Resource Validation: an xdstp: cluster names its EDS resource.
    if (context.federation && service_name.empty() && IsXdstpName(out->name)) {
      return false;
    }
    out->kind = ClusterResource::Eds{std::string(service_name)};
    return true;
  }
  if (kind == 38) {
    ClusterResource::Aggregate aggregate;
    if (!ParseCustomClusterType(cluster_type, &aggregate)) return false;
    out->kind = std::move(aggregate);
    return true;
  }
  return false;  // LOGICAL_DNS (left to libprotobuf), or an error
}

bool ClusterFastPathAvailable() { return Mismatches().empty(); }

std::vector<std::string> ClusterFastPathMismatches() { return Mismatches(); }

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed
