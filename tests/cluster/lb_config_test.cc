// Tests for lib/cluster/lb_config.h and priority_child_names.h: the LB policy
// configs of gRFC A37 (with A47 §LB Policy Config Changes: the LRS server is
// an XdsServer) built from a resolved cluster tree, checked against what
// gRPC C-core 1.51's xds_cluster_resolver.cc generates (child names
// "{cluster=X, child_number=N}", weighted_target targets named by the
// locality's human-readable form, pick_first for LOGICAL_DNS,
// ignore_reresolution_requests for EDS), and round-tripped through the
// generated loaders.
#include "lib/cluster/lb_config.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/json/json_reader.h"

namespace xdsfed {
namespace cluster {
namespace {

using resources::ClusterResource;
using resources::EndpointResource;

// The JSON text in the form JsonToString writes, so that expected configs
// can be written by hand and compared as strings (jsoncpp's == tells int
// from uint).
std::string Canon(absl::string_view text) {
  absl::StatusOr<Json::Value> json = ParseJsonText(text);
  EXPECT_TRUE(json.ok()) << json.status() << "\n" << text;
  return json.ok() ? JsonToString(*json) : "";
}

XdsServerConfig LrsServer() {
  return XdsServerConfig("lrs.example.com:443", "insecure",
                         Json::Value(Json::objectValue), {});
}

// An EDS update: priorities of localities named by sub_zone (region "r",
// zone "z"), each of weight 10 with one endpoint.
std::shared_ptr<const EndpointResource> Eds(
    const std::vector<std::vector<std::string>>& priorities,
    std::vector<EndpointResource::DropCategory> drops = {}) {
  auto resource = std::make_shared<EndpointResource>();
  int n = 0;
  for (const auto& localities : priorities) {
    EndpointResource::Priority priority;
    for (const std::string& sub_zone : localities) {
      EndpointResource::LocalityEndpoints group;
      group.weight = 10;
      group.endpoints.push_back({absl::StrCat("10.0.0.", ++n, ":80")});
      priority.localities.emplace(
          EndpointResource::Locality{"r", "z", sub_zone}, std::move(group));
    }
    resource->priorities.push_back(std::move(priority));
  }
  resource->drop_categories = std::move(drops);
  return resource;
}

ResolvedMechanism EdsMechanism(
    const std::string& cluster,
    std::shared_ptr<const EndpointResource> endpoints,
    std::optional<XdsServerConfig> lrs = std::nullopt) {
  ResolvedMechanism m;
  m.mechanism.cluster = cluster;
  m.mechanism.type = DiscoveryMechanism::Type::kEds;
  m.lrs_server = std::move(lrs);
  m.endpoints = std::move(endpoints);
  return m;
}

ResolvedMechanism DnsMechanism(
    const std::string& cluster, const std::string& host_port,
    std::shared_ptr<const EndpointResource> endpoints) {
  ResolvedMechanism m;
  m.mechanism.cluster = cluster;
  m.mechanism.type = DiscoveryMechanism::Type::kLogicalDns;
  m.mechanism.dns_hostname = host_port;
  m.endpoints = std::move(endpoints);
  return m;
}

// Builds with fresh namers, checks the round trip through the generated
// loaders (typed value and JSON text), and returns the config.
PriorityConfig BuildAndRoundTrip(const std::vector<ResolvedMechanism>& ms) {
  std::vector<PriorityChildNamer> namers(ms.size());
  absl::StatusOr<PriorityConfig> config =
      BuildPriorityConfig(ms, absl::MakeSpan(namers));
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  const Json::Value json = config->ToJson();
  absl::StatusOr<schema::PriorityLbConfig> parsed = ParsePriorityConfig(json);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (parsed.ok()) {
    EXPECT_TRUE(*parsed == config->config);
  }
  // Each nested generated config on its own, too.
  for (const auto& [name, child] : config->config.children) {
    SCOPED_TRACE(name);
    auto child_parsed =
        schema::PriorityLbConfig::Child::Parse(child.ToJson(), "child");
    EXPECT_TRUE(child_parsed.ok() && *child_parsed == child);
    const auto& impl = *child.config[0].xds_cluster_impl_experimental;
    auto impl_parsed =
        schema::XdsClusterImplLbConfig::Parse(impl.ToJson(), "impl");
    EXPECT_TRUE(impl_parsed.ok() && *impl_parsed == impl);
    if (const auto& wt = impl.child_policy[0].weighted_target_experimental) {
      auto wt_parsed =
          schema::WeightedTargetLbConfig::Parse(wt->ToJson(), "wt");
      EXPECT_TRUE(wt_parsed.ok() && *wt_parsed == *wt);
    }
  }
  absl::StatusOr<Json::Value> reread = ParseJsonText(JsonToString(json));
  EXPECT_TRUE(reread.ok());
  if (reread.ok()) {
    parsed = ParsePriorityConfig(*reread);
    EXPECT_TRUE(parsed.ok() && *parsed == config->config);
  }
  EXPECT_EQ(config->children.size(), config->config.priorities.size());
  return *std::move(config);
}

// gRFC A37 §CDS LB Policy Support for Aggregate and Logical DNS Clusters:
// A -> [B, C], C -> [D, E] gives [EDS B, EDS D, LOGICAL_DNS E].
std::vector<ResolvedMechanism> A37Example() {
  std::map<std::string, ClusterResource> clusters;
  auto add = [&](const std::string& name) -> ClusterResource& {
    ClusterResource& c = clusters[name];
    c.name = name;
    return c;
  };
  add("A").kind = ClusterResource::Aggregate{{"B", "C"}};
  add("B").lrs_load_reporting_server_is_self = true;
  add("C").kind = ClusterResource::Aggregate{{"D", "E"}};
  ClusterResource& d = add("D");
  d.kind = ClusterResource::Eds{"svc-d"};
  d.max_concurrent_requests = 100;
  add("E").kind = ClusterResource::LogicalDns{"e.example.com", 443};
  ClusterTreeResult tree = ResolveClusterTree("A", [&](absl::string_view name) {
    auto it = clusters.find(std::string(name));
    if (it == clusters.end()) return ClusterLookupResult::Pending();
    return ClusterLookupResult::Received(it->second);
  });
  EXPECT_TRUE(tree.ok()) << tree.error;
  std::vector<ResolvedMechanism> out;
  for (const DiscoveryMechanism& m : tree.mechanisms) {
    ResolvedMechanism resolved;
    resolved.mechanism = m;
    // The caller expands `self` to the server the Cluster came from.
    if (m.lrs_load_reporting_server_is_self) resolved.lrs_server = LrsServer();
    out.push_back(std::move(resolved));
  }
  return out;
}

// A37 §xds_cluster_resolver_experimental LB Policy (config), A47 §LB Policy
// Config Changes (lrsLoadReportingServer is an XdsServer object).
TEST(ClusterResolverConfigTest, A37Example) {
  std::vector<ResolvedMechanism> ms = A37Example();
  absl::StatusOr<schema::XdsClusterResolverLbConfig> config =
      BuildClusterResolverConfig(ms);
  ASSERT_TRUE(config.ok()) << config.status();
  const Json::Value json = ServiceConfigJson(WrapPolicy(*config));
  EXPECT_EQ(JsonToString(json), Canon(R"([{"xds_cluster_resolver_experimental":{
    "discoveryMechanisms":[
      {"clusterName":"B","type":"EDS","max_concurrent_requests":1024,
       "lrsLoadReportingServer":{"server_uri":"lrs.example.com:443",
                                 "channel_creds":[{"type":"insecure"}]}},
      {"clusterName":"D","type":"EDS","edsServiceName":"svc-d",
       "max_concurrent_requests":100},
      {"clusterName":"E","type":"LOGICAL_DNS","dnsHostname":"e.example.com:443",
       "max_concurrent_requests":1024}],
    "xdsLbPolicy":[{"round_robin":{}}]}}])"));
  // Round trip through the generated loaders, value and text.
  absl::StatusOr<schema::XdsClusterResolverLbConfig> parsed =
      ParseClusterResolverConfig(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == *config);
  absl::StatusOr<Json::Value> reread = ParseJsonText(JsonToString(json));
  ASSERT_TRUE(reread.ok());
  parsed = ParseClusterResolverConfig(*reread);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == *config);
  // The LRS server converts back to an equal XdsServerConfig.
  ValidationErrors errors;
  std::optional<XdsServerConfig> lrs = XdsServerConfig::FromSchema(
      *parsed->discovery_mechanisms[0].lrs_load_reporting_server, &errors);
  ASSERT_TRUE(lrs.has_value()) << errors.Message();
  EXPECT_TRUE(*lrs == LrsServer());
}

