#include "lib/resources/endpoint_fast.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "envoy/config/core/v3/address.pb.h"
#include "envoy/config/core/v3/base.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/endpoint/v3/endpoint_components.pb.h"
#include "envoy/type/v3/percent.pb.h"
#include "google/protobuf/wrappers.pb.h"
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
using wire::OneofString;
using wire::ParseWrappedVarint;
using wire::Reader;
using wire::Seen;
using wire::SingularBytes;
using wire::SingularString;
using wire::SingularVarint;
using wire::Tag;

constexpr uint32_t kMillion = 1000000;

// Every function below returns false to give up: on input the reader
// refuses, on a field it does not handle, on a singular field or oneof met
// twice, and on anything endpoint.cc reports as an error.

// What one LbEndpoint says, read from the wire (views into the input).
struct LbEndpointFields {
  int32_t health_status = 0;
  bool has_weight = false;
  uint32_t weight = 0;
  bool has_endpoint = false;
  bool has_address = false;
  bool has_socket_address = false;
  bool has_port_value = false;
  uint32_t port_value = 0;
  absl::string_view address;
};

// envoy.config.core.v3.SocketAddress {Protocol protocol = 1; string address
// = 2; oneof port_specifier {uint32 port_value = 3; string named_port = 4;}
// string resolver_name = 5; bool ipv4_compat = 6;}
bool ReadSocketAddress(absl::string_view bytes, LbEndpointFields* out) {
  Seen seen;
  uint32_t port = 0;  // which port_specifier member
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 2:
        return SingularString(&r, tag, &seen, &out->address);
      case 3:
        if (tag.type != kVarint || port != 0 || !r.ReadVarint(&u)) {
          return false;
        }
        port = 3;
        out->port_value = static_cast<uint32_t>(u);
        return true;
      case 4:
        return OneofString(&r, tag, &port, &v);
      case 5:
        return SingularString(&r, tag, &seen, &v);
      default:  // protocol, ipv4_compat: not used; unknown fields
        return r.Skip(tag.type);
    }
  });
  out->has_port_value = port == 3;
  return read;
}

// envoy.config.core.v3.Pipe {string path = 1; uint32 mode = 2;}: not used,
// only checked to parse.
bool CheckPipe(absl::string_view bytes) {
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    return tag.field == 1 ? SingularString(&r, tag, &seen, &v)
                          : r.Skip(tag.type);
  });
}

// envoy.config.core.v3.Address {oneof address {SocketAddress socket_address
// = 1; Pipe pipe = 2;}}
bool ReadAddress(absl::string_view bytes, LbEndpointFields* out) {
  uint32_t which = 0;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        return OneofBytes(&r, tag, &which, &v) && ReadSocketAddress(v, out);
      case 2:
        return OneofBytes(&r, tag, &which, &v) && CheckPipe(v);
      default:
        return r.Skip(tag.type);
    }
  });
  out->has_socket_address = which == 1;
  return read;
}

// envoy.config.endpoint.v3.Endpoint {Address address = 1; string hostname =
// 3;}
bool ReadEndpoint(absl::string_view bytes, LbEndpointFields* out) {
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        if (!SingularBytes(&r, tag, &seen, &v)) return false;
        out->has_address = true;
        return ReadAddress(v, out);
      case 3:
        return SingularString(&r, tag, &seen, &v);
      default:
        return r.Skip(tag.type);
    }
  });
}

// envoy.config.endpoint.v3.LbEndpoint {oneof host_identifier {Endpoint
// endpoint = 1;} HealthStatus health_status = 2; Metadata metadata = 3;
// UInt32Value load_balancing_weight = 4;}. Every field is read, whatever
// the health status: the bytes must be what libprotobuf would parse.
bool ReadLbEndpoint(absl::string_view bytes, LbEndpointFields* out) {
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 1:
        if (!SingularBytes(&r, tag, &seen, &v)) return false;
        out->has_endpoint = true;
        return ReadEndpoint(v, out);
      case 2:
        if (!SingularVarint(&r, tag, &seen, &u)) return false;
        out->health_status = AsInt32(u);
        return true;
      case 3:  // metadata: a Struct tree, left to libprotobuf
        return false;
      case 4:
        if (!SingularBytes(&r, tag, &seen, &v) || !ParseWrappedVarint(v, &u)) {
          return false;
        }
        out->has_weight = true;
        out->weight = static_cast<uint32_t>(u);
        return true;
      default:
        return r.Skip(tag.type);
    }
  });
}

