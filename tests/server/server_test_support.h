// Shared pieces of the lib/server tests: an embedded control plane with a
// server Listener (+ RDS) and, for gRPC's own xDS client, the client chain
// to the xDS-enabled server; a notifier that records every call.
#ifndef XDSFED_TESTS_SERVER_SERVER_TEST_SUPPORT_H_
#define XDSFED_TESTS_SERVER_SERVER_TEST_SUPPORT_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/bootstrap/bootstrap.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::server::testing {

inline constexpr char kServerTemplate[] =
    "grpc/server?xds.resource.listening_address=%s";

// A port free right now on 127.0.0.1 (A36 servers take no port 0).
inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// "host:port", an IPv6 host bracketed.
inline std::string HostPort(absl::string_view host, int port) {
  return host.find(':') == absl::string_view::npos
             ? absl::StrCat(host, ":", port)
             : absl::StrCat("[", host, "]:", port);
}

// The Listener name of a server listening on host:port (default loopback).
inline std::string ServerListenerName(int port,
                                      absl::string_view host = "127.0.0.1") {
  return absl::StrCat("grpc/server?xds.resource.listening_address=",
                      HostPort(host, port));
}

inline std::string Hcm(absl::string_view route) {
  return absl::Substitute(
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$0"},
  "http_filters":[{"name":"router","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})",
      route);
}

// A server Listener at host:port (default 127.0.0.1) whose default chain
// uses `route`; `extra_chains` is the text of filter_chains entries (may be
// empty).
inline std::string ServerListenerJson(int port, absl::string_view route,
                                      absl::string_view extra_chains = "",
                                      absl::string_view host = "127.0.0.1") {
  return absl::Substitute(
      R"("$0":{"address":{"socket_address":{"address":"$4","port_value":$1}},
  "filter_chains":[$2],
  "default_filter_chain":{"filters":[{"name":"hcm","typed_config":$3}]}})",
      ServerListenerName(port, host), port, extra_chains, Hcm(route), host);
}

inline std::string ServerRouteJson(absl::string_view name,
                                   absl::string_view prefix = "") {
  return absl::Substitute(
      R"("$0":{"virtual_hosts":[{"name":"vh","domains":["*"],
  "routes":[{"match":{"prefix":"$1"},"non_forwarding_action":{}}]}]})",
      name, prefix);
}

// The client side for gRPC's own xDS resolver (xds:///svc -> the server),
// one snapshot entry per type.
inline std::string ClientListenerJson() {
  return absl::StrCat(R"("svc":{"api_listener":{"api_listener":)",
                      Hcm("client-route"), "}}");
}
inline std::string ClientRouteJson() {
  return R"("client-route":{"virtual_hosts":[{"name":"vh","domains":["*"],
    "routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]})";
}
inline std::string ClientClusterJson() {
  return R"("c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"e"}})";
}
inline std::string ClientEndpointJson(int server_port) {
  return absl::Substitute(
      R"("e":{"endpoints":[{"locality":{"region":"r"},"load_balancing_weight":1,
    "lb_endpoints":[{"endpoint":{"address":{"socket_address":{
      "address":"127.0.0.1","port_value":$0}}}}]}]})",
      server_port);
}

// listeners / routes: comma-separated "name":{...} entries.
inline absl::StatusOr<control_plane::Snapshot> MakeSnapshot(
    int version, absl::string_view listeners, absl::string_view routes,
    absl::string_view clusters = "", absl::string_view endpoints = "") {
  return control_plane::ParseSnapshot(absl::StrCat(
      R"({"version":")", version, R"(","resources":{)",
      R"("envoy.config.listener.v3.Listener":{)", listeners, "},",
      R"("envoy.config.route.v3.RouteConfiguration":{)", routes, "},",
      R"("envoy.config.cluster.v3.Cluster":{)", clusters, "},",
      R"("envoy.config.endpoint.v3.ClusterLoadAssignment":{)", endpoints,
      "}}}"));
}

inline std::shared_ptr<const Bootstrap> ServerBootstrap(int cp_port) {
  auto b = Bootstrap::Parse(absl::Substitute(
                                R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"xds-server-test"},
  "server_listener_resource_name_template":"$1"})",
                                cp_port, kServerTemplate),
                            /*federation=*/false);
  return b.ok() ? *b : nullptr;
}

// Records notifier calls; WaitFor blocks until the n-th call arrived.
class NotifierLog {
 public:
  void Record(const std::string& address, const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back({address, status});
    cv_.notify_all();
  }
  struct Call {
    std::string address;
    absl::Status status;
  };
  bool WaitFor(size_t n, absl::Duration timeout = absl::Seconds(20)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                        [&] { return calls_.size() >= n; });
  }
  std::vector<Call> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Call> calls_;
};

}  // namespace xdsfed::server::testing

#endif  // XDSFED_TESTS_SERVER_SERVER_TEST_SUPPORT_H_
