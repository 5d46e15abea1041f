#include "lib/cluster/lb_config.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/base/validation_errors.h"
#include "lib/json/json_fields.h"

namespace xdsfed {
namespace cluster {
namespace {

using resources::EndpointResource;
using schema::LoadBalancingConfig;
using SchemaMechanism = schema::XdsClusterResolverLbConfig::DiscoveryMechanism;

constexpr absl::string_view kResolverPolicy =
    "xds_cluster_resolver_experimental";
constexpr absl::string_view kPriorityPolicy = "priority_experimental";

// C-core 1.51 names a weighted_target target by
// XdsLocalityName::AsHumanReadableString(): the fields unescaped, unlike
// Locality::ToString(), which escapes them for logs.
std::string LocalityName(const EndpointResource::Locality& locality) {
  return absl::StrCat("{region=\"", locality.region, "\", zone=\"",
                      locality.zone, "\", sub_zone=\"", locality.sub_zone,
                      "\"}");
}

// Records every problem of the mechanism list under the schema's JSON field
// names, so that the paths match what the loader would report.
void CheckMechanisms(absl::Span<const ResolvedMechanism> mechanisms,
                     ValidationErrors* errors) {
  ValidationErrors::ScopedField list(errors, ".discoveryMechanisms");
  if (mechanisms.empty()) errors->AddError("must be non-empty");
  absl::flat_hash_set<absl::string_view> clusters;
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    const DiscoveryMechanism& m = mechanisms[i].mechanism;
    ValidationErrors::ScopedField entry(errors, absl::StrCat("[", i, "]"));
    {
      ValidationErrors::ScopedField field(errors, ".clusterName");
      if (m.cluster.empty()) {
        errors->AddError("must be non-empty");
      } else if (!clusters.insert(m.cluster).second) {
        // Two mechanisms of one cluster would give the priority policy two
        // children of the same name; ResolveClusterTree never does this.
        errors->AddError(absl::StrCat("duplicate cluster \"", m.cluster, "\""));
      }
    }
    if (m.type == DiscoveryMechanism::Type::kLogicalDns &&
        m.dns_hostname.empty()) {
      ValidationErrors::ScopedField field(errors, ".dnsHostname");
      errors->AddError("must be non-empty for LOGICAL_DNS");
    }
  }
}

SchemaMechanism ToSchema(const ResolvedMechanism& resolved) {
  const DiscoveryMechanism& m = resolved.mechanism;
  SchemaMechanism out;
  out.cluster_name = m.cluster;
  if (resolved.lrs_server.has_value()) {
    out.lrs_load_reporting_server = resolved.lrs_server->ToSchema();
  }
  out.max_concurrent_requests = m.max_concurrent_requests;
  if (m.type == DiscoveryMechanism::Type::kEds) {
    out.type = SchemaMechanism::Type::EDS;
    out.eds_service_name = m.eds_service_name;
  } else {
    out.type = SchemaMechanism::Type::LOGICAL_DNS;
    out.dns_hostname = m.dns_hostname;
  }
  return out;
}

LoadBalancingConfig WrapImpl(schema::XdsClusterImplLbConfig config) {
  LoadBalancingConfig policy;
  policy.xds_cluster_impl_experimental = std::move(config);
  return policy;
}

// The xds_cluster_impl_experimental child of one priority (A37
// §xds_cluster_impl_experimental LB Policy), filling `assignment` with the
// localities it balances over.
LoadBalancingConfig MakeClusterImpl(
    const ResolvedMechanism& resolved,
    const EndpointResource::Priority* priority,
    const std::vector<LoadBalancingConfig>& xds_lb_policy,
    PriorityChildAssignment* assignment) {
  const DiscoveryMechanism& m = resolved.mechanism;
  const bool is_dns = m.type == DiscoveryMechanism::Type::kLogicalDns;
  schema::XdsClusterImplLbConfig impl;
  impl.cluster_name = m.cluster;
  if (!is_dns) impl.eds_service_name = m.eds_service_name;
  if (resolved.lrs_server.has_value()) {
    impl.lrs_load_reporting_server = resolved.lrs_server->ToSchema();
  }
  impl.max_concurrent_requests = m.max_concurrent_requests;
  if (resolved.endpoints != nullptr) {
    // Every priority of a mechanism carries the mechanism's drops.
    for (const auto& drop : resolved.endpoints->drop_categories) {
      schema::XdsClusterImplLbConfig::DropCategory category;
      category.category = drop.name;
      category.requests_per_million = drop.parts_per_million;
      impl.drop_categories.push_back(std::move(category));
    }
  }
  schema::WeightedTargetLbConfig weighted_target;
  if (priority != nullptr) {
    assignment->localities.reserve(priority->localities.size());
    for (const auto& [locality, group] : priority->localities) {
      LocalityAssignment entry;
      entry.name = LocalityName(locality);
      entry.locality = locality;
      entry.weight = group.weight;
      entry.endpoints = group.endpoints;
      if (!is_dns) {
        schema::WeightedTargetLbConfig::Target target;
        target.weight = group.weight;
        target.child_policy = xds_lb_policy;
        weighted_target.targets.emplace(entry.name, std::move(target));
      }
      assignment->localities.push_back(std::move(entry));
    }
  }
  LoadBalancingConfig child;
  if (is_dns) {
    // C-core's LOGICAL_DNS mechanism overrides the whole locality-picking
    // policy with pick_first: there is one locality, and DNS order matters.
    child.pick_first.emplace();
  } else {
    child.weighted_target_experimental = std::move(weighted_target);
  }
  impl.child_policy.push_back(std::move(child));
  return WrapImpl(std::move(impl));
}

// The JSON key of the policy set in `policy`, or "" when none is (a policy
// this schema does not know).
absl::string_view PolicyName(const LoadBalancingConfig& policy) {
  if (policy.xds_cluster_resolver_experimental) return kResolverPolicy;
  if (policy.xds_cluster_impl_experimental) {
    return "xds_cluster_impl_experimental";
  }
  if (policy.priority_experimental) return kPriorityPolicy;
  if (policy.weighted_target_experimental) {
    return "weighted_target_experimental";
  }
  if (policy.round_robin) return "round_robin";
  if (policy.pick_first) return "pick_first";
  if (policy.cds_experimental) return "cds_experimental";
  return "";
}

void CheckPolicy(const LoadBalancingConfig& policy, ValidationErrors* errors);

// gRPC uses the first policy of a list it knows; a list without one fails.
// Returns the index of that policy, or -1.
int CheckPolicyList(const std::vector<LoadBalancingConfig>& list,
                    ValidationErrors* errors) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (PolicyName(list[i]).empty()) continue;
    ValidationErrors::ScopedField field(errors, absl::StrCat("[", i, "]"));
    CheckPolicy(list[i], errors);
    return static_cast<int>(i);
  }
  errors->AddError("no known LB policy in list");
  return -1;
}

