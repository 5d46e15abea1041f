// Tests for lib/resources/cluster.h: the Cluster (CDS) validation rules of
// gRPC C-core 1.51 xds_cluster.cc, A37 §Validation and A47 §CDS Resource
// Validation / §xDS API Changes, on resources built with our generated
// protos. Valid rows check the value through its JSON form.
#include "lib/resources/cluster.h"

#include <functional>
#include <string>

#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace resources {
namespace {

using envoy::config::cluster::v3::Cluster;

std::string Compact(const Json::Value& value) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  return Json::writeString(builder, value);
}

// A valid EDS cluster over ADS; rows change what they test.
Cluster BaseCluster() {
  Cluster cluster;
  cluster.set_name("c");
  cluster.set_type(Cluster::EDS);
  cluster.mutable_eds_cluster_config()->mutable_eds_config()->mutable_ads();
  return cluster;
}

void MakeLogicalDns(Cluster* cluster, const char* host, uint32_t port) {
  cluster->set_type(Cluster::LOGICAL_DNS);
  cluster->clear_eds_cluster_config();
  auto* socket_address = cluster->mutable_load_assignment()
                             ->add_endpoints()
                             ->add_lb_endpoints()
                             ->mutable_endpoint()
                             ->mutable_address()
                             ->mutable_socket_address();
  socket_address->set_address(host);
  socket_address->set_port_value(port);
}

envoy::config::core::v3::SocketAddress* DnsSocketAddress(Cluster* cluster) {
  return cluster->mutable_load_assignment()
      ->mutable_endpoints(0)
      ->mutable_lb_endpoints(0)
      ->mutable_endpoint()
      ->mutable_address()
      ->mutable_socket_address();
}

void MakeAggregate(Cluster* cluster, std::vector<std::string> children) {
  cluster->clear_eds_cluster_config();
  envoy::extensions::clusters::aggregate::v3::ClusterConfig config;
  for (const std::string& child : children) config.add_clusters(child);
  cluster->mutable_cluster_type()->set_name("envoy.clusters.aggregate");
  cluster->mutable_cluster_type()->mutable_typed_config()->PackFrom(config);
}

constexpr char kPrefix[] = "errors validating Cluster resource: ";

struct Case {
  const char* source;  // where the rule comes from
  std::function<void(Cluster*)> mutate;
  // A JSON object: the valid value's ToJson(); otherwise the full error.
  std::string want;
  bool federation = true;
  const char* want_name = "c";
};

const std::string kEdsDefaults =
    R"("lb_policy":"ROUND_ROBIN","lrs_load_reporting_server_is_self":false,)"
    R"("max_concurrent_requests":1024,)";

