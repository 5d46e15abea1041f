// Watches a federated xds: target the way a gRPC channel would and prints
// the chain it finds, one JSON line per resource as it arrives:
//   Listener -> RouteConfiguration -> Cluster(s) -> ClusterLoadAssignment(s)
// Each resource may come from a different authority's server (A47); the
// XdsClient picks the server from the name. Exits once every link has a
// value, or after 20 s.
//
//   GRPC_XDS_BOOTSTRAP=bootstrap.json GRPC_EXPERIMENTAL_XDS_FEDERATION=true \
//     ./watch_chain xds:///server.example.com
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <variant>

#include "json/json.h"
#include "lib/base/federation_gate.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/client/xds_client.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/resources/virtual_host_select.h"
#include "lib/transport/grpc_transport.h"

namespace {

using xdsfed::client::XdsClient;
namespace res = xdsfed::resources;

// Follows the chain: every watcher callback prints its resource and starts
// the watches the resource points to. Callbacks arrive on the client's
// thread, one at a time.
class Chain : public std::enable_shared_from_this<Chain> {
 public:
  // `client` must outlive the chain.
  Chain(XdsClient& client, std::string authority)
      : client_(client), authority_(std::move(authority)) {}

  // Watches `name` of type T (res::Listener, res::RouteConfig, ...); a name
  // already watched is not watched again.
  template <typename T>
  void Watch(const std::string& name) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto& type = res::XdsResourceType<T>::Get();
      if (!watched_.insert(std::string(type.type_url()) + name).second) return;
      ++pending_;
    }
    client_.Watch<T>(name, std::make_shared<Link<T>>(shared_from_this(), name));
  }

  // Blocks until every watched resource has had a value (or the deadline).
  bool Wait(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return done_.wait_for(lock, timeout, [&] { return pending_ == 0; });
  }

 private:
  // One watch: prints what arrives (a std::shared_ptr<const T>) and follows
  // it.
  template <typename T>
  class Link : public res::ResourceWatcher<T> {
   public:
    Link(std::weak_ptr<Chain> chain, std::string name)
        : chain_(std::move(chain)), name_(std::move(name)) {}

    void OnChanged(std::shared_ptr<const T> value) override {
      Json::Value line(Json::objectValue);
      line["type"] = std::string(res::XdsResourceType<T>::Get().type_url());
      line["name"] = name_;
      line["resource"] = value->ToJson();
      std::cout << Json::FastWriter().write(line) << std::flush;
      std::shared_ptr<Chain> chain = chain_.lock();
      if (chain == nullptr) return;  // main is done with it
      chain->Follow(*value);
      if (!seen_) {
        seen_ = true;
        chain->Arrived();
      }
    }
    void OnError(absl::Status status) override {
      std::cerr << name_ << ": " << status << "\n";
    }
    void OnDoesNotExist() override {
      std::cerr << name_ << ": does not exist\n";
    }

   private:
    // Weak: the client holds the watchers, and the chain must not keep
    // itself alive through them.
    std::weak_ptr<Chain> chain_;
    const std::string name_;
    bool seen_ = false;
  };

  // Start the watches a value points to.
  void Follow(const res::Listener& listener) {
    const auto* api = std::get_if<res::ApiListener>(&listener.listener);
    if (api == nullptr) return;
    const auto& route = api->http_connection_manager.route_config;
    if (const auto* rds =
            std::get_if<res::HttpConnectionManager::Rds>(&route)) {
      Watch<res::RouteConfig>(rds->route_config_name);
    } else {
      Follow(std::get<res::RouteConfig>(route));
    }
  }
  // The virtual host for the target's authority, and its clusters.
  void Follow(const res::RouteConfig& route_config) {
    const res::VirtualHost* host =
        res::FindVirtualHost(route_config.virtual_hosts, authority_);
    if (host == nullptr) return;
    for (const std::string& cluster : res::ClusterNamesOf(*host)) {
      Watch<res::ClusterResource>(cluster);
    }
  }
  void Follow(const res::ClusterResource& cluster) {
    if (const auto* eds =
            std::get_if<res::ClusterResource::Eds>(&cluster.kind)) {
      Watch<res::EndpointResource>(eds->EdsResourceName(cluster.name));
    } else if (const auto* aggregate =
                   std::get_if<res::ClusterResource::Aggregate>(
                       &cluster.kind)) {
      for (const std::string& child : aggregate->prioritized_cluster_names) {
        Watch<res::ClusterResource>(child);
      }
    }
  }
  void Follow(const res::EndpointResource& /*endpoints*/) {}  // the end

  void Arrived() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) done_.notify_all();
  }

  XdsClient& client_;
  const std::string authority_;
  std::mutex mu_;
  std::condition_variable done_;
  std::set<std::string> watched_;
  int pending_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: watch_chain xds:///TARGET\n";
    return 2;
  }
  // The bootstrap from GRPC_XDS_BOOTSTRAP (or _CONFIG), federation per
  // GRPC_EXPERIMENTAL_XDS_FEDERATION, as gRPC reads them.
  auto bootstrap =
      xdsfed::Bootstrap::FromEnv(xdsfed::FederationEnabledFromEnv());
  if (!bootstrap.ok()) {
    std::cerr << bootstrap.status() << "\n";  // every problem, with paths
    return 1;
  }
  // A47: which Listener, from which authority's servers.
  auto target = xdsfed::ResolveXdsTarget(**bootstrap, argv[1]);
  if (!target.ok()) {
    std::cerr << target.status() << "\n";
    return 1;
  }
  auto client = XdsClient::Create(
      *bootstrap,
      std::make_shared<xdsfed::transport::GrpcXdsTransportFactory>(), {});
  if (!client.ok()) {
    std::cerr << client.status() << "\n";
    return 1;
  }
  auto chain = std::make_shared<Chain>(**client, target->data_plane_authority);
  chain->Watch<res::Listener>(target->listener_resource_name);
  return chain->Wait(std::chrono::seconds(20)) ? 0 : 1;
}
