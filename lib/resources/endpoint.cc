// ClusterLoadAssignment (EDS) decoding and validation. Rules and wording
// follow gRPC C-core 1.51 src/core/ext/xds/xds_endpoint.cc, restricted to
// the fields our proto/ has. Large assignments (10,000 endpoints) are the
// common case, so the proto is parsed on an arena and vectors are reserved.
#include "lib/resources/endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "google/protobuf/arena.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/endpoint_fast.h"
#include "lib/resources/internal/wire_nesting.h"

namespace xdsfed {
namespace resources {

namespace {

using envoy::config::endpoint::v3::ClusterLoadAssignment;
using envoy::config::endpoint::v3::LbEndpoint;
using envoy::config::endpoint::v3::LocalityLbEndpoints;
using HealthStatus = EndpointResource::HealthStatus;

constexpr uint32_t kMillion = 1000000;

bool IsScopeIdChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
         c == '_' || c == '-';
}

// Writes the dotted-decimal text inet_ntop gives for an IPv4 address to
// *out. By hand: glibc's inet_ntop goes through sprintf, ~1,800 instructions
// an address, which was a third of decoding a 10,000-endpoint assignment.
void AppendIpv4(const in_addr& address, std::string* out) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&address.s_addr);
  char text[16];
  char* p = text;
  for (int k = 0; k < 4; ++k) {
    if (k > 0) *p++ = '.';
    unsigned v = bytes[k];
    if (v >= 100) *p++ = static_cast<char>('0' + v / 100);
    if (v >= 10) *p++ = static_cast<char>('0' + v / 10 % 10);
    *p++ = static_cast<char>('0' + v % 10);
  }
  out->append(text, static_cast<size_t>(p - text));
}

// One lb_endpoints entry, appended to *endpoints unless its health status
// makes gRPC 1.51 skip it. Errors go to *errors.
void ParseEndpoint(const LbEndpoint& lb_endpoint,
                   std::vector<EndpointResource::Endpoint>* endpoints,
                   ValidationErrors* errors) {
  HealthStatus health_status;
  switch (lb_endpoint.health_status()) {
    case envoy::config::core::v3::UNKNOWN:
      health_status = HealthStatus::kUnknown;
      break;
    case envoy::config::core::v3::HEALTHY:
      health_status = HealthStatus::kHealthy;
      break;
    default:
      return;  // UNHEALTHY, DRAINING, TIMEOUT, DEGRADED: not used
  }
  EndpointResource::Endpoint endpoint;
  endpoint.health_status = health_status;
  if (lb_endpoint.has_load_balancing_weight()) {
    endpoint.load_balancing_weight =
        lb_endpoint.load_balancing_weight().value();
    if (endpoint.load_balancing_weight == 0) {
      ValidationErrors::ScopedField field(errors, ".load_balancing_weight");
      errors->AddError("must be greater than 0");
    }
  }
  ValidationErrors::ScopedField field(errors, ".endpoint");
  if (!lb_endpoint.has_endpoint()) {
    errors->AddError("field not present");
    return;
  }
  ValidationErrors::ScopedField field2(errors, ".address");
  if (!lb_endpoint.endpoint().has_address()) {
    errors->AddError("field not present");
    return;
  }
  const auto& address = lb_endpoint.endpoint().address();
  ValidationErrors::ScopedField field3(errors, ".socket_address");
  if (!address.has_socket_address()) {
    errors->AddError("field not present");
    return;
  }
  const auto& socket_address = address.socket_address();
  bool ok = true;
  {
    ValidationErrors::ScopedField field4(errors, ".port_value");
    if (!socket_address.has_port_value()) {
      errors->AddError("field not present");
      ok = false;
    } else if (socket_address.port_value() > 65535) {
      errors->AddError("invalid port: must be at most 65535");
      ok = false;
    }
  }
  if (!internal::FormatIpPort(socket_address.address(),
                              socket_address.port_value(), &endpoint.address)) {
    ValidationErrors::ScopedField field4(errors, ".address");
    errors->AddError(absl::StrCat("expected an IPv4 or IPv6 address, got \"",
                                  absl::CHexEscape(socket_address.address()),
                                  "\""));
    ok = false;
  }
  if (ok) endpoints->push_back(std::move(endpoint));
}