// One lb_endpoints entry: appended to *endpoints if its health status is
// one gRPC uses (UNKNOWN, HEALTHY) and it is valid; `use` false only
// checks that it parses (a locality without weight).
bool ParseLbEndpoint(absl::string_view bytes, bool use,
                     std::vector<EndpointResource::Endpoint>* endpoints) {
  LbEndpointFields f;
  if (!ReadLbEndpoint(bytes, &f)) return false;
  using HealthStatus = EndpointResource::HealthStatus;
  HealthStatus health;
  switch (f.health_status) {
    case envoy::config::core::v3::UNKNOWN:
      health = HealthStatus::kUnknown;
      break;
    case envoy::config::core::v3::HEALTHY:
      health = HealthStatus::kHealthy;
      break;
    default:
      return true;  // UNHEALTHY, DRAINING, TIMEOUT, DEGRADED: not used
  }
  if (!use) return true;
  if ((f.has_weight && f.weight == 0) || !f.has_endpoint || !f.has_address ||
      !f.has_socket_address || !f.has_port_value || f.port_value > 65535) {
    return false;
  }
  endpoints->emplace_back();
  EndpointResource::Endpoint& endpoint = endpoints->back();
  endpoint.health_status = health;
  if (f.has_weight) endpoint.load_balancing_weight = f.weight;
  return FormatIpPort(f.address, f.port_value, &endpoint.address);
}

// envoy.config.core.v3.Locality {string region = 1; zone = 2; sub_zone =
// 3;}
bool ParseLocality(absl::string_view bytes, EndpointResource::Locality* out) {
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    std::string* target;
    switch (tag.field) {
      case 1:
        target = &out->region;
        break;
      case 2:
        target = &out->zone;
        break;
      case 3:
        target = &out->sub_zone;
        break;
      default:
        return r.Skip(tag.type);
    }
    if (!SingularString(&r, tag, &seen, &v)) return false;
    target->assign(v.data(), v.size());
    return true;
  });
}

struct ParsedLocality {
  uint32_t priority = 0;
  EndpointResource::Locality locality;
  EndpointResource::LocalityEndpoints group;
};

// envoy.config.endpoint.v3.LocalityLbEndpoints {Locality locality = 1;
// repeated LbEndpoint lb_endpoints = 2; UInt32Value load_balancing_weight
// = 3; uint32 priority = 5;}. *keep is false for a locality gRPC ignores
// (no weight, or weight 0), whose endpoints are then only checked to parse.
bool ParseLocalityLbEndpoints(absl::string_view bytes, ParsedLocality* out,
                              bool* keep) {
  // First pass: everything but the endpoints, and their count.
  Seen seen;
  absl::string_view locality;
  uint64_t weight = 0;
  uint64_t priority = 0;
  size_t count = 0;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        return SingularBytes(&r, tag, &seen, &locality);
      case 2:
        ++count;
        return tag.type == kLengthDelimited && r.ReadBytes(&v);
      case 3:
        return SingularBytes(&r, tag, &seen, &v) &&
               ParseWrappedVarint(v, &weight);
      case 5:
        return SingularVarint(&r, tag, &seen, &priority);
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  *keep = seen.Has(3) && static_cast<uint32_t>(weight) != 0;
  if (*keep) {
    if (!seen.Has(1)) return false;  // "field not present"
    out->priority = static_cast<uint32_t>(priority);
    out->group.weight = static_cast<uint32_t>(weight);
    out->group.endpoints.reserve(count);
  } else if (seen.Has(1)) {
    EndpointResource::Locality unused;
    if (!ParseLocality(locality, &unused)) return false;
  }
  if (*keep && !ParseLocality(locality, &out->locality)) return false;
  // Second pass: the endpoints.
  std::vector<EndpointResource::Endpoint>* endpoints = &out->group.endpoints;
  const bool use = *keep;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    if (tag.field != 2) return r.Skip(tag.type);
    return r.ReadBytes(&v) && ParseLbEndpoint(v, use, endpoints);
  });
}