void CheckPolicy(const LoadBalancingConfig& policy, ValidationErrors* errors) {
  if (const auto& resolver = policy.xds_cluster_resolver_experimental) {
    ValidationErrors::ScopedField field(errors,
                                        absl::StrCat(".", kResolverPolicy));
    for (size_t i = 0; i < resolver->discovery_mechanisms.size(); ++i) {
      const SchemaMechanism& m = resolver->discovery_mechanisms[i];
      if (m.type == SchemaMechanism::Type::LOGICAL_DNS &&
          m.dns_hostname.empty()) {
        ValidationErrors::ScopedField entry(
            errors, absl::StrCat(".discoveryMechanisms[", i, "].dnsHostname"));
        errors->AddError("must be non-empty for LOGICAL_DNS");
      }
    }
    // An empty xdsLbPolicy means round_robin, as in C-core.
    if (!resolver->xds_lb_policy.empty()) {
      ValidationErrors::ScopedField entry(errors, ".xdsLbPolicy");
      CheckPolicyList(resolver->xds_lb_policy, errors);
    }
  } else if (const auto& impl = policy.xds_cluster_impl_experimental) {
    ValidationErrors::ScopedField field(
        errors, ".xds_cluster_impl_experimental.childPolicy");
    CheckPolicyList(impl->child_policy, errors);
  } else if (const auto& priority = policy.priority_experimental) {
    ValidationErrors::ScopedField field(errors,
                                        absl::StrCat(".", kPriorityPolicy));
    for (size_t i = 0; i < priority->priorities.size(); ++i) {
      const std::string& name = priority->priorities[i];
      if (priority->children.count(name) == 0) {
        ValidationErrors::ScopedField entry(
            errors, absl::StrCat(".priorities[", i, "]"));
        errors->AddError(absl::StrCat("no child named \"", name, "\""));
      }
    }
    for (const auto& [name, child] : priority->children) {
      ValidationErrors::ScopedField entry(
          errors,
          absl::StrCat(".children", ValidationErrors::MapKey(name), ".config"));
      CheckPolicyList(child.config, errors);
    }
  } else if (const auto& weighted = policy.weighted_target_experimental) {
    ValidationErrors::ScopedField field(errors,
                                        ".weighted_target_experimental");
    for (const auto& [name, target] : weighted->targets) {
      ValidationErrors::ScopedField entry(
          errors, absl::StrCat(".targets", ValidationErrors::MapKey(name),
                               ".childPolicy"));
      CheckPolicyList(target.child_policy, errors);
    }
  }
}