// The common case without building field paths: appends a valid endpoint,
// or skips one whose health status gRPC 1.51 does not use, and returns true.
// Returns false, appending nothing, when something is wrong: the caller then
// runs ParseEndpoint to report it with its field path.
bool ParseValidEndpoint(const LbEndpoint& lb_endpoint,
                        std::vector<EndpointResource::Endpoint>* endpoints) {
  EndpointResource::Endpoint endpoint;
  switch (lb_endpoint.health_status()) {
    case envoy::config::core::v3::UNKNOWN:
      endpoint.health_status = HealthStatus::kUnknown;
      break;
    case envoy::config::core::v3::HEALTHY:
      endpoint.health_status = HealthStatus::kHealthy;
      break;
    default:
      return true;  // not used, as in ParseEndpoint
  }
  if (lb_endpoint.has_load_balancing_weight()) {
    endpoint.load_balancing_weight =
        lb_endpoint.load_balancing_weight().value();
    if (endpoint.load_balancing_weight == 0) return false;
  }
  if (!lb_endpoint.has_endpoint() || !lb_endpoint.endpoint().has_address() ||
      !lb_endpoint.endpoint().address().has_socket_address()) {
    return false;
  }
  const auto& socket_address =
      lb_endpoint.endpoint().address().socket_address();
  if (!socket_address.has_port_value() || socket_address.port_value() > 65535 ||
      !internal::FormatIpPort(socket_address.address(),
                              socket_address.port_value(), &endpoint.address)) {
    return false;
  }
  endpoints->push_back(std::move(endpoint));
  return true;
}

struct ParsedLocality {
  size_t index;  // in ClusterLoadAssignment.endpoints, for error paths
  uint32_t priority;
  EndpointResource::Locality locality;
  EndpointResource::LocalityEndpoints group;
};

void ParseLocalities(const ClusterLoadAssignment& cla, EndpointResource* value,
                     ValidationErrors* errors) {
  ValidationErrors::ScopedField field(errors, "endpoints");
  std::vector<ParsedLocality> parsed;
  parsed.reserve(cla.endpoints_size());
  for (int i = 0; i < cla.endpoints_size(); ++i) {
    const LocalityLbEndpoints& entry = cla.endpoints(i);
    // gRPC 1.51: a locality without weight (or weight 0) gets no load.
    if (!entry.has_load_balancing_weight() ||
        entry.load_balancing_weight().value() == 0) {
      continue;
    }
    ValidationErrors::ScopedField index(errors, absl::StrCat("[", i, "]"));
    if (!entry.has_locality()) {
      ValidationErrors::ScopedField field2(errors, ".locality");
      errors->AddError("field not present");
      continue;
    }
    const size_t errors_before = errors->size();
    ParsedLocality locality;
    locality.index = i;
    locality.priority = entry.priority();
    locality.locality.region = entry.locality().region();
    locality.locality.zone = entry.locality().zone();
    locality.locality.sub_zone = entry.locality().sub_zone();
    locality.group.weight = entry.load_balancing_weight().value();
    locality.group.endpoints.reserve(entry.lb_endpoints_size());
    for (int j = 0; j < entry.lb_endpoints_size(); ++j) {
      if (ParseValidEndpoint(entry.lb_endpoints(j),
                             &locality.group.endpoints)) {
        continue;
      }
      ValidationErrors::ScopedField field2(
          errors, absl::StrCat(".lb_endpoints[", j, "]"));
      ParseEndpoint(entry.lb_endpoints(j), &locality.group.endpoints, errors);
    }
    if (errors->size() == errors_before) parsed.push_back(std::move(locality));
  }
  // Priorities must be 0..N-1 without gaps ("sparse priority list"). Checked
  // on the distinct values first, so that priority 4,000,000,000 does not
  // allocate 4 billion entries.
  std::vector<uint32_t> distinct;
  distinct.reserve(parsed.size());
  for (const ParsedLocality& p : parsed) distinct.push_back(p.priority);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (size_t k = 0; k < distinct.size(); ++k) {
    if (distinct[k] != k) {
      errors->AddError(absl::StrCat("sparse priority list: priority ", k,
                                    " has no localities"));
      return;
    }
  }
  value->priorities.resize(distinct.size());
  for (ParsedLocality& p : parsed) {
    auto& localities = value->priorities[p.priority].localities;
    auto [it, inserted] =
        localities.try_emplace(std::move(p.locality), std::move(p.group));
    if (!inserted) {
      ValidationErrors::ScopedField index(errors,
                                          absl::StrCat("[", p.index, "]"));
      errors->AddError(absl::StrCat("duplicate locality ", it->first.ToString(),
                                    " found in priority ", p.priority));
    }
  }
  // Later gRPC versions also reject a priority whose locality weights
  // overflow uint32: the weighted target policy sums them in 32 bits.
  for (size_t k = 0; k < value->priorities.size(); ++k) {
    uint64_t total = 0;
    for (const auto& entry : value->priorities[k].localities) {
      total += entry.second.weight;
    }
    if (total > std::numeric_limits<uint32_t>::max()) {
      errors->AddError(absl::StrCat("sum of locality weights for priority ", k,
                                    " exceeds uint32 max"));
    }
  }
}