// envoy.type.v3.FractionalPercent {uint32 numerator = 1; DenominatorType
// denominator = 2;}: parts per million, capped at a million.
bool ParseFractionalPercent(absl::string_view bytes, uint32_t* per_million) {
  Seen seen;
  uint64_t numerator = 0;
  uint64_t denominator = 0;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    switch (tag.field) {
      case 1:
        return SingularVarint(&r, tag, &seen, &numerator);
      case 2:
        return SingularVarint(&r, tag, &seen, &denominator);
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  uint64_t value = static_cast<uint32_t>(numerator);
  switch (AsInt32(denominator)) {
    case envoy::type::v3::FractionalPercent::HUNDRED:
      value *= 10000;
      break;
    case envoy::type::v3::FractionalPercent::TEN_THOUSAND:
      value *= 100;
      break;
    case envoy::type::v3::FractionalPercent::MILLION:
      break;
    default:
      return false;  // "unknown denominator type"
  }
  *per_million = static_cast<uint32_t>(std::min<uint64_t>(value, kMillion));
  return true;
}

// ClusterLoadAssignment.Policy {repeated DropOverload drop_overloads = 2;
// UInt32Value overprovisioning_factor = 3;}, DropOverload {string category
// = 1; FractionalPercent drop_percentage = 2;}.
bool ParsePolicy(absl::string_view bytes,
                 std::vector<EndpointResource::DropCategory>* drops) {
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 2: {
        if (tag.type != kLengthDelimited || !r.ReadBytes(&v)) return false;
        Seen drop_seen;
        absl::string_view category;
        uint32_t per_million = 0;
        const bool read = ForEachField(v, [&](Reader& d, const Tag& t) {
          absl::string_view p;
          switch (t.field) {
            case 1:
              return SingularString(&d, t, &drop_seen, &category);
            case 2:
              return SingularBytes(&d, t, &drop_seen, &p) &&
                     ParseFractionalPercent(p, &per_million);
            default:
              return d.Skip(t.type);
          }
        });
        // "empty drop category name", "field not present"
        if (!read || category.empty() || !drop_seen.Has(2)) return false;
        drops->push_back({std::string(category), per_million});
        return true;
      }
      case 3:
        return SingularBytes(&r, tag, &seen, &v) && wire::SkipMessage(v);
      default:
        return r.Skip(tag.type);
    }
  });
}

// The grouping endpoint.cc's ParseLocalities does after reading the
// localities: priorities without gaps, no locality twice in a priority, and
// locality weights that fit uint32 per priority.
bool Assemble(std::vector<ParsedLocality>* parsed, EndpointResource* out) {
  std::vector<uint32_t> distinct;
  distinct.reserve(parsed->size());
  for (const ParsedLocality& p : *parsed) distinct.push_back(p.priority);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (size_t k = 0; k < distinct.size(); ++k) {
    if (distinct[k] != k) return false;  // "sparse priority list"
  }
  out->priorities.resize(distinct.size());
  for (ParsedLocality& p : *parsed) {
    auto& localities = out->priorities[p.priority].localities;
    if (!localities.try_emplace(std::move(p.locality), std::move(p.group))
             .second) {
      return false;  // "duplicate locality"
    }
  }
  for (const EndpointResource::Priority& priority : out->priorities) {
    uint64_t total = 0;
    for (const auto& entry : priority.localities) total += entry.second.weight;
    if (total > std::numeric_limits<uint32_t>::max()) return false;
  }
  return true;
}

