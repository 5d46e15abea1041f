// Tests for lib/admin: the CSDS service's request handling (node matchers,
// exclude_resource_contents), its answers over real gRPC on loopback (unary
// and streaming), and the reading of both answer forms of the xDS API
// (envoy/service/status/v3/csds.proto: GenericXdsConfig and the deprecated
// PerXdsConfig dumps).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/service/discovery/v3/ads.grpc.pb.h"
#include "envoy/service/status/v3/csds.grpc.pb.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "lib/admin/csds_client.h"
#include "lib/admin/csds_service.h"

namespace xdsfed::admin {
namespace {

using envoy::service::status::v3::ClientConfig;
using envoy::service::status::v3::ClientStatusRequest;
using envoy::service::status::v3::ClientStatusResponse;

constexpr char kListenerType[] =
    "type.googleapis.com/envoy.config.listener.v3.Listener";
constexpr char kClusterType[] =
    "type.googleapis.com/envoy.config.cluster.v3.Cluster";

ClientConfig Client(const std::string& node_id) {
  ClientConfig config;
  config.mutable_node()->set_id(node_id);
  auto* r = config.add_generic_xds_configs();
  r->set_type_url(kListenerType);
  r->set_name("xdstp://a.com/envoy.config.listener.v3.Listener/svc");
  r->set_version_info("1");
  r->mutable_xds_config()->set_type_url(kListenerType);
  r->set_client_status(envoy::admin::v3::ACKED);
  return config;
}

ClientConfigSource Source() {
  return [] {
    return std::vector<ClientConfig>{Client("node-a"), Client("Node-B"),
                                     Client("other")};
  };
}

std::vector<std::string> NodeIds(const ClientStatusResponse& response) {
  std::vector<std::string> ids;
  for (const auto& c : response.config()) ids.push_back(c.node().id());
  return ids;
}

// csds.proto §ClientStatusRequest.node_matchers: OR of the matchers;
// envoy.type.matcher.v3.StringMatcher semantics on the node id.
TEST(CsdsServiceTest, NodeMatchers) {
  struct Case {
    const char* what;
    const char* request;  // text format
    std::vector<std::string> want;
    const char* error;  // non-empty: the request fails with it
  };
  const Case kCases[] = {
      {"no matchers: every client", "", {"node-a", "Node-B", "other"}, ""},
      {"exact", "node_matchers { node_id { exact: 'other' } }", {"other"}, ""},
      {"prefix",
       "node_matchers { node_id { prefix: 'node' } }",
       {"node-a"},
       ""},
      {"prefix, ignore_case",
       "node_matchers { node_id { prefix: 'node' ignore_case: true } }",
       {"node-a", "Node-B"},
       ""},
      {"suffix", "node_matchers { node_id { suffix: '-B' } }", {"Node-B"}, ""},
      {"contains, ignore_case",
       "node_matchers { node_id { contains: 'DE-' ignore_case: true } }",
       {"node-a", "Node-B"},
       ""},
      {"OR of matchers",
       "node_matchers { node_id { exact: 'other' } } "
       "node_matchers { node_id { exact: 'node-a' } }",
       {"node-a", "other"},
       ""},
      {"no node_id: node_metadatas are not evaluated, so it matches",
       "node_matchers { }",
       {"node-a", "Node-B", "other"},
       ""},
      {"regex is refused",
       "node_matchers { node_id { safe_regex { regex: '.*' } } }",
       {},
       "node_matchers[0].node_id: safe_regex is not supported (RE2 is not a "
       "dependency)"},
      {"empty matcher is refused",
       "node_matchers { node_id { } }",
       {},
       "node_matchers[0].node_id: no match pattern set"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    ClientStatusRequest request;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(c.request, &request));
    auto response = AnswerClientStatus(request, Source());
    if (*c.error != '\0') {
      EXPECT_EQ(response.status().message(), c.error);
      continue;
    }
    ASSERT_TRUE(response.ok()) << response.status();
    EXPECT_EQ(NodeIds(*response), c.want);
  }
}

TEST(CsdsServiceTest, ExcludeResourceContents) {
  ClientStatusRequest request;
  auto kept = AnswerClientStatus(request, Source());
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->config(0).generic_xds_configs(0).has_xds_config());
  request.set_exclude_resource_contents(true);
  auto excluded = AnswerClientStatus(request, Source());
  ASSERT_TRUE(excluded.ok());
  EXPECT_FALSE(excluded->config(0).generic_xds_configs(0).has_xds_config());
  EXPECT_EQ(excluded->config(0).generic_xds_configs(0).version_info(), "1");
}

// The service on a real grpc::Server, asked by FetchClientStatus (unary) and
// by StreamClientStatus (one answer per request, in order).
TEST(CsdsServiceTest, ServesFetchAndStreamOverGrpc) {
  auto server = CsdsServer::Start("127.0.0.1:0", Source());
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                          grpc::InsecureChannelCredentials());
  auto fetched = FetchClientStatus(channel, absl::Seconds(10));
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(NodeIds(*fetched),
            (std::vector<std::string>{"node-a", "Node-B", "other"}));