void ParseDrops(const ClusterLoadAssignment& cla, EndpointResource* value,
                ValidationErrors* errors) {
  if (!cla.has_policy()) return;
  ValidationErrors::ScopedField field(errors, "policy");
  const auto& drops = cla.policy().drop_overloads();
  value->drop_categories.reserve(drops.size());
  for (int i = 0; i < drops.size(); ++i) {
    ValidationErrors::ScopedField index(
        errors, absl::StrCat(".drop_overloads[", i, "]"));
    const auto& drop = drops[i];
    if (drop.category().empty()) {
      ValidationErrors::ScopedField field2(errors, ".category");
      errors->AddError("empty drop category name");
    }
    ValidationErrors::ScopedField field2(errors, ".drop_percentage");
    if (!drop.has_drop_percentage()) {
      errors->AddError("field not present");
      continue;
    }
    // 64-bit so that a large numerator times 10,000 cannot wrap around.
    uint64_t per_million = drop.drop_percentage().numerator();
    switch (drop.drop_percentage().denominator()) {
      case envoy::type::v3::FractionalPercent::HUNDRED:
        per_million *= 10000;
        break;
      case envoy::type::v3::FractionalPercent::TEN_THOUSAND:
        per_million *= 100;
        break;
      case envoy::type::v3::FractionalPercent::MILLION:
        break;
      default: {
        ValidationErrors::ScopedField field3(errors, ".denominator");
        errors->AddError("unknown denominator type");
      }
    }
    value->drop_categories.push_back(
        {drop.category(),
         static_cast<uint32_t>(std::min<uint64_t>(per_million, kMillion))});
  }
}

class EndpointType final : public XdsResourceType<EndpointResource> {
 public:
  absl::string_view type_url() const override { return kEndpointTypeUrl; }
  absl::string_view short_name() const override {
    return "ClusterLoadAssignment";
  }
  bool all_resources_required_in_sotw() const override { return false; }

 protected:
  absl::StatusOr<EndpointResource> DecodeValue(
      const DecodeContext& context, absl::string_view serialized,
      std::string* name) const override {
    return DecodeClusterLoadAssignment(context, serialized, name);
  }
};

}  // namespace

std::string EndpointResource::Locality::ToString() const {
  return absl::StrCat("{region=\"", absl::CHexEscape(region), "\", zone=\"",
                      absl::CHexEscape(zone), "\", sub_zone=\"",
                      absl::CHexEscape(sub_zone), "\"}");
}

bool EndpointResource::DropsAll() const {
  for (const DropCategory& category : drop_categories) {
    if (category.parts_per_million >= kMillion) return true;
  }
  return false;
}

Json::Value EndpointResource::ToJson() const {
  Json::Value out(Json::objectValue);
  out["cluster_name"] = cluster_name;
  Json::Value priorities_json(Json::arrayValue);
  for (size_t p = 0; p < priorities.size(); ++p) {
    Json::Value priority_json(Json::objectValue);
    priority_json["priority"] = Json::UInt64(p);
    Json::Value localities_json(Json::arrayValue);
    for (const auto& [locality, group] : priorities[p].localities) {
      Json::Value locality_json(Json::objectValue);
      Json::Value name(Json::objectValue);
      name["region"] = locality.region;
      name["zone"] = locality.zone;
      name["sub_zone"] = locality.sub_zone;
      locality_json["locality"] = std::move(name);
      locality_json["weight"] = group.weight;
      Json::Value endpoints_json(Json::arrayValue);
      for (const Endpoint& endpoint : group.endpoints) {
        Json::Value endpoint_json(Json::objectValue);
        endpoint_json["address"] = endpoint.address;
        endpoint_json["health_status"] =
            endpoint.health_status == HealthStatus::kHealthy ? "HEALTHY"
                                                             : "UNKNOWN";
        endpoint_json["load_balancing_weight"] = endpoint.load_balancing_weight;
        endpoints_json.append(std::move(endpoint_json));
      }
      locality_json["endpoints"] = std::move(endpoints_json);
      localities_json.append(std::move(locality_json));
    }
    priority_json["localities"] = std::move(localities_json);
    priorities_json.append(std::move(priority_json));
  }
  out["priorities"] = std::move(priorities_json);
  Json::Value drops_json(Json::arrayValue);
  for (const DropCategory& category : drop_categories) {
    Json::Value drop_json(Json::objectValue);
    drop_json["category"] = category.name;
    drop_json["parts_per_million"] = category.parts_per_million;
    drops_json.append(std::move(drop_json));
  }
  out["drop_categories"] = std::move(drops_json);
  return out;
}