std::vector<std::string> ComputeMismatches() {
  namespace core = envoy::config::core::v3;
  namespace endpoint = envoy::config::endpoint::v3;
  namespace pb = google::protobuf;
  const ExpectedFields kExpected[] = {
      {endpoint::ClusterLoadAssignment::descriptor(),
       "proto3: 1 cluster_name string; "
       "2 endpoints message repeated "
       "envoy.config.endpoint.v3.LocalityLbEndpoints; "
       "4 policy message "
       "envoy.config.endpoint.v3.ClusterLoadAssignment.Policy"},
      {endpoint::ClusterLoadAssignment::Policy::descriptor(),
       "proto3: 2 drop_overloads message repeated "
       "envoy.config.endpoint.v3.ClusterLoadAssignment.Policy.DropOverload; "
       "3 overprovisioning_factor message google.protobuf.UInt32Value"},
      {endpoint::ClusterLoadAssignment::Policy::DropOverload::descriptor(),
       "proto3: 1 category string; "
       "2 drop_percentage message envoy.type.v3.FractionalPercent"},
      {endpoint::LocalityLbEndpoints::descriptor(),
       "proto3: 1 locality message envoy.config.core.v3.Locality; "
       "2 lb_endpoints message repeated envoy.config.endpoint.v3.LbEndpoint; "
       "3 load_balancing_weight message google.protobuf.UInt32Value; "
       "5 priority uint32"},
      {endpoint::LbEndpoint::descriptor(),
       "proto3: 1 endpoint message oneof host_identifier "
       "envoy.config.endpoint.v3.Endpoint; "
       "2 health_status enum envoy.config.core.v3.HealthStatus; "
       "3 metadata message envoy.config.core.v3.Metadata; "
       "4 load_balancing_weight message google.protobuf.UInt32Value"},
      {endpoint::Endpoint::descriptor(),
       "proto3: 1 address message envoy.config.core.v3.Address; "
       "3 hostname string"},
      {core::Address::descriptor(),
       "proto3: 1 socket_address message oneof address "
       "envoy.config.core.v3.SocketAddress; "
       "2 pipe message oneof address envoy.config.core.v3.Pipe"},
      {core::SocketAddress::descriptor(),
       "proto3: 1 protocol enum "
       "envoy.config.core.v3.SocketAddress.Protocol; "
       "2 address string; "
       "3 port_value uint32 oneof port_specifier; "
       "4 named_port string oneof port_specifier; "
       "5 resolver_name string; 6 ipv4_compat bool"},
      {core::Pipe::descriptor(), "proto3: 1 path string; 2 mode uint32"},
      {core::Locality::descriptor(),
       "proto3: 1 region string; 2 zone string; 3 sub_zone string"},
      {envoy::type::v3::FractionalPercent::descriptor(),
       "proto3: 1 numerator uint32; "
       "2 denominator enum envoy.type.v3.FractionalPercent.DenominatorType"},
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

bool FastDecodeClusterLoadAssignment(absl::string_view serialized,
                                     EndpointResource* out) {
  // Sizes near INT_MAX are where libprotobuf's own limits start to differ.
  if (serialized.size() > (size_t{1} << 30)) return false;
  static const bool kAvailable = EndpointFastPathAvailable();
  if (!kAvailable) return false;
  *out = EndpointResource();
  // envoy.config.endpoint.v3.ClusterLoadAssignment {string cluster_name = 1;
  // repeated LocalityLbEndpoints endpoints = 2; Policy policy = 4;}
  Seen seen;
  std::vector<ParsedLocality> parsed;
  const bool read = ForEachField(serialized, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        if (!SingularString(&r, tag, &seen, &v)) return false;
        out->cluster_name.assign(v.data(), v.size());
        return true;
      case 2: {
        if (tag.type != kLengthDelimited || !r.ReadBytes(&v)) return false;
        parsed.emplace_back();
        bool keep = false;
        if (!ParseLocalityLbEndpoints(v, &parsed.back(), &keep)) return false;
        if (!keep) parsed.pop_back();
        return true;
      }
      case 4:
        return SingularBytes(&r, tag, &seen, &v) &&
               ParsePolicy(v, &out->drop_categories);
      default:
        return r.Skip(tag.type);
    }
  });
  return read && Assemble(&parsed, out);
}

bool EndpointFastPathAvailable() { return Mismatches().empty(); }

std::vector<std::string> EndpointFastPathMismatches() { return Mismatches(); }

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed
