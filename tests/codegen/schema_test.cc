// The generated loaders of schema/ (xdsfed::schema) on the examples of gRFC
// A47 and A37, and on bad input with the exact messages lib/bootstrap and
// lib/cluster will pass on.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/json/json_fields.h"
#include "lib/json/json_reader.h"
#include "schema/bootstrap.xds.h"
#include "schema/lb_config.xds.h"
#include "schema/xds_server.xds.h"

namespace xdsfed {
namespace schema {
namespace {

Json::Value J(const std::string& text) {
  absl::StatusOr<Json::Value> json = ParseJsonText(text);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : Json::Value();
}

template <typename T>
void ExpectRoundTrip(const T& value) {
  absl::StatusOr<T> again = T::Parse(value.ToJson(), "round trip");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == value) << JsonToString(value.ToJson());
}

// A47 §Bootstrap Config Changes, "Example: Multiple Authorities" (with the
// example's stray '}' removed).
constexpr char kMultipleAuthorities[] = R"json({
  "xds_servers": [
    {
      "server_uri": "xds-server.authority.com",
      "channel_creds": [ { "type": "google_default" } ]
    }
  ],
  "client_default_listener_resource_name_template": "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",
  "server_listener_resource_name_template": "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/server/%s?project_id=1234",
  "authorities": {
    "xds.authority.com": {
      "client_listener_resource_name_template": "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234"
    },
    "xds.other.com": {
      "xds_servers": [
        {
          "server_uri": "xds-server.other.com",
          "channel_creds": [ { "type": "google_default" } ]
        }
      ]
    }
  }
})json";

TEST(BootstrapSchemaTest, A47MultipleAuthorities) {
  absl::StatusOr<Bootstrap> b =
      Bootstrap::Parse(J(kMultipleAuthorities), "errors validating bootstrap");
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->xds_servers.size(), 1u);
  EXPECT_EQ(b->xds_servers[0].server_uri, "xds-server.authority.com");
  ASSERT_EQ(b->xds_servers[0].channel_creds.size(), 1u);
  EXPECT_EQ(b->xds_servers[0].channel_creds[0].type, "google_default");
  EXPECT_FALSE(b->xds_servers[0].channel_creds[0].config.has_value());
  EXPECT_EQ(*b->client_default_listener_resource_name_template,
            "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/"
            "grpc/client/%s?project_id=1234");
  ASSERT_EQ(b->authorities.size(), 2u);
  const Authority& a = b->authorities.at("xds.authority.com");
  EXPECT_TRUE(a.client_listener_resource_name_template.has_value());
  // Absent xds_servers: use the top-level list (A47).
  EXPECT_FALSE(a.xds_servers.has_value());
  const Authority& other = b->authorities.at("xds.other.com");
  EXPECT_FALSE(other.client_listener_resource_name_template.has_value());
  ASSERT_TRUE(other.xds_servers.has_value());
  ASSERT_EQ(other.xds_servers->size(), 1u);
  EXPECT_EQ((*other.xds_servers)[0].server_uri, "xds-server.other.com");
  ExpectRoundTrip(*b);
}

TEST(BootstrapSchemaTest, AcceptsA47Examples) {
  const std::string kCases[] = {
      // §Example: New-Style Names on gRPC Client.
      R"({"xds_servers": [{"server_uri": "s"}],
          "client_default_listener_resource_name_template":
            "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/%s",
          "authorities": {"xds.authority.com": {}}})",
      // An empty authority name is a valid key; an explicit empty list is
      // kept distinct from an absent one.
      R"({"xds_servers": [{"server_uri": "s", "server_features": ["xds_v3",
          {"x": 1}], "channel_creds": [{"type": "insecure", "config": {}}]}],
          "authorities": {"": {"xds_servers": []}},
          "node": {"id": "n", "cluster": "c", "locality": {"region": "r",
            "zone": "z", "sub_zone": "s"}, "metadata": {"k": ["v"]}},
          "certificate_providers": {"default": {"plugin_name":
            "file_watcher", "config": {"refresh_interval": "10s"}}},
          "unknown_top_level_field": true})",
  };
  for (const std::string& text : kCases) {
    SCOPED_TRACE(text);
    absl::StatusOr<Bootstrap> b =
        Bootstrap::Parse(J(text), "errors validating bootstrap");
    ASSERT_TRUE(b.ok()) << b.status();
    ExpectRoundTrip(*b);
  }
  Bootstrap b = *Bootstrap::Parse(J(kCases[1]), "b");
  ASSERT_TRUE(b.authorities.at("").xds_servers.has_value());
  EXPECT_TRUE(b.authorities.at("").xds_servers->empty());
  EXPECT_EQ(b.node->locality->sub_zone, "s");
  EXPECT_EQ(b.xds_servers[0].server_features.size(), 2u);
  EXPECT_EQ(b.certificate_providers.at("default").plugin_name, "file_watcher");
}