// Loads a policy list and returns its first known policy, which must be
// `want`.
absl::StatusOr<LoadBalancingConfig> ParsePolicy(const Json::Value& json,
                                                absl::string_view want) {
  const std::string prefix =
      absl::StrCat("errors validating ", want, " config");
  absl::StatusOr<std::vector<LoadBalancingConfig>> list =
      json::ParseArray<LoadBalancingConfig>(json, prefix);
  if (!list.ok()) return list.status();
  ValidationErrors errors;
  const int index = CheckPolicyList(*list, &errors);
  if (index >= 0) {
    const absl::string_view got = PolicyName((*list)[index]);
    if (got != want) {
      ValidationErrors::ScopedField field(&errors,
                                          absl::StrCat("[", index, "]"));
      errors.AddError(absl::StrCat("is ", got, ", expected ", want));
    }
  }
  if (!errors.ok()) return errors.status(prefix);
  return std::move((*list)[index]);
}

}  // namespace

std::shared_ptr<const EndpointResource> EndpointsFromDnsAddresses(
    absl::string_view cluster_name, const std::vector<std::string>& addresses) {
  auto resource = std::make_shared<EndpointResource>();
  resource->cluster_name = std::string(cluster_name);
  EndpointResource::LocalityEndpoints group;
  group.weight = 1;
  group.endpoints.reserve(addresses.size());
  for (const std::string& address : addresses) {
    EndpointResource::Endpoint endpoint;
    endpoint.address = address;
    group.endpoints.push_back(std::move(endpoint));
  }
  resource->priorities.emplace_back();
  resource->priorities[0].localities.emplace(EndpointResource::Locality{},
                                             std::move(group));
  return resource;
}

std::vector<LoadBalancingConfig> DefaultXdsLbPolicy() {
  std::vector<LoadBalancingConfig> list(1);
  list[0].round_robin.emplace();
  return list;
}

absl::StatusOr<schema::XdsClusterResolverLbConfig> BuildClusterResolverConfig(
    absl::Span<const ResolvedMechanism> mechanisms,
    std::vector<LoadBalancingConfig> xds_lb_policy) {
  ValidationErrors errors;
  CheckMechanisms(mechanisms, &errors);
  if (!errors.ok()) return errors.status("invalid discovery mechanisms");
  schema::XdsClusterResolverLbConfig config;
  config.discovery_mechanisms.reserve(mechanisms.size());
  for (const ResolvedMechanism& resolved : mechanisms) {
    config.discovery_mechanisms.push_back(ToSchema(resolved));
  }
  config.xds_lb_policy =
      xds_lb_policy.empty() ? DefaultXdsLbPolicy() : std::move(xds_lb_policy);
  return config;
}

absl::StatusOr<PriorityConfig> BuildPriorityConfig(
    absl::Span<const ResolvedMechanism> mechanisms,
    absl::Span<PriorityChildNamer> namers,
    const std::vector<LoadBalancingConfig>& xds_lb_policy) {
  ValidationErrors errors;
  CheckMechanisms(mechanisms, &errors);
  if (!errors.ok()) return errors.status("invalid discovery mechanisms");
  if (namers.size() != mechanisms.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("got ", namers.size(), " priority child namers for ",
                     mechanisms.size(), " discovery mechanisms"));
  }
  std::vector<LoadBalancingConfig> default_policy;
  if (xds_lb_policy.empty()) default_policy = DefaultXdsLbPolicy();
  const std::vector<LoadBalancingConfig>& endpoint_policy =
      xds_lb_policy.empty() ? default_policy : xds_lb_policy;

  PriorityConfig out;
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    const ResolvedMechanism& resolved = mechanisms[i];
    const std::vector<size_t>& numbers = namers[i].Update(resolved.endpoints);
    const bool has_priorities = resolved.endpoints != nullptr &&
                                !resolved.endpoints->priorities.empty();
    for (size_t p = 0; p < numbers.size(); ++p) {
      PriorityChildAssignment assignment;
      assignment.child_name =
          PriorityChildName(resolved.mechanism.cluster, numbers[p]);
      assignment.mechanism_index = i;
      assignment.cluster = resolved.mechanism.cluster;
      assignment.priority = p;
      schema::PriorityLbConfig::Child child;
      child.config.push_back(MakeClusterImpl(
          resolved,
          has_priorities ? &resolved.endpoints->priorities[p] : nullptr,
          endpoint_policy, &assignment));
      // A37 §Priority Policy Reresolution Handling: EDS priorities must not
      // trigger DNS re-resolution in a LOGICAL_DNS priority.
      child.ignore_reresolution_requests =
          resolved.mechanism.type == DiscoveryMechanism::Type::kEds;
      out.config.priorities.push_back(assignment.child_name);
      out.config.children.emplace(assignment.child_name, std::move(child));
      out.children.push_back(std::move(assignment));
    }
  }
  return out;
}