TEST(ClusterResolverConfigTest, XdsLbPolicyIsKept) {
  std::vector<schema::LoadBalancingConfig> policy(1);
  policy[0].pick_first.emplace();
  auto config =
      BuildClusterResolverConfig({EdsMechanism("B", nullptr)}, policy);
  ASSERT_TRUE(config.ok());
  EXPECT_TRUE(config->xds_lb_policy == policy);
}

// The full priority config of the A37 example: EDS B (two priorities, LRS),
// EDS D (drops, max requests 100), LOGICAL_DNS E (two addresses).
TEST(PriorityConfigTest, A37Example) {
  std::vector<ResolvedMechanism> ms = A37Example();
  ms[0].endpoints = Eds({{"s1"}, {"s2"}});
  ms[1].endpoints = Eds({{"s3"}}, {{"lb", 1000}});
  ms[2].endpoints =
      EndpointsFromDnsAddresses("E", {"10.1.0.1:443", "[2001:db8::1]:443"});
  PriorityConfig config = BuildAndRoundTrip(ms);
  const std::string rr_target =
      R"({"weight":10,"childPolicy":[{"round_robin":{}}]})";
  const std::string lrs =
      R"({"server_uri":"lrs.example.com:443","channel_creds":[{"type":"insecure"}]})";
  EXPECT_EQ(JsonToString(config.ToJson()),
            Canon(absl::StrCat(R"(
  [{"priority_experimental":{
    "children":{
      "{cluster=B, child_number=0}":{"ignore_reresolution_requests":true,
        "config":[{"xds_cluster_impl_experimental":{
          "clusterName":"B","lrsLoadReportingServer":)",
                               lrs, R"(,
          "maxConcurrentRequests":1024,"dropCategories":[],
          "childPolicy":[{"weighted_target_experimental":{"targets":{
            "{region=\"r\", zone=\"z\", sub_zone=\"s1\"}":)",
                               rr_target, R"(}}}]}}]},
      "{cluster=B, child_number=1}":{"ignore_reresolution_requests":true,
        "config":[{"xds_cluster_impl_experimental":{
          "clusterName":"B","lrsLoadReportingServer":)",
                               lrs, R"(,
          "maxConcurrentRequests":1024,"dropCategories":[],
          "childPolicy":[{"weighted_target_experimental":{"targets":{
            "{region=\"r\", zone=\"z\", sub_zone=\"s2\"}":)",
                               rr_target, R"(}}}]}}]},
      "{cluster=D, child_number=0}":{"ignore_reresolution_requests":true,
        "config":[{"xds_cluster_impl_experimental":{
          "clusterName":"D","edsServiceName":"svc-d",
          "maxConcurrentRequests":100,
          "dropCategories":[{"category":"lb","requests_per_million":1000}],
          "childPolicy":[{"weighted_target_experimental":{"targets":{
            "{region=\"r\", zone=\"z\", sub_zone=\"s3\"}":)",
                               rr_target, R"(}}}]}}]},
      "{cluster=E, child_number=0}":{
        "config":[{"xds_cluster_impl_experimental":{
          "clusterName":"E","maxConcurrentRequests":1024,"dropCategories":[],
          "childPolicy":[{"pick_first":{}}]}}]}},
    "priorities":["{cluster=B, child_number=0}","{cluster=B, child_number=1}",
                  "{cluster=D, child_number=0}","{cluster=E, child_number=0}"]
  }}])")));
  // The endpoints beside the config, for printing.
  EXPECT_EQ(JsonToString(config.EndpointsToJson()), Canon(R"([
    {"child":"{cluster=B, child_number=0}","cluster":"B","localities":[
      {"locality":"{region=\"r\", zone=\"z\", sub_zone=\"s1\"}","weight":10,
       "endpoints":[{"address":"10.0.0.1:80","weight":1}]}]},
    {"child":"{cluster=B, child_number=1}","cluster":"B","localities":[
      {"locality":"{region=\"r\", zone=\"z\", sub_zone=\"s2\"}","weight":10,
       "endpoints":[{"address":"10.0.0.2:80","weight":1}]}]},
    {"child":"{cluster=D, child_number=0}","cluster":"D","localities":[
      {"locality":"{region=\"r\", zone=\"z\", sub_zone=\"s3\"}","weight":10,
       "endpoints":[{"address":"10.0.0.1:80","weight":1}]}]},
    {"child":"{cluster=E, child_number=0}","cluster":"E","localities":[
      {"locality":"{region=\"\", zone=\"\", sub_zone=\"\"}","weight":1,
       "endpoints":[{"address":"10.1.0.1:443","weight":1},
                    {"address":"[2001:db8::1]:443","weight":1}]}]}])"));
  ASSERT_EQ(config.children.size(), 4u);
  EXPECT_EQ(config.children[1].mechanism_index, 0u);
  EXPECT_EQ(config.children[1].priority, 1u);
  EXPECT_EQ(config.children[3].mechanism_index, 2u);
}

// A37 §xds_cluster_resolver_experimental LB Policy: the per-mechanism
// settings of each child.
TEST(PriorityConfigTest, PerMechanismChildSettings) {
  struct Case {
    const char* name;  // what the row checks, with its spec section
    ResolvedMechanism mechanism;
    bool ignore_reresolution;
    const char* child_policy;  // the only policy in childPolicy
    size_t targets;            // weighted_target targets
  };
  const Case kCases[] = {
      // A37: EDS "will not support re-resolution" -> ignore requests;
      // §Priority Policy Reresolution Handling.
      {"EDS: weighted_target, ignore_reresolution_requests",
       EdsMechanism("B", Eds({{"a", "b"}})), true,
       "weighted_target_experimental", 2},
      // A37: logical DNS "will override the child policy for its priority
      // to be pick_first, and it will support re-resolution".
      {"LOGICAL_DNS: pick_first, re-resolution allowed",
       DnsMechanism("E", "e:443",
                    EndpointsFromDnsAddresses("E", {"1.2.3.4:1"})),
       false, "pick_first", 0},
      // A37: "If any discovery mechanism instance experiences an error
      // retrieving data, and it has not previously reported any results, it
      // should report ... a single priority with no endpoints."
      {"EDS failed (null): one priority, no targets",
       EdsMechanism("B", nullptr), true, "weighted_target_experimental", 0},
      // A37: "An EDS discovery mechanism should do the same if its watcher
      // reports that the resource does not exist".
      {"EDS with zero priorities: one priority, no targets",
       EdsMechanism("B", std::make_shared<EndpointResource>()), true,
       "weighted_target_experimental", 0},
      {"LOGICAL_DNS failed (null): one priority, pick_first",
       DnsMechanism("E", "e:443", nullptr), false, "pick_first", 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    PriorityConfig config = BuildAndRoundTrip({c.mechanism});
    ASSERT_EQ(config.config.priorities.size(), 1u);
    const auto& child = config.config.children.at(config.config.priorities[0]);
    EXPECT_EQ(child.ignore_reresolution_requests, c.ignore_reresolution);
    ASSERT_EQ(child.config.size(), 1u);
    const auto& impl = *child.config[0].xds_cluster_impl_experimental;
    ASSERT_EQ(impl.child_policy.size(), 1u);
    const Json::Value policy = impl.child_policy[0].ToJson();
    EXPECT_EQ(policy.getMemberNames(),
              std::vector<std::string>{c.child_policy});
    if (impl.child_policy[0].weighted_target_experimental) {
      EXPECT_EQ(
          impl.child_policy[0].weighted_target_experimental->targets.size(),
          c.targets);
    }
    EXPECT_EQ(
        config.children[0].localities.size(),
        c.mechanism.endpoints && !c.mechanism.endpoints->priorities.empty()
            ? c.mechanism.endpoints->priorities[0].localities.size()
            : 0u);
  }
}

// A37 §xds_cluster_impl_experimental LB Policy: drops and LRS come from the
// mechanism the priority belongs to; A47 §LRS Server Representation.
TEST(PriorityConfigTest, DropsAndLrsPerMechanism) {
  std::vector<EndpointResource::DropCategory> drops = {{"lb", 1000},
                                                       {"throttle", 50}};
  PriorityConfig config = BuildAndRoundTrip(
      {EdsMechanism("B", Eds({{"a"}, {"b"}}, drops), LrsServer()),
       EdsMechanism("C", Eds({{"c"}}))});
  ASSERT_EQ(config.config.priorities.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(config.config.priorities[i]);
    const auto& impl = *config.config.children.at(config.config.priorities[i])
                            .config[0]
                            .xds_cluster_impl_experimental;
    const bool from_b = i < 2;
    // Every priority of B carries B's drops, and C's carry none.
    ASSERT_EQ(impl.drop_categories.size(), from_b ? 2u : 0u);
    if (from_b) {
      EXPECT_EQ(impl.drop_categories[1].category, "throttle");
      EXPECT_EQ(impl.drop_categories[1].requests_per_million, 50u);
    }
    EXPECT_EQ(impl.lrs_load_reporting_server.has_value(), from_b);
    if (from_b) {
      EXPECT_TRUE(*impl.lrs_load_reporting_server == LrsServer().ToSchema());
    }
  }
  // Absent LRS server: no "lrsLoadReportingServer" key at all (load
  // reporting off); no drops: "dropCategories": [] (C-core 1.51 requires it).
  const Json::Value impl_json =
      config.ToJson()[0]["priority_experimental"]["children"]
                     ["{cluster=C, child_number=0}"]["config"][0]
                     ["xds_cluster_impl_experimental"];
  EXPECT_FALSE(impl_json.isMember("lrsLoadReportingServer"));
  EXPECT_EQ(JsonToString(impl_json["dropCategories"]), "[]");
}

// A37 §xds_cluster_resolver_experimental LB Policy: "Each discovery instance
// will also separately track the priority names it generates and the
// corresponding localities, to preserve them across updates" -- by C-core
// 1.51's rule (see priority_child_names.h).
TEST(PriorityChildNamerTest, StableAcrossUpdates) {
  // "" = a failed update (null resource).
  using Update = std::vector<std::vector<std::string>>;
  struct Case {
    const char* name;
    std::vector<std::optional<Update>> updates;
    std::vector<std::vector<size_t>> want;  // numbers after each update
  };
  const Case kCases[] = {
      {"initial update numbers priorities in order",
       {Update{{"a", "b"}, {"c", "d"}}},
       {{0, 1}}},
      {"same localities keep their numbers",
       {Update{{"a", "b"}, {"c"}}, Update{{"a", "b"}, {"c"}}},
       {{0, 1}, {0, 1}}},
      {"locality moved to a lower priority: both keep their numbers",
       {Update{{"a", "b"}, {"c", "d"}}, Update{{"a"}, {"b", "c", "d"}}},
       {{0, 1}, {0, 1}}},
      {"priorities swapped: names follow the localities",
       {Update{{"a", "b"}, {"c", "d"}}, Update{{"c", "d"}, {"a", "b"}}},
       {{0, 1}, {1, 0}}},
      {"priority added on top: fresh number, others kept",
       {Update{{"a"}, {"b"}}, Update{{"x"}, {"a"}, {"b"}}},
       {{0, 1}, {2, 0, 1}}},
      {"priority removed, then back: it gets a fresh number",
       {Update{{"a"}, {"b"}, {"c"}}, Update{{"b"}, {"c"}},
        Update{{"a"}, {"b"}, {"c"}}},
       {{0, 1, 2}, {1, 2}, {3, 1, 2}}},
      {"disjoint localities: new name",
       {Update{{"a"}}, Update{{"z"}}},
       {{0}, {1}}},
      {"merged priorities take the first locality's number",
       {Update{{"a"}, {"b"}}, Update{{"b", "a"}}},
       {{0, 1}, {0}}},
      {"split: a number is taken once, the rest is fresh",
       {Update{{"a", "b"}}, Update{{"a"}, {"b"}}},
       {{0}, {0, 1}}},
      // First-fit: {b,c} would find b (old 0) but 0 is already taken by
      // {a}, which also removed b from the claimable set; c leads it to 1.
      {"first-fit skips a taken number",
       {Update{{"a", "b"}, {"c"}}, Update{{"a"}, {"b", "c"}}},
       {{0, 1}, {0, 1}}},
      {"a new locality in a priority does not change its name",
       {Update{{"b"}}, Update{{"a", "b"}}},
       {{0}, {0}}},
      // A37: failure before any result = one priority with no endpoints; a
      // priority without localities never matches, so it is always fresh.
      {"failed, failed again, then data",
       {std::nullopt, std::nullopt, Update{{"a"}}},
       {{0}, {1}, {2}}},
      {"data, then does-not-exist, then the same data",
       {Update{{"a"}}, std::nullopt, Update{{"a"}}},
       {{0}, {1}, {2}}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    PriorityChildNamer namer;
    ASSERT_EQ(c.updates.size(), c.want.size());
    for (size_t u = 0; u < c.updates.size(); ++u) {
      SCOPED_TRACE(absl::StrCat("update ", u));
      EXPECT_EQ(namer.Update(c.updates[u] ? Eds(*c.updates[u]) : nullptr),
                c.want[u]);
    }
  }
}

// The names in the built config follow the namer, per mechanism.
TEST(PriorityConfigTest, NamesStableAcrossUpdatesPerMechanism) {
  PriorityConfigBuilder builder;
  std::vector<ResolvedMechanism> ms = {
      EdsMechanism("B", Eds({{"a"}, {"b"}})),
      DnsMechanism("E", "e:443",
                   EndpointsFromDnsAddresses("E", {"1.1.1.1:1"}))};
  auto first = builder.Build(ms);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->config.priorities,
            (std::vector<std::string>{"{cluster=B, child_number=0}",
                                      "{cluster=B, child_number=1}",
                                      "{cluster=E, child_number=0}"}));
  // B's priorities swap and gain one; E's addresses change (same locality).
  ms[0].endpoints = Eds({{"b"}, {"a"}, {"c"}});
  ms[1].endpoints = EndpointsFromDnsAddresses("E", {"2.2.2.2:1"});
  auto second = builder.Build(ms);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->config.priorities,
            (std::vector<std::string>{
                "{cluster=B, child_number=1}", "{cluster=B, child_number=0}",
                "{cluster=B, child_number=2}", "{cluster=E, child_number=0}"}));
  // A changed mechanism list is a new xds_cluster_resolver policy in
  // C-core: names start over.
  ms[0].lrs_server = LrsServer();
  auto third = builder.Build(ms);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->config.priorities[0], "{cluster=B, child_number=0}");
  EXPECT_EQ(third->config.priorities[2], "{cluster=B, child_number=2}");
}

// 1,000 localities over 4 priorities: every locality is a target, names
// stay unique, the JSON round-trips, and a reshuffle keeps child names.
TEST(PriorityConfigTest, ThousandLocalities) {
  std::vector<std::vector<std::string>> priorities(4);
  for (int i = 0; i < 1000; ++i) {
    priorities[i % 4].push_back(absl::StrCat("sz", i));
  }
  PriorityConfigBuilder builder;
  std::vector<ResolvedMechanism> ms = {EdsMechanism("B", Eds(priorities))};
  auto config = builder.Build(ms);
  ASSERT_TRUE(config.ok()) << config.status();
  size_t targets = 0;
  std::set<std::string> names;
  for (const auto& [name, child] : config->config.children) {
    for (const auto& [target, value] :
         child.config[0]
             .xds_cluster_impl_experimental->child_policy[0]
             .weighted_target_experimental->targets) {
      ++targets;
      names.insert(target);
      EXPECT_EQ(value.weight, 10u);
    }
  }
  EXPECT_EQ(targets, 1000u);
  EXPECT_EQ(names.size(), 1000u);
  auto parsed = ParsePriorityConfig(config->ToJson());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == config->config);
  // Rotate the priorities: each keeps its name through its localities.
  std::rotate(priorities.begin(), priorities.begin() + 1, priorities.end());
  ms[0].endpoints = Eds(priorities);
  auto rotated = builder.Build(ms);
  ASSERT_TRUE(rotated.ok());
  EXPECT_EQ(rotated->config.priorities,
            (std::vector<std::string>{
                "{cluster=B, child_number=1}", "{cluster=B, child_number=2}",
                "{cluster=B, child_number=3}", "{cluster=B, child_number=0}"}));
}

TEST(EndpointsFromDnsAddressesTest, OnePriorityOneEmptyLocality) {
  // A37: "All endpoints will be reported in a single priority and a single
  // locality, whose fields are empty"; C-core gives it weight 1.
  auto endpoints =
      EndpointsFromDnsAddresses("E", {"10.0.0.1:443", "10.0.0.2:443"});
  ASSERT_EQ(endpoints->priorities.size(), 1u);
  ASSERT_EQ(endpoints->priorities[0].localities.size(), 1u);
  const auto& [locality, group] = *endpoints->priorities[0].localities.begin();
  EXPECT_EQ(locality, (EndpointResource::Locality{"", "", ""}));
  EXPECT_EQ(group.weight, 1u);
  ASSERT_EQ(group.endpoints.size(), 2u);
  EXPECT_EQ(group.endpoints[1].address, "10.0.0.2:443");
  EXPECT_EQ(endpoints->cluster_name, "E");
  EXPECT_TRUE(endpoints->drop_categories.empty());
  // No addresses: still the one locality, with no endpoints.
  auto empty = EndpointsFromDnsAddresses("E", {});
  ASSERT_EQ(empty->priorities.size(), 1u);
  EXPECT_TRUE(
      empty->priorities[0].localities.begin()->second.endpoints.empty());
}

TEST(LbConfigErrorsTest, InvalidMechanisms) {
  struct Case {
    const char* name;
    std::vector<ResolvedMechanism> mechanisms;
    const char* want;
  };
  const Case kCases[] = {
      {"empty list",
       {},
       "invalid discovery mechanisms: [field:discoveryMechanisms "
       "error:must be non-empty]"},
      {"empty cluster, duplicate cluster, DNS without hostname",
       {EdsMechanism("", nullptr), EdsMechanism("B", nullptr),
        DnsMechanism("B", "", nullptr)},
       "invalid discovery mechanisms: ["
       "field:discoveryMechanisms[0].clusterName error:must be non-empty; "
       "field:discoveryMechanisms[2].clusterName "
       "error:duplicate cluster \"B\"; "
       "field:discoveryMechanisms[2].dnsHostname "
       "error:must be non-empty for LOGICAL_DNS]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(BuildClusterResolverConfig(c.mechanisms).status().message(),
              c.want);
    std::vector<PriorityChildNamer> namers(c.mechanisms.size());
    EXPECT_EQ(BuildPriorityConfig(c.mechanisms, absl::MakeSpan(namers))
                  .status()
                  .message(),
              c.want);
    // A failed build leaves the naming state alone.
    for (const PriorityChildNamer& namer : namers) {
      EXPECT_TRUE(namer.numbers().empty());
    }
  }
  std::vector<PriorityChildNamer> one(1);
  EXPECT_EQ(BuildPriorityConfig(
                {EdsMechanism("A", nullptr), EdsMechanism("B", nullptr)},
                absl::MakeSpan(one))
                .status()
                .message(),
            "got 1 priority child namers for 2 discovery mechanisms");
}

// What the schema leaves to lib/cluster (schema/lb_config.proto header).
TEST(LbConfigErrorsTest, ParseChecks) {
  struct Case {
    const char* name;
    bool priority;  // ParsePriorityConfig, else ParseClusterResolverConfig
    const char* json;
    const char* want;  // "" = OK
  };
  const Case kCases[] = {
      {"unknown policies are skipped", false,
       R"([{"foo":{}},{"xds_cluster_resolver_experimental":{
           "discoveryMechanisms":[{"clusterName":"B","type":"EDS"}],
           "xdsLbPolicy":[]}}])",
       ""},
      {"LOGICAL_DNS needs dnsHostname", false,
       R"([{"xds_cluster_resolver_experimental":{
           "discoveryMechanisms":[{"clusterName":"E","type":"LOGICAL_DNS"}],
           "xdsLbPolicy":[{"round_robin":{}}]}}])",
       "errors validating xds_cluster_resolver_experimental config: "
       "[field:[0].xds_cluster_resolver_experimental.discoveryMechanisms[0]"
       ".dnsHostname error:must be non-empty for LOGICAL_DNS]"},
      {"no known policy", true, R"([{"foo":{}}])",
       "errors validating priority_experimental config: "
       "[field: error:no known LB policy in list]"},
      {"wrong policy", true, R"([{"round_robin":{}}])",
       "errors validating priority_experimental config: "
       "[field:[0] error:is round_robin, expected priority_experimental]"},
      {"priority names a missing child; child has no known policy", true,
       R"([{"priority_experimental":{
           "children":{"c0":{"config":[{"foo":{}}]}},
           "priorities":["c0","c1"]}}])",
       "errors validating priority_experimental config: "
       "[field:[0].priority_experimental.children[\"c0\"].config "
       "error:no known LB policy in list; "
       "field:[0].priority_experimental.priorities[1] "
       "error:no child named \"c1\"]"},
      {"nested lists are checked", true,
       R"([{"priority_experimental":{
           "children":{"c0":{"config":[{"xds_cluster_impl_experimental":{
             "clusterName":"B","childPolicy":[{"weighted_target_experimental":{
               "targets":{"t":{"weight":1,"childPolicy":[]}}}}]}}]}},
           "priorities":["c0"]}}])",
       "errors validating priority_experimental config: "
       "[field:[0].priority_experimental.children[\"c0\"].config[0]"
       ".xds_cluster_impl_experimental.childPolicy[0]"
       ".weighted_target_experimental.targets[\"t\"].childPolicy "
       "error:no known LB policy in list]"},
      {"schema errors come from the generated loader", true,
       R"([{"priority_experimental":{"children":{}}}])",
       "errors validating priority_experimental config: "
       "[field:[0].priority_experimental.priorities error:field not present]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<Json::Value> json = ParseJsonText(c.json);
    ASSERT_TRUE(json.ok()) << json.status();
    absl::Status status = c.priority
                              ? ParsePriorityConfig(*json).status()
                              : ParseClusterResolverConfig(*json).status();
    EXPECT_EQ(status.message(), c.want);
  }
}

}  // namespace
}  // namespace cluster
}  // namespace xdsfed