  auto stub = envoy::service::status::v3::ClientStatusDiscoveryService::NewStub(
      channel);
  grpc::ClientContext context;
  auto stream = stub->StreamClientStatus(&context);
  ClientStatusRequest request;
  ClientStatusResponse response;
  request.add_node_matchers()->mutable_node_id()->set_exact("other");
  ASSERT_TRUE(stream->Write(request));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(NodeIds(response), (std::vector<std::string>{"other"}));
  request.Clear();
  ASSERT_TRUE(stream->Write(request));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(NodeIds(response).size(), 3u);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());

  // A bad request ends the RPC with INVALID_ARGUMENT and the reason.
  grpc::ClientContext bad_context;
  request.add_node_matchers()->mutable_node_id();
  grpc::Status status =
      stub->FetchClientStatus(&bad_context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "node_matchers[0].node_id: no match pattern set");
}

TEST(CsdsServiceTest, UnreachableServerIsAnError) {
  auto server = CsdsServer::Start("127.0.0.1:0", Source());
  ASSERT_TRUE(server.ok());
  const int port = (*server)->port();
  server->reset();  // nothing listens there now
  auto fetched =
      FetchClientStatus(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                            grpc::InsecureChannelCredentials()),
                        absl::Seconds(2));
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kUnavailable);
}

// Issue 29: a second CsdsServer on a port another holds used to start
// "listening" (grpc++'s default SO_REUSEPORT) and take half the clients; it
// is refused with the address unless both asked to share the port.
TEST(CsdsServerTest, PortInUseIsRefusedUnlessBothShare) {
  struct Case {
    const char* name;
    bool first_reuse, second_reuse, want_ok;
  };
  const Case kCases[] = {
      {"issue 29: neither asks to share", false, false, false},
      {"socket(7) SO_REUSEPORT: only the second asks", false, true, false},
      {"issue 29: both ask to share", true, true, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    transport::ListenOptions first_options;
    first_options.allow_reuse_port = c.first_reuse;
    auto first = CsdsServer::Start("127.0.0.1:0", Source(), first_options);
    ASSERT_TRUE(first.ok()) << first.status();
    const std::string address = absl::StrCat("127.0.0.1:", (*first)->port());
    transport::ListenOptions second_options;
    second_options.allow_reuse_port = c.second_reuse;
    auto second = CsdsServer::Start(address, Source(), second_options);
    if (c.want_ok) {
      ASSERT_TRUE(second.ok()) << second.status();
      EXPECT_EQ((*second)->port(), (*first)->port());
    } else {
      EXPECT_EQ(second.status(),
                absl::UnavailableError(absl::StrCat(
                    "cannot serve CSDS: address ", address, " is in use")));
    }
  }
}

// Issue 29 item 5: a gRPC server without CSDS is an error that says so
// (gRPC's own UNIMPLEMENTED message is empty); a port that accepts TCP but
// never speaks HTTP/2 fails within the connect timeout, not the RPC's.
TEST(CsdsClientTest, ServerWithoutCsdsIsUnimplementedAndSaysSo) {
  // Some other service (grpc++ builds no server without one).
  envoy::service::discovery::v3::AggregatedDiscoveryService::Service ads;
  grpc::ServerBuilder builder;
  builder.RegisterService(&ads);
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_NE(port, 0);
  auto fetched =
      FetchClientStatus(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                            grpc::InsecureChannelCredentials()),
                        absl::Seconds(10));
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(fetched.status().message(),
            "the server does not serve CSDS "
            "(envoy.service.status.v3.ClientStatusDiscoveryService)");
  server->Shutdown();
}

TEST(CsdsClientTest, SilentPortFailsWithinTheConnectTimeout) {
  // Listening, never accepting: the kernel completes the TCP handshake and
  // the HTTP/2 preface is never answered.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof(a);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const absl::Time start = absl::Now();
  auto fetched = FetchClientStatus(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", ntohs(a.sin_port)),
                          grpc::InsecureChannelCredentials()),
      absl::Seconds(10), absl::Milliseconds(500));
  const absl::Duration took = absl::Now() - start;
  close(fd);
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(fetched.status().message(),
            "no connection within 500ms: the channel is still CONNECTING (a "
            "port that accepts TCP connections but never completes the HTTP/2 "
            "handshake, i.e. not a gRPC server, looks like this)");
  EXPECT_LT(took, absl::Seconds(2));
}