absl::StatusOr<PriorityConfig> PriorityConfigBuilder::Build(
    absl::Span<const ResolvedMechanism> mechanisms) {
  bool same = mechanisms.size() == mechanisms_.size();
  for (size_t i = 0; same && i < mechanisms.size(); ++i) {
    same = mechanisms[i].mechanism == mechanisms_[i] &&
           mechanisms[i].lrs_server == lrs_servers_[i];
  }
  if (same)
    return BuildPriorityConfig(mechanisms, absl::MakeSpan(namers_),
                               xds_lb_policy_);
  // A new mechanism list: fresh names, kept only if the build succeeds.
  std::vector<PriorityChildNamer> namers(mechanisms.size());
  absl::StatusOr<PriorityConfig> config =
      BuildPriorityConfig(mechanisms, absl::MakeSpan(namers), xds_lb_policy_);
  if (!config.ok()) return config;
  mechanisms_.clear();
  lrs_servers_.clear();
  for (const ResolvedMechanism& resolved : mechanisms) {
    mechanisms_.push_back(resolved.mechanism);
    lrs_servers_.push_back(resolved.lrs_server);
  }
  namers_ = std::move(namers);
  return config;
}

Json::Value PriorityConfig::ToJson() const {
  return ServiceConfigJson(WrapPolicy(config));
}

Json::Value PriorityConfig::EndpointsToJson() const {
  Json::Value out(Json::arrayValue);
  for (const PriorityChildAssignment& child : children) {
    Json::Value entry(Json::objectValue);
    entry["child"] = child.child_name;
    entry["cluster"] = child.cluster;
    Json::Value& localities = entry["localities"] = Json::arrayValue;
    for (const LocalityAssignment& locality : child.localities) {
      Json::Value item(Json::objectValue);
      item["locality"] = locality.name;
      item["weight"] = locality.weight;
      Json::Value& endpoints = item["endpoints"] = Json::arrayValue;
      for (const auto& endpoint : locality.endpoints) {
        Json::Value e(Json::objectValue);
        e["address"] = endpoint.address;
        e["weight"] = endpoint.load_balancing_weight;
        endpoints.append(std::move(e));
      }
      localities.append(std::move(item));
    }
    out.append(std::move(entry));
  }
  return out;
}

LoadBalancingConfig WrapPolicy(schema::XdsClusterResolverLbConfig c) {
  LoadBalancingConfig policy;
  policy.xds_cluster_resolver_experimental = std::move(c);
  return policy;
}

LoadBalancingConfig WrapPolicy(schema::PriorityLbConfig c) {
  LoadBalancingConfig policy;
  policy.priority_experimental = std::move(c);
  return policy;
}

Json::Value ServiceConfigJson(const LoadBalancingConfig& policy) {
  Json::Value list(Json::arrayValue);
  list.append(policy.ToJson());
  return list;
}

absl::StatusOr<schema::XdsClusterResolverLbConfig> ParseClusterResolverConfig(
    const Json::Value& json) {
  absl::StatusOr<LoadBalancingConfig> policy =
      ParsePolicy(json, kResolverPolicy);
  if (!policy.ok()) return policy.status();
  return std::move(*policy->xds_cluster_resolver_experimental);
}

absl::StatusOr<schema::PriorityLbConfig> ParsePriorityConfig(
    const Json::Value& json) {
  absl::StatusOr<LoadBalancingConfig> policy =
      ParsePolicy(json, kPriorityPolicy);
  if (!policy.ok()) return policy.status();
  return std::move(*policy->priority_experimental);
}

absl::Status CheckLbPolicy(const LoadBalancingConfig& policy,
                           absl::string_view prefix) {
  ValidationErrors errors;
  if (PolicyName(policy).empty()) {
    errors.AddError("no known LB policy");
  } else {
    CheckPolicy(policy, &errors);
  }
  return errors.status(prefix);
}

}  // namespace cluster
}  // namespace xdsfed