absl::StatusOr<EndpointResource> DecodeClusterLoadAssignment(
    const DecodeContext& /*context*/, absl::string_view serialized,
    std::string* name) {
  // Most assignments take the wire reader in endpoint_fast.cc, which gives
  // the same value without building protobuf messages; it leaves anything
  // unusual and every error to the libprotobuf path, so error messages come
  // from one validator.
  EndpointResource value;
  if (internal::FastDecodeClusterLoadAssignment(serialized, &value)) {
    if (name != nullptr) *name = value.cluster_name;
    return value;
  }
  return internal::DecodeClusterLoadAssignmentWithProtobuf(serialized, name);
}

namespace internal {

// Writes "ip:port" / "[ipv6]:port" in canonical form to *out. False if host
// is not an IP address literal (an IPv6 one may carry a "%scope" suffix).
bool FormatIpPort(absl::string_view host, uint32_t port, std::string* out) {
  // inet_pton wants a C string; addresses are short. A NUL inside would
  // make inet_pton read only the bytes before it.
  if (host.find('\0') != absl::string_view::npos) return false;
  char buffer[64];
  std::string long_host;
  char* c_host = buffer;
  if (host.size() >= sizeof(buffer)) {
    long_host.assign(host.data(), host.size());
    c_host = long_host.data();
  } else {
    // An absent address is an empty view whose data() may be null.
    if (!host.empty()) std::memcpy(buffer, host.data(), host.size());
    buffer[host.size()] = '\0';
  }
  in_addr v4;
  if (inet_pton(AF_INET, c_host, &v4) == 1) {
    out->clear();
    AppendIpv4(v4, out);
    out->push_back(':');
    absl::StrAppend(out, port);
    return true;
  }
  const size_t percent = host.find('%');
  absl::string_view scope;
  if (percent != absl::string_view::npos) {
    scope = host.substr(percent);
    if (scope.size() < 2 ||
        !std::all_of(scope.begin() + 1, scope.end(), IsScopeIdChar)) {
      return false;
    }
    c_host[percent] = '\0';
  }
  in6_addr v6;
  char text[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET6, c_host, &v6) != 1) return false;
  if (inet_ntop(AF_INET6, &v6, text, sizeof(text)) == nullptr) return false;
  *out = absl::StrCat("[", text, scope, "]:", port);
  return true;
}

absl::StatusOr<EndpointResource> DecodeClusterLoadAssignmentWithProtobuf(
    absl::string_view serialized, std::string* name) {
  if (name != nullptr) name->clear();
  // Blocks grow to 64 KiB so that a 10,000-endpoint assignment takes a few
  // dozen allocations rather than hundreds.
  google::protobuf::ArenaOptions options;
  options.start_block_size = 4096;
  options.max_block_size = 64 * 1024;
  google::protobuf::Arena arena(options);
  auto* cla =
      google::protobuf::Arena::CreateMessage<ClusterLoadAssignment>(&arena);
  if (serialized.size() > static_cast<size_t>(INT_MAX) ||
      !cla->ParseFromArray(serialized.data(),
                           static_cast<int>(serialized.size()))) {
    return absl::InvalidArgumentError(
        DecodeFailureMessage("cannot decode ClusterLoadAssignment resource",
                             *cla->GetDescriptor(), serialized));
  }
  if (name != nullptr) *name = cla->cluster_name();
  ValidationErrors errors;
  EndpointResource value;
  value.cluster_name = cla->cluster_name();
  ParseLocalities(*cla, &value, &errors);
  ParseDrops(*cla, &value, &errors);
  if (!errors.ok()) {
    return errors.status("errors validating ClusterLoadAssignment resource");
  }
  return value;
}

}  // namespace internal

template <>
const XdsResourceType<EndpointResource>&
XdsResourceType<EndpointResource>::Get() {
  // The fast path's one-time descriptor check (it may build the messages'
  // descriptors: up to a few ms) runs here, when a client first registers
  // the type, rather than on its first response.
  static const EndpointType* const kType =
      (internal::EndpointFastPathAvailable(), new EndpointType());
  return *kType;
}

const XdsResourceType<EndpointResource>& EndpointResourceType() {
  return XdsResourceType<EndpointResource>::Get();
}

}  // namespace resources
}  // namespace xdsfed
