#include "bench/bench_resources.h"

#include "absl/strings/str_cat.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "envoy/service/discovery/v3/discovery.pb.h"

namespace xdsfed {
namespace bench {
namespace {

using envoy::config::endpoint::v3::ClusterLoadAssignment;
using envoy::config::endpoint::v3::LocalityLbEndpoints;

void AddEndpoint(LocalityLbEndpoints* locality, absl::string_view host,
                 int port) {
  auto* socket = locality->add_lb_endpoints()
                     ->mutable_endpoint()
                     ->mutable_address()
                     ->mutable_socket_address();
  socket->set_address(std::string(host));
  socket->set_port_value(static_cast<uint32_t>(port));
}

// Endpoints [first, first + count) of the generated set, at `priority`,
// kEndpointsPerLocality per locality. Endpoint i is 10.(i>>16).(i>>8).(i):
// port, the port moving with the version.
void AddGeneratedEndpoints(ClusterLoadAssignment* cla, int first, int count,
                           int version, uint32_t priority) {
  const int port = 8000 + version % 1000;
  LocalityLbEndpoints* locality = nullptr;
  for (int k = 0; k < count; ++k) {
    if (k % kEndpointsPerLocality == 0) {
      locality = cla->add_endpoints();
      locality->mutable_locality()->set_region("us-east1");
      locality->mutable_locality()->set_zone(
          absl::StrCat("zone-", k / kEndpointsPerLocality));
      locality->mutable_load_balancing_weight()->set_value(1);
      locality->set_priority(priority);
    }
    const int i = first + k;
    AddEndpoint(locality,
                absl::StrCat("10.", (i >> 16) & 0xff, ".", (i >> 8) & 0xff, ".",
                             i & 0xff),
                port);
  }
}

}  // namespace

ClusterLoadAssignment MakeClusterLoadAssignment(absl::string_view name,
                                                int endpoints, int version) {
  ClusterLoadAssignment cla;
  cla.set_cluster_name(std::string(name));
  AddGeneratedEndpoints(&cla, 0, endpoints, version, 0);
  return cla;
}

ClusterLoadAssignment MakeFailoverClusterLoadAssignment(
    absl::string_view name, int endpoints, int version,
    absl::string_view backend_host, int backend_port) {
  ClusterLoadAssignment cla;
  cla.set_cluster_name(std::string(name));
  LocalityLbEndpoints* live = cla.add_endpoints();
  live->mutable_locality()->set_region("us-east1");
  live->mutable_locality()->set_zone("live");
  live->mutable_load_balancing_weight()->set_value(1);
  AddEndpoint(live, backend_host, backend_port);
  AddGeneratedEndpoints(&cla, 1, endpoints - 1, version, 1);
  return cla;
}

ClusterLoadAssignment MakeHarnessClusterLoadAssignment(
    absl::string_view name, int endpoints, int version,
    absl::string_view backend_host, int backend_port) {
  ClusterLoadAssignment cla;
  cla.set_cluster_name(std::string(name));
  LocalityLbEndpoints* locality = cla.add_endpoints();
  locality->mutable_locality()->set_region("r1");
  locality->mutable_locality()->set_zone("z1");
  locality->mutable_locality()->set_sub_zone("s1");
  locality->mutable_load_balancing_weight()->set_value(1);
  for (int i = 0; i < endpoints; ++i) {
    auto* lb = locality->add_lb_endpoints();
    auto* socket =
        lb->mutable_endpoint()->mutable_address()->mutable_socket_address();
    if (i == 0) {
      socket->set_address(std::string(backend_host));
      socket->set_port_value(static_cast<uint32_t>(backend_port));
      lb->set_health_status(envoy::config::core::v3::HEALTHY);
      lb->mutable_load_balancing_weight()->set_value(
          static_cast<uint32_t>(1 + version % 2));
    } else {
      socket->set_address(absl::StrCat("127.", 1 + i / 65536, ".",
                                       (i / 256) % 256, ".", i % 256));
      socket->set_port_value(static_cast<uint32_t>(20000 + i % 20000));
      lb->set_health_status(envoy::config::core::v3::UNHEALTHY);
      lb->mutable_load_balancing_weight()->set_value(1);
    }
  }
  return cla;
}

envoy::config::route::v3::RouteConfiguration MakeHarnessRouteConfiguration(
    absl::string_view name, int virtual_hosts, int version,
    absl::string_view cluster) {
  envoy::config::route::v3::RouteConfiguration config;
  config.set_name(std::string(name));
  for (int i = 1; i <= virtual_hosts; ++i) {
    auto* vhost = config.add_virtual_hosts();
    auto* route = vhost->add_routes();
    route->mutable_route()->set_cluster(std::string(cluster));
    if (i < virtual_hosts) {
      vhost->set_name(absl::StrCat("vh", i));
      vhost->add_domains(absl::StrCat("svc", i, ".example.com"));
      route->mutable_match()->set_prefix(absl::StrCat("/p", i, "/"));
    } else {
      vhost->set_name("vh-real");
      vhost->add_domains("*");
      route->mutable_match()->set_prefix("");
      route->mutable_route()->mutable_timeout()->set_seconds(1 + version % 2);
    }
  }
  return config;
}

envoy::config::route::v3::RouteConfiguration MakeRouteConfiguration(
    absl::string_view name, int virtual_hosts, int version,
    absl::string_view first_domain, absl::string_view first_cluster) {
  envoy::config::route::v3::RouteConfiguration config;
  config.set_name(std::string(name));
  for (int i = 0; i < virtual_hosts; ++i) {
    auto* vhost = config.add_virtual_hosts();
    vhost->set_name(absl::StrCat("vh-", i));
    auto* route = vhost->add_routes();
    if (i == 0) {
      vhost->add_domains(std::string(first_domain));
      route->mutable_match()->set_prefix("");
      route->mutable_route()->set_cluster(std::string(first_cluster));
    } else {
      vhost->add_domains(
          absl::StrCat("svc-", i, ".v", version, ".example.com"));
      route->mutable_match()->set_prefix(absl::StrCat("/svc-", i, "/"));
      route->mutable_route()->set_cluster(absl::StrCat("cluster-", i));
    }
  }
  return config;
}

envoy::config::cluster::v3::Cluster MakeEdsCluster(
    absl::string_view name, absl::string_view service_name, int version) {
  envoy::config::cluster::v3::Cluster cluster;
  cluster.set_name(std::string(name));
  cluster.set_type(envoy::config::cluster::v3::Cluster::EDS);
  auto* eds = cluster.mutable_eds_cluster_config();
  eds->mutable_eds_config()->mutable_ads();
  eds->set_service_name(std::string(service_name));
  cluster.set_lb_policy(envoy::config::cluster::v3::Cluster::ROUND_ROBIN);
  cluster.mutable_circuit_breakers()
      ->add_thresholds()
      ->mutable_max_requests()
      ->set_value(static_cast<uint32_t>(1000 + version % 1000));
  return cluster;
}

envoy::config::listener::v3::Listener MakeApiListener(
    absl::string_view name, absl::string_view route_config_name) {
  envoy::extensions::filters::network::http_connection_manager::v3::
      HttpConnectionManager hcm;
  auto* rds = hcm.mutable_rds();
  rds->mutable_config_source()->mutable_ads();
  rds->set_route_config_name(std::string(route_config_name));
  auto* router = hcm.add_http_filters();
  router->set_name("router");
  router->mutable_typed_config()->PackFrom(
      envoy::extensions::filters::http::router::v3::Router());
  envoy::config::listener::v3::Listener listener;
  listener.set_name(std::string(name));
  listener.mutable_api_listener()->mutable_api_listener()->PackFrom(hcm);
  return listener;
}

std::string SerializeResponse(
    absl::string_view type_url, absl::string_view version,
    absl::string_view nonce,
    const std::vector<const google::protobuf::Message*>& resources) {
  envoy::service::discovery::v3::DiscoveryResponse response;
  response.set_type_url(std::string(type_url));
  response.set_version_info(std::string(version));
  response.set_nonce(std::string(nonce));
  for (const google::protobuf::Message* resource : resources) {
    google::protobuf::Any* any = response.add_resources();
    any->set_type_url(std::string(type_url));
    any->set_value(resource->SerializeAsString());
  }
  return response.SerializeAsString();
}

}  // namespace bench
}  // namespace xdsfed