// csds.proto §ClientConfig: generic_xds_configs (clients and management
// servers), read into one row per resource with its authority.
TEST(CsdsClientTest, FlattensGenericConfigs) {
  ClientStatusResponse response;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        config {
          node { id: "n1" }
          client_scope: "xds:///svc"
          generic_xds_configs {
            type_url: "type.googleapis.com/envoy.config.listener.v3.Listener"
            name: "xdstp://a.com/envoy.config.listener.v3.Listener/svc"
            version_info: "3"
            last_updated { seconds: 1700000000 nanos: 5000 }
            client_status: ACKED
          }
          generic_xds_configs {
            type_url: "type.googleapis.com/envoy.config.cluster.v3.Cluster"
            name: "old-style"
            version_info: "1"
            client_status: NACKED
            config_status: ERROR
            error_state { version_info: "2" details: "bad cluster" }
          }
          generic_xds_configs {
            type_url: "type.googleapis.com/envoy.config.cluster.v3.Cluster"
            name: "missing"
            client_status: DOES_NOT_EXIST
          }
        }
      )pb",
      &response));
  std::vector<CsdsResource> rows = FlattenClientStatus(response);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].node_id, "n1");
  EXPECT_EQ(rows[0].client_scope, "xds:///svc");
  EXPECT_EQ(rows[0].authority, "a.com");
  EXPECT_EQ(rows[0].type_url, kListenerType);
  EXPECT_EQ(rows[0].version, "3");
  EXPECT_EQ(rows[0].client_status, "ACKED");
  EXPECT_EQ(rows[0].config_status, "");
  EXPECT_EQ(rows[0].last_updated,
            absl::FromUnixSeconds(1700000000) + absl::Nanoseconds(5000));
  EXPECT_FALSE(rows[0].error.has_value());
  EXPECT_EQ(rows[1].authority, std::nullopt);
  EXPECT_EQ(rows[1].client_status, "NACKED");
  EXPECT_EQ(rows[1].config_status, "ERROR");
  ASSERT_TRUE(rows[1].error.has_value());
  EXPECT_EQ(rows[1].error->version, "2");
  EXPECT_EQ(rows[1].error->details, "bad cluster");
  EXPECT_EQ(rows[1].last_updated, std::nullopt);
  EXPECT_EQ(rows[2].client_status, "DOES_NOT_EXIST");
}

// The deprecated PerXdsConfig dumps of older servers: names come from the
// dumped resource where the entry has no name field.
TEST(CsdsClientTest, FlattensDeprecatedPerTypeDumps) {
  ClientStatusResponse response;
  ClientConfig* config = response.add_config();
  config->mutable_node()->set_id("old");
  auto* listeners = config->add_xds_config()->mutable_listener_config();
  auto* l = listeners->add_dynamic_listeners();
  l->set_name("svc");
  l->mutable_active_state()->set_version_info("7");
  l->set_client_status(envoy::admin::v3::ACKED);
  envoy::config::route::v3::RouteConfiguration route;
  route.set_name("route-1");
  auto* r = config->add_xds_config()
                ->mutable_route_config()
                ->add_dynamic_route_configs();
  r->mutable_route_config()->PackFrom(route);
  r->set_version_info("8");
  r->set_client_status(envoy::admin::v3::NACKED);
  r->mutable_error_state()->set_details("no");
  r->mutable_error_state()->set_version_info("9");
  envoy::config::cluster::v3::Cluster cluster;
  cluster.set_name("c1");
  auto* c = config->add_xds_config()
                ->mutable_cluster_config()
                ->add_dynamic_warming_clusters();
  c->mutable_cluster()->PackFrom(cluster);
  c->set_client_status(envoy::admin::v3::REQUESTED);

  std::vector<CsdsResource> rows = FlattenClientStatus(response);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].type_url, kListenerType);
  EXPECT_EQ(rows[0].name, "svc");
  EXPECT_EQ(rows[0].version, "7");
  EXPECT_EQ(rows[0].client_status, "ACKED");
  EXPECT_EQ(rows[1].name, "route-1");
  EXPECT_EQ(rows[1].client_status, "NACKED");
  ASSERT_TRUE(rows[1].error.has_value());
  EXPECT_EQ(rows[1].error->version, "9");
  EXPECT_EQ(rows[2].type_url, kClusterType);
  EXPECT_EQ(rows[2].name, "c1");
  EXPECT_EQ(rows[2].client_status, "REQUESTED");
}

}  // namespace
}  // namespace xdsfed::admin