TEST(BootstrapSchemaTest, RejectsBadBootstrap) {
  struct Case {
    std::string in, want;
  };
  const Case kCases[] = {
      {"{}",
       "errors validating bootstrap: [field:xds_servers error:field not "
       "present]"},
      {"[]", "errors validating bootstrap: [field: error:is not an object]"},
      {R"({"xds_servers": []})",
       "errors validating bootstrap: [field:xds_servers error:must be "
       "non-empty]"},
      {R"({"xds_servers": [{"server_uri": "s"}],
           "authorities": {"a.com": {"xds_servers": [{}]}}})",
       "errors validating bootstrap: [field:authorities[\"a.com\"]"
       ".xds_servers[0].server_uri error:field not present]"},
      {R"({"xds_servers": [{"channel_creds": [{"config": []}]}],
           "authorities": {"a.com": {"xds_servers": [{"server_uri": ""}],
             "client_listener_resource_name_template": 1}},
           "node": {"id": 1, "locality": {"sub_zone": []}, "metadata": []},
           "certificate_providers": {"x": {}},
           "client_default_listener_resource_name_template": null})",
       "errors validating bootstrap: ["
       "field:authorities[\"a.com\"].client_listener_resource_name_template "
       "error:is not a string; "
       "field:authorities[\"a.com\"].xds_servers[0].server_uri error:must be "
       "non-empty; "
       "field:certificate_providers[\"x\"].plugin_name error:field not "
       "present; "
       "field:client_default_listener_resource_name_template error:is not a "
       "string; "
       "field:node.id error:is not a string; "
       "field:node.locality.sub_zone error:is not a string; "
       "field:node.metadata error:is not an object; "
       "field:xds_servers[0].channel_creds[0].config error:is not an object; "
       "field:xds_servers[0].channel_creds[0].type error:field not present; "
       "field:xds_servers[0].server_uri error:field not present]"},
      {R"({"xds_servers": [{"server_uri": "s", "channel_creds": {}}],
           "authorities": [], "certificate_providers": {"p": []}})",
       "errors validating bootstrap: [field:authorities error:is not an "
       "object; field:certificate_providers[\"p\"] error:is not an object; "
       "field:xds_servers[0].channel_creds error:is not an array]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    absl::StatusOr<Bootstrap> b =
        Bootstrap::Parse(J(c.in), "errors validating bootstrap");
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(std::string(b.status().message()), c.want);
  }
}

absl::StatusOr<std::vector<LoadBalancingConfig>> ParsePolicyList(
    const std::string& text) {
  return json::ParseArray<LoadBalancingConfig>(J(text),
                                               "errors validating "
                                               "LB policy config");
}