TEST(ClusterTest, Validation) {
  const Case kCases[] = {
      // --- discovery type ---
      {"gRPC 1.51 xds_cluster.cc EdsConfigParse: EDS over ads", [](Cluster*) {},
       R"({"eds_service_name":"",)" + kEdsDefaults +
           R"("name":"c","type":"EDS"})"},
      {"A47 §xDS API Changes: eds_config may be self",
       [](Cluster* c) {
         c->mutable_eds_cluster_config()->mutable_eds_config()->mutable_self();
       },
       R"({"eds_service_name":"",)" + kEdsDefaults +
           R"("name":"c","type":"EDS"})"},
      {"gRPC 1.51 EdsConfigParse: service_name recorded",
       [](Cluster* c) {
         c->mutable_eds_cluster_config()->set_service_name("svc");
       },
       R"({"eds_service_name":"svc",)" + kEdsDefaults +
           R"("name":"c","type":"EDS"})"},
      {"gRPC 1.51 EdsConfigParse: eds_cluster_config required",
       [](Cluster* c) { c->clear_eds_cluster_config(); },
       std::string(kPrefix) + "[field:eds_cluster_config error:field not "
                              "present]"},
      {"gRPC 1.51 EdsConfigParse: eds_config required",
       [](Cluster* c) {
         c->mutable_eds_cluster_config()->clear_eds_config();
         c->mutable_eds_cluster_config()->set_service_name("svc");
       },
       std::string(kPrefix) +
           "[field:eds_cluster_config.eds_config error:field not present]"},
      {"A47 §xDS API Changes: only ads or self",
       [](Cluster* c) {
         c->mutable_eds_cluster_config()->mutable_eds_config()->set_path(
             "/etc/eds");
       },
       std::string(kPrefix) + "[field:eds_cluster_config.eds_config "
                              "error:ConfigSource is not ads or self]"},
      {"A47 §CDS Resource Validation: xdstp: cluster needs service_name",
       [](Cluster* c) {
         c->set_name(
             "xdstp://a.com/envoy.config.cluster.v3."
             "Cluster/c");
       },
       std::string(kPrefix) +
           "[field:eds_cluster_config.service_name error:must be set if "
           "Cluster resource has an xdstp name]",
       true, "xdstp://a.com/envoy.config.cluster.v3.Cluster/c"},
      {"A47 §CDS Resource Validation: rule applies only with federation on",
       [](Cluster* c) {
         c->set_name(
             "xdstp://a.com/envoy.config.cluster.v3."
             "Cluster/c");
       },
       R"({"eds_service_name":"",)" + kEdsDefaults +
           R"("name":"xdstp://a.com/envoy.config.cluster.v3.Cluster/c",)"
           R"("type":"EDS"})",
       false, "xdstp://a.com/envoy.config.cluster.v3.Cluster/c"},
      {"A47 §CDS Resource Validation: xdstp: cluster with xdstp: service_name",
       [](Cluster* c) {
         c->set_name("xdstp://a.com/envoy.config.cluster.v3.Cluster/c");
         c->mutable_eds_cluster_config()->set_service_name(
             "xdstp://a.com/envoy.config.endpoint.v3.ClusterLoadAssignment/"
             "e");
       },
       R"({"eds_service_name":"xdstp://a.com/envoy.config.endpoint.v3.)"
       R"(ClusterLoadAssignment/e",)" +
           kEdsDefaults +
           R"("name":"xdstp://a.com/envoy.config.cluster.v3.Cluster/c",)"
           R"("type":"EDS"})",
       true, "xdstp://a.com/envoy.config.cluster.v3.Cluster/c"},
      {"A47 §CDS Resource Validation: old-style name may omit service_name",
       [](Cluster* c) { c->set_name("xdstp-like"); },
       R"({"eds_service_name":"",)" + kEdsDefaults +
           R"("name":"xdstp-like","type":"EDS"})",
       true, "xdstp-like"},
      {"A37 §Validation: type STATIC is not supported",
       [](Cluster* c) { c->set_type(Cluster::STATIC); },
       std::string(kPrefix) + "[field:type error:unknown discovery type]"},
      {"A37 §Validation: neither type nor cluster_type",
       [](Cluster* c) { c->clear_cluster_discovery_type(); },
       std::string(kPrefix) + "[field:type error:unknown discovery type]"},
      {"A37 §Validation: STRICT_DNS is not supported",
       [](Cluster* c) { c->set_type(Cluster::STRICT_DNS); },
       std::string(kPrefix) + "[field:type error:unknown discovery type]"},
      {"A37 §Validation: ORIGINAL_DST is not supported",
       [](Cluster* c) { c->set_type(Cluster::ORIGINAL_DST); },
       std::string(kPrefix) + "[field:type error:unknown discovery type]"},
      // --- LOGICAL_DNS (A37 §Validation) ---
      {"A37 §Validation: LOGICAL_DNS host and port",
       [](Cluster* c) { MakeLogicalDns(c, "dns.example.com", 443); },
       R"({"dns_host":"dns.example.com","dns_port":443,)" + kEdsDefaults +
           R"("name":"c","type":"LOGICAL_DNS"})"},
      {"A37 §Validation: load_assignment required",
       [](Cluster* c) {
         c->set_type(Cluster::LOGICAL_DNS);
         c->clear_eds_cluster_config();
       },
       std::string(kPrefix) + "[field:load_assignment error:field not "
                              "present for LOGICAL_DNS cluster]"},
      {"A37 §Validation: exactly one locality (none)",
       [](Cluster* c) {
         c->set_type(Cluster::LOGICAL_DNS);
         c->mutable_load_assignment()->set_cluster_name("c");
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints error:must contain exactly one "
           "locality for LOGICAL_DNS cluster, found 0]"},
      {"A37 §Validation: exactly one locality (two)",
       [](Cluster* c) {
         MakeLogicalDns(c, "h", 1);
         c->mutable_load_assignment()->add_endpoints();
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints error:must contain exactly one "
           "locality for LOGICAL_DNS cluster, found 2]"},
      {"A37 §Validation: exactly one endpoint",
       [](Cluster* c) {
         MakeLogicalDns(c, "h", 1);
         c->mutable_load_assignment()->mutable_endpoints(0)->add_lb_endpoints();
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints error:must "
           "contain exactly one endpoint for LOGICAL_DNS cluster, found 2]"},
      {"A37 §Validation: endpoint required",
       [](Cluster* c) {
         MakeLogicalDns(c, "h", 1);
         c->mutable_load_assignment()
             ->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->clear_endpoint();
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints[0].endpoint "
           "error:field not present]"},
      {"A37 §Validation: address required",
       [](Cluster* c) {
         MakeLogicalDns(c, "h", 1);
         c->mutable_load_assignment()
             ->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->clear_address();
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints[0].endpoint."
           "address error:field not present]"},
      {"A37 §Validation: socket_address required",
       [](Cluster* c) {
         MakeLogicalDns(c, "h", 1);
         c->mutable_load_assignment()
             ->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_pipe()
             ->set_path("/tmp/sock");
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints[0].endpoint."
           "address.socket_address error:field not present]"},
      {"A37 §Validation: address non-empty and port_value set (both)",
       [](Cluster* c) {
         MakeLogicalDns(c, "", 1);
         DnsSocketAddress(c)->set_named_port("https");
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints[0].endpoint."
           "address.socket_address.address error:field not present; "
           "field:load_assignment.endpoints[0].lb_endpoints[0].endpoint."
           "address.socket_address.port_value error:field not present]"},
      {"A37 §Validation: port_value 0 is set",
       [](Cluster* c) { MakeLogicalDns(c, "h", 0); },
       R"({"dns_host":"h","dns_port":0,)" + kEdsDefaults +
           R"("name":"c","type":"LOGICAL_DNS"})"},
      {"xdsfed: a port above 65535 names no port",
       [](Cluster* c) { MakeLogicalDns(c, "h", 65536); },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints[0].endpoint."
           "address.socket_address.port_value error:must be at most 65535]"},
      {"gRPC 1.51 LogicalDnsParse: no custom resolver",
       [](Cluster* c) {
         MakeLogicalDns(c, "h", 1);
         DnsSocketAddress(c)->set_resolver_name("mine");
       },
       std::string(kPrefix) +
           "[field:load_assignment.endpoints[0].lb_endpoints[0].endpoint."
           "address.socket_address.resolver_name error:LOGICAL_DNS clusters "
           "must NOT have a custom resolver name set]"},
      // --- aggregate (A37 §Validation) ---
      {"A37 §Validation: aggregate children, order kept",
       [](Cluster* c) {
         MakeAggregate(c, {"z", "a", "xdstp://a.com/t/m"});
       },
       R"({)" + kEdsDefaults +
           R"("name":"c","prioritized_cluster_names":["z","a",)"
           R"("xdstp://a.com/t/m"],"type":"AGGREGATE"})"},
      {"A37 §Validation: clusters must have at least one entry",
       [](Cluster* c) { MakeAggregate(c, {}); },
       std::string(kPrefix) +
           "[field:cluster_type.typed_config.value[envoy.extensions.clusters."
           "aggregate.v3.ClusterConfig].clusters error:must be non-empty]"},
      {"A37 §Validation: typed_config required",
       [](Cluster* c) {
         c->clear_eds_cluster_config();
         c->mutable_cluster_type()->set_name("envoy.clusters.aggregate");
       },
       std::string(kPrefix) +
           "[field:cluster_type.typed_config error:field not present]"},
      {"A37 §Validation: type_url must be the aggregate ClusterConfig",
       [](Cluster* c) {
         MakeAggregate(c, {"a"});
         c->mutable_cluster_type()->mutable_typed_config()->set_type_url(
             "type.googleapis.com/envoy.extensions.clusters.redis.v3."
             "RedisClusterConfig");
       },
       std::string(kPrefix) +
           "[field:cluster_type.typed_config.type_url error:unknown "
           "cluster_type extension: envoy.extensions.clusters.redis.v3."
           "RedisClusterConfig]"},
      {"gRPC 1.51 AggregateClusterParse: undecodable ClusterConfig",
       [](Cluster* c) {
         MakeAggregate(c, {"a"});
         c->mutable_cluster_type()->mutable_typed_config()->set_value(
             "\x0a\xff");
       },
       std::string(kPrefix) +
           "[field:cluster_type.typed_config.value[envoy.extensions.clusters."
           "aggregate.v3.ClusterConfig] error:can't parse aggregate cluster "
           "config]"},
      // --- lb_policy (gRPC 1.51 CdsResourceParse) ---
      {"gRPC 1.51: RING_HASH with default ring sizes",
       [](Cluster* c) { c->set_lb_policy(Cluster::RING_HASH); },
       R"({"eds_service_name":"","lb_policy":"RING_HASH",)"
       R"("lrs_load_reporting_server_is_self":false,)"
       R"("max_concurrent_requests":1024,"max_ring_size":8388608,)"
       R"("min_ring_size":1024,"name":"c","type":"EDS"})"},
      {"gRPC 1.51: LEAST_REQUEST is not supported",
       [](Cluster* c) { c->set_lb_policy(Cluster::LEAST_REQUEST); },
       std::string(kPrefix) +
           "[field:lb_policy error:LB policy is not supported]"},
      {"gRPC 1.51: MAGLEV is not supported",
       [](Cluster* c) { c->set_lb_policy(Cluster::MAGLEV); },
       std::string(kPrefix) +
           "[field:lb_policy error:LB policy is not supported]"},
      // --- lrs_server (A47 §LRS Server Representation) ---
      {"A47 §LRS Server Representation: lrs_server self",
       [](Cluster* c) { c->mutable_lrs_server()->mutable_self(); },
       R"({"eds_service_name":"","lb_policy":"ROUND_ROBIN",)"
       R"("lrs_load_reporting_server_is_self":true,)"
       R"("max_concurrent_requests":1024,"name":"c","type":"EDS"})"},
      {"A47 §LRS Server Representation: lrs_server must be self",
       [](Cluster* c) { c->mutable_lrs_server()->mutable_ads(); },
       std::string(kPrefix) +
           "[field:lrs_server error:ConfigSource is not self]"},
      // --- circuit breaking (gRPC 1.51 CdsResourceParse) ---
      {"gRPC 1.51: first DEFAULT thresholds entry",
       [](Cluster* c) {
         auto* thresholds = c->mutable_circuit_breakers();
         auto* high = thresholds->add_thresholds();
         high->set_priority(envoy::config::core::v3::HIGH);
         high->mutable_max_requests()->set_value(7);
         auto* first = thresholds->add_thresholds();
         first->mutable_max_requests()->set_value(42);
         thresholds->add_thresholds()->mutable_max_requests()->set_value(9);
       },
       R"({"eds_service_name":"","lb_policy":"ROUND_ROBIN",)"
       R"("lrs_load_reporting_server_is_self":false,)"
       R"("max_concurrent_requests":42,"name":"c","type":"EDS"})"},
      {"gRPC 1.51: DEFAULT entry without max_requests keeps 1024",
       [](Cluster* c) {
         auto* thresholds = c->mutable_circuit_breakers();
         thresholds->add_thresholds()->mutable_max_connections()->set_value(1);
         thresholds->add_thresholds()->mutable_max_requests()->set_value(9);
       },
       R"({"eds_service_name":"",)" + kEdsDefaults +
           R"("name":"c","type":"EDS"})"},
      // --- transport_socket (gRPC 1.51 UpstreamTlsContextParse) ---
      {"gRPC 1.51 UpstreamTlsContextParse: typed_config required",
       [](Cluster* c) { c->mutable_transport_socket()->set_name("tls"); },
       std::string(kPrefix) +
           "[field:transport_socket.typed_config error:field not present]"},
      {"gRPC 1.51 UpstreamTlsContextParse: only UpstreamTlsContext",
       [](Cluster* c) {
         c->mutable_transport_socket()->mutable_typed_config()->set_type_url(
             "type.googleapis.com/envoy.extensions.transport_sockets.raw_"
             "buffer.v3.RawBuffer");
       },
       std::string(kPrefix) +
           "[field:transport_socket.typed_config.type_url error:unrecognized "
           "transport socket type: envoy.extensions.transport_sockets.raw_"
           "buffer.v3.RawBuffer]"},
      {"A29 §CDS for Client Side Security: an UpstreamTlsContext with a CA "
       "provider instance is accepted and kept",
       [](Cluster* c) {
         envoy::extensions::transport_sockets::tls::v3::UpstreamTlsContext tls;
         tls.mutable_common_tls_context()
             ->mutable_validation_context()
             ->mutable_ca_certificate_provider_instance()
             ->set_instance_name("ca");
         c->mutable_transport_socket()->set_name("tls");
         c->mutable_transport_socket()->mutable_typed_config()->PackFrom(tls);
       },
       R"({"eds_service_name":"",)" + kEdsDefaults +
           R"("name":"c","type":"EDS","upstream_tls":{"identity":null,)"
           R"("match_subject_alt_names":[],"root":{"certificate_name":"",)"
           R"("instance_name":"ca"}}})"},
      {"gRPC 1.51 UpstreamTlsContextParse: errors under the Any's value path",
       [](Cluster* c) {
         c->mutable_transport_socket()->mutable_typed_config()->PackFrom(
             envoy::extensions::transport_sockets::tls::v3::
                 UpstreamTlsContext());
       },
       std::string(kPrefix) +
           "[field:transport_socket.typed_config.value[envoy.extensions."
           "transport_sockets.tls.v3.UpstreamTlsContext].common_tls_context "
           "error:no CA certificate provider instance configured]"},
      // --- every problem at once, sorted by field path ---
      {"gRPC 1.51 CdsResourceParse: all errors in one status",
       [](Cluster* c) {
         c->set_type(Cluster::LOGICAL_DNS);
         c->set_lb_policy(Cluster::RANDOM);
         c->mutable_lrs_server()->mutable_ads();
       },
       std::string(kPrefix) +
           "[field:lb_policy error:LB policy is not supported; "
           "field:load_assignment error:field not present for LOGICAL_DNS "
           "cluster; field:lrs_server error:ConfigSource is not self]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    Cluster cluster = BaseCluster();
    c.mutate(&cluster);
    DecodeContext context;
    context.federation = c.federation;
    const DecodeResult result =
        ClusterResourceType().Decode(context, cluster.SerializeAsString());
    EXPECT_EQ(result.name, c.want_name);
    if (c.want[0] == '{') {
      ASSERT_TRUE(result.value.ok()) << result.value.status();
      EXPECT_EQ(Compact(ClusterResourceType().ToJson(result.value->get())),
                c.want);
    } else {
      ASSERT_FALSE(result.value.ok());
      EXPECT_EQ(result.value.status().code(),
                absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(result.value.status().message(), c.want);
    }
  }
}

TEST(ClusterTest, UndecodableBytes) {
  // ResourceType::Decode: never crashes; no name when nothing decoded.
  const std::string kInputs[] = {
      std::string("\xff\xff\xff", 3),
      std::string("\x0a\x05"
                  "ab",
                  4),                      // truncated name
      std::string("\x0a\x02\xc3\x28", 4),  // name is not UTF-8
  };
  for (const std::string& input : kInputs) {
    SCOPED_TRACE(input);
    const DecodeResult result = ClusterResourceType().Decode({}, input);
    EXPECT_EQ(result.name, "");
    EXPECT_EQ(result.value.status(),
              absl::InvalidArgumentError(
                  "cannot decode Cluster resource: not a serialized "
                  "envoy.config.cluster.v3.Cluster"));
  }
}

TEST(ClusterTest, ValueAndEquality) {
  Cluster proto = BaseCluster();
  MakeAggregate(&proto, {"b", "a"});
  const std::string bytes = proto.SerializeAsString();
  absl::StatusOr<ClusterResource> value = DecodeCluster({}, bytes);
  ASSERT_TRUE(value.ok()) << value.status();
  const auto* aggregate = std::get_if<ClusterResource::Aggregate>(&value->kind);
  ASSERT_NE(aggregate, nullptr);
  EXPECT_EQ(aggregate->prioritized_cluster_names,
            (std::vector<std::string>{"b", "a"}));

  // Equal: decoding twice gives equal values; any change is unequal.
  const DecodeResult a = ClusterResourceType().Decode({}, bytes);
  const DecodeResult b = ClusterResourceType().Decode({}, bytes);
  ASSERT_TRUE(a.value.ok() && b.value.ok());
  EXPECT_TRUE(ClusterResourceType().Equal(a.value->get(), b.value->get()));
  MakeAggregate(&proto, {"a", "b"});
  const DecodeResult c =
      ClusterResourceType().Decode({}, proto.SerializeAsString());
  ASSERT_TRUE(c.value.ok());
  EXPECT_FALSE(ClusterResourceType().Equal(a.value->get(), c.value->get()));

  ClusterResource copy = *value;
  EXPECT_EQ(copy, *value);
  copy.max_concurrent_requests = 1;
  EXPECT_NE(copy, *value);
}

TEST(ClusterTest, EdsResourceNameAndHostPort) {
  ClusterResource::Eds eds;
  EXPECT_EQ(eds.EdsResourceName("cluster"), "cluster");
  eds.eds_service_name = "svc";
  EXPECT_EQ(eds.EdsResourceName("cluster"), "svc");

  struct Case {
    const char* host;
    uint32_t port;
    const char* want;
  };
  const Case kCases[] = {
      {"dns.example.com", 443, "dns.example.com:443"},
      {"10.0.0.1", 80, "10.0.0.1:80"},
      {"2001:db8::1", 80, "[2001:db8::1]:80"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.host);
    EXPECT_EQ((ClusterResource::LogicalDns{c.host, c.port}.HostPort()), c.want);
  }
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