// A37 §xds_cluster_resolver_experimental with A47's lrsLoadReportingServer.
TEST(LbConfigSchemaTest, XdsClusterResolver) {
  absl::StatusOr<std::vector<LoadBalancingConfig>> list = ParsePolicyList(R"([
    {"xds_cluster_resolver_experimental": {
      "discoveryMechanisms": [{
        "clusterName": "c1",
        "lrsLoadReportingServer": {
          "server_uri": "trafficdirector.googleapis.com:443",
          "channel_creds": [ { "type": "google_default" } ]
        },
        "max_concurrent_requests": 314,
        "type": "EDS",
        "edsServiceName": "eds1",
        "outlierDetection": {}
      }, {
        "clusterName": "c2",
        "type": "LOGICAL_DNS",
        "dnsHostname": "dns.example.com:443"
      }],
      "xdsLbPolicy": [{"round_robin": {}}]
    }}])");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  const LoadBalancingConfig& entry = (*list)[0];
  ASSERT_TRUE(entry.xds_cluster_resolver_experimental.has_value());
  const auto& config = *entry.xds_cluster_resolver_experimental;
  ASSERT_EQ(config.discovery_mechanisms.size(), 2u);
  const auto& eds = config.discovery_mechanisms[0];
  EXPECT_EQ(eds.cluster_name, "c1");
  EXPECT_EQ(eds.type,
            XdsClusterResolverLbConfig::DiscoveryMechanism::Type::EDS);
  EXPECT_EQ(eds.max_concurrent_requests, 314u);
  EXPECT_EQ(eds.eds_service_name, "eds1");
  ASSERT_TRUE(eds.lrs_load_reporting_server.has_value());
  // A47: the same XdsServer type and loader as the bootstrap's.
  const XdsServer& lrs = *eds.lrs_load_reporting_server;
  Bootstrap b = *Bootstrap::Parse(
      J(R"({"xds_servers": [{"server_uri": "trafficdirector.googleapis.com:443",
            "channel_creds": [{"type": "google_default"}]}]})"),
      "b");
  EXPECT_TRUE(lrs == b.xds_servers[0]);
  EXPECT_TRUE(eds.outlier_detection.has_value());
  const auto& dns = config.discovery_mechanisms[1];
  EXPECT_EQ(dns.type,
            XdsClusterResolverLbConfig::DiscoveryMechanism::Type::LOGICAL_DNS);
  EXPECT_EQ(dns.max_concurrent_requests, 1024u);  // default
  EXPECT_FALSE(dns.lrs_load_reporting_server.has_value());
  ASSERT_EQ(config.xds_lb_policy.size(), 1u);
  EXPECT_TRUE(config.xds_lb_policy[0].round_robin.has_value());
  ExpectRoundTrip(entry);
}

// A37 §xds_cluster_impl_experimental, priority and weighted_target, nested as
// xds_cluster_resolver generates them.
TEST(LbConfigSchemaTest, PriorityTree) {
  absl::StatusOr<std::vector<LoadBalancingConfig>> list = ParsePolicyList(R"([
    {"ring_hash_experimental": {}},
    {"priority_experimental": {
      "children": {
        "p0": {
          "config": [{"xds_cluster_impl_experimental": {
            "clusterName": "c1",
            "edsServiceName": "eds1",
            "lrsLoadReportingServer": {"server_uri": "lrs:443"},
            "maxConcurrentRequests": 7,
            "dropCategories": [{"category": "lb", "requests_per_million": 10}],
            "childPolicy": [{"weighted_target_experimental": {
              "targets": {
                "locality0": {"weight": 3, "childPolicy": [{"round_robin": {}}]}
              }}}]}}],
          "ignore_reresolution_requests": true
        },
        "p1": {"config": [{"pick_first": {}}]},
        "p2": {"config": [{"cds_experimental": {"cluster": "agg"}}]}
      },
      "priorities": ["p0", "p1", "p2"]
    }}])");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  // A policy this schema does not know: no member set, kept as raw JSON.
  LoadBalancingConfig unknown;
  unknown.unknown_fields["ring_hash_experimental"] =
      Json::Value(Json::objectValue);
  EXPECT_TRUE((*list)[0] == unknown);
  ExpectRoundTrip((*list)[0]);
  const PriorityLbConfig& priority = *(*list)[1].priority_experimental;
  EXPECT_EQ(priority.priorities, (std::vector<std::string>{"p0", "p1", "p2"}));
  EXPECT_EQ(priority.children.at("p2").config[0].cds_experimental->cluster,
            "agg");
  const PriorityLbConfig::Child& p0 = priority.children.at("p0");
  EXPECT_TRUE(p0.ignore_reresolution_requests);
  EXPECT_FALSE(priority.children.at("p1").ignore_reresolution_requests);
  const XdsClusterImplLbConfig& impl =
      *p0.config[0].xds_cluster_impl_experimental;
  EXPECT_EQ(impl.cluster_name, "c1");
  EXPECT_EQ(impl.max_concurrent_requests, 7u);
  ASSERT_EQ(impl.drop_categories.size(), 1u);
  EXPECT_EQ(impl.drop_categories[0].requests_per_million, 10u);
  const WeightedTargetLbConfig& wt =
      *impl.child_policy[0].weighted_target_experimental;
  EXPECT_EQ(wt.targets.at("locality0").weight, 3u);
  ExpectRoundTrip((*list)[1]);
}

TEST(LbConfigSchemaTest, RejectsBadConfigs) {
  struct Case {
    std::string in, want;
  };
  const Case kCases[] = {
      {R"([{"xds_cluster_resolver_experimental": {}}])",
       "errors validating LB policy config: ["
       "field:[0].xds_cluster_resolver_experimental.discoveryMechanisms "
       "error:field not present; "
       "field:[0].xds_cluster_resolver_experimental.xdsLbPolicy error:field "
       "not present]"},
      {R"([{"xds_cluster_resolver_experimental": {"discoveryMechanisms": [
            {"type": "FOO", "lrsLoadReportingServer": {},
             "max_concurrent_requests": -1}],
           "xdsLbPolicy": []}}])",
       "errors validating LB policy config: ["
       "field:[0].xds_cluster_resolver_experimental.discoveryMechanisms[0]"
       ".clusterName error:field not present; "
       "field:[0].xds_cluster_resolver_experimental.discoveryMechanisms[0]"
       ".lrsLoadReportingServer.server_uri error:field not present; "
       "field:[0].xds_cluster_resolver_experimental.discoveryMechanisms[0]"
       ".max_concurrent_requests error:is out of range for uint32 (expected "
       "0..4294967295); "
       "field:[0].xds_cluster_resolver_experimental.discoveryMechanisms[0]"
       ".type error:must be one of \"EDS\", \"LOGICAL_DNS\"]"},
      {R"([{"xds_cluster_impl_experimental": {"clusterName": "c",
            "dropCategories": [{"category": "x"}], "childPolicy": {}}}])",
       "errors validating LB policy config: ["
       "field:[0].xds_cluster_impl_experimental.childPolicy error:is not an "
       "array; "
       "field:[0].xds_cluster_impl_experimental.dropCategories[0]"
       ".requests_per_million error:field not present]"},
      {R"([{"priority_experimental": {"children": {"p0": {}}}},
           {"weighted_target_experimental": {"targets": {"t": {"weight":
             "x", "childPolicy": [{}]}}}},
           {"round_robin": {}, "pick_first": {}},
           "round_robin"])",
       "errors validating LB policy config: ["
       "field:[0].priority_experimental.children[\"p0\"].config error:field "
       "not present; "
       "field:[0].priority_experimental.priorities error:field not present; "
       "field:[1].weighted_target_experimental.targets[\"t\"].childPolicy[0] "
       "error:must have exactly one field, found 0; "
       "field:[1].weighted_target_experimental.targets[\"t\"].weight "
       "error:is not an integer; "
       "field:[2] errors:[must have exactly one field, found 2; only one of "
       "\"round_robin\", \"pick_first\" may be set]; "
       "field:[3] error:is not an object]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    absl::StatusOr<std::vector<LoadBalancingConfig>> list =
        ParsePolicyList(c.in);
    ASSERT_FALSE(list.ok());
    EXPECT_EQ(std::string(list.status().message()), c.want);
  }
}

TEST(XdsServerSchemaTest, Direct) {
  absl::StatusOr<XdsServer> s = XdsServer::Parse(
      J(R"({"server_uri": "a:1", "server_features": ["ignore_resource_deletion"]})"),
      "errors validating xds server");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->server_features[0].asString(), "ignore_resource_deletion");
  EXPECT_EQ(XdsServer::Parse(J(R"({"server_uri": 1})"),
                             "errors validating xds server")
                .status()
                .message(),
            "errors validating xds server: [field:server_uri error:is not a "
            "string]");
}

// Random edits of a valid bootstrap: each result is malformed JSON, a
// Bootstrap that round-trips, or an error that names field paths.
TEST(BootstrapSchemaTest, RandomMutations) {
  const std::string seed = kMultipleAuthorities;
  const char kAlphabet[] = "{}[]\",:01 tfnx";
  std::mt19937 rng(37);
  int loaded = 0, rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text = seed;
    for (int e = 0; e < 3; ++e) {
      const size_t pos = rng() % text.size();
      if (rng() % 2) {
        text[pos] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
      } else {
        text.erase(pos, 1);
      }
    }
    absl::StatusOr<Json::Value> json = ParseJsonText(text);
    if (!json.ok()) continue;
    absl::StatusOr<Bootstrap> b = Bootstrap::Parse(*json, "bad bootstrap");
    if (b.ok()) {
      ++loaded;
      ExpectRoundTrip(*b);
    } else {
      ++rejected;
      ASSERT_EQ(b.status().message().substr(0, 21), "bad bootstrap: [field")
          << text;
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace schema
}  // namespace xdsfed
