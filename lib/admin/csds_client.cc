#include "lib/admin/csds_client.h"

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/service/status/v3/csds.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "lib/admin/csds_service.h"

namespace xdsfed {
namespace admin {
namespace {

using envoy::admin::v3::UpdateFailureState;
using envoy::service::status::v3::ClientConfig;
using envoy::service::status::v3::ClientStatusDiscoveryService;
using envoy::service::status::v3::ClientStatusRequest;
using envoy::service::status::v3::ClientStatusResponse;
using envoy::service::status::v3::PerXdsConfig;

constexpr char kTypePrefix[] = "type.googleapis.com/";

std::optional<absl::Time> TimeOf(bool has,
                                 const google::protobuf::Timestamp& t) {
  if (!has) return std::nullopt;
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

std::optional<CsdsResource::Error> ErrorOf(bool has,
                                           const UpdateFailureState& state) {
  if (!has) return std::nullopt;
  return CsdsResource::Error{state.version_info(), state.details()};
}

// The name inside a dumped resource (the per-type dumps carry no name field
// for routes, clusters and endpoints).
template <typename Message>
std::string NameIn(const google::protobuf::Any& any) {
  Message message;
  if (!any.UnpackTo(&message)) return "";
  if constexpr (std::is_same_v<
                    Message,
                    envoy::config::endpoint::v3::ClusterLoadAssignment>) {
    return message.cluster_name();
  } else {
    return message.name();
  }
}

class Flattener {
 public:
  explicit Flattener(std::vector<CsdsResource>* out) : out_(out) {}

  void Client(const ClientConfig& config) {
    node_id_ = config.node().id();
    scope_ = config.client_scope();
    for (const auto& g : config.generic_xds_configs()) {
      CsdsResource& r = Add(g.type_url(), g.name());
      r.version = g.version_info();
      r.client_status =
          envoy::admin::v3::ClientResourceStatus_Name(g.client_status());
      if (g.config_status() != envoy::service::status::v3::UNKNOWN) {
        r.config_status =
            envoy::service::status::v3::ConfigStatus_Name(g.config_status());
      }
      r.last_updated = TimeOf(g.has_last_updated(), g.last_updated());
      r.error = ErrorOf(g.has_error_state(), g.error_state());
    }
    for (const PerXdsConfig& per : config.xds_config()) PerType(per);
  }

 private:
  CsdsResource& Add(std::string type_url, std::string name) {
    CsdsResource& r = out_->emplace_back();
    r.node_id = node_id_;
    r.client_scope = scope_;
    r.authority = CsdsAuthority(name);
    r.type_url = std::move(type_url);
    r.name = std::move(name);
    r.client_status = "UNKNOWN";
    return r;
  }

  // One dynamic entry of a deprecated per-type dump.
  template <typename Entry>
  void Dynamic(const std::string& type, std::string name, const Entry& e,
               const std::string& version, bool has_updated,
               const google::protobuf::Timestamp& updated) {
    CsdsResource& r = Add(absl::StrCat(kTypePrefix, type), std::move(name));
    r.version = version;
    r.client_status =
        envoy::admin::v3::ClientResourceStatus_Name(e.client_status());
    r.last_updated = TimeOf(has_updated, updated);
    r.error = ErrorOf(e.has_error_state(), e.error_state());
  }

  void PerType(const PerXdsConfig& per) {
    using envoy::config::cluster::v3::Cluster;
    using envoy::config::endpoint::v3::ClusterLoadAssignment;
    using envoy::config::route::v3::RouteConfiguration;
    switch (per.per_xds_config_case()) {
      case PerXdsConfig::kListenerConfig:
        for (const auto& l : per.listener_config().dynamic_listeners()) {
          const auto& active = l.active_state();
          Dynamic("envoy.config.listener.v3.Listener", l.name(), l,
                  active.version_info(), active.has_last_updated(),
                  active.last_updated());
        }
        return;
      case PerXdsConfig::kRouteConfig:
        for (const auto& c : per.route_config().dynamic_route_configs()) {
          Dynamic("envoy.config.route.v3.RouteConfiguration",
                  NameIn<RouteConfiguration>(c.route_config()), c,
                  c.version_info(), c.has_last_updated(), c.last_updated());
        }
        return;
      case PerXdsConfig::kClusterConfig:
        for (const auto* list :
             {&per.cluster_config().dynamic_active_clusters(),
              &per.cluster_config().dynamic_warming_clusters()}) {
          for (const auto& c : *list) {
            Dynamic("envoy.config.cluster.v3.Cluster",
                    NameIn<Cluster>(c.cluster()), c, c.version_info(),
                    c.has_last_updated(), c.last_updated());
          }
        }
        return;
      case PerXdsConfig::kEndpointConfig:
        for (const auto& c : per.endpoint_config().dynamic_endpoint_configs()) {
          Dynamic("envoy.config.endpoint.v3.ClusterLoadAssignment",
                  NameIn<ClusterLoadAssignment>(c.endpoint_config()), c,
                  c.version_info(), c.has_last_updated(), c.last_updated());
        }
        return;
      default:
        return;  // scoped routes: not an xDS type gRPC uses
    }
  }

  std::vector<CsdsResource>* const out_;
  std::string node_id_;
  std::string scope_;
};

absl::Status ToAbsl(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

// Until `channel` is READY or has failed (TRANSIENT_FAILURE: the RPC that
// follows fails at once and says why), at most `connect_timeout` from
// `start`.
absl::Status WaitForConnection(grpc::Channel& channel,
                               absl::Duration connect_timeout,
                               absl::Time start) {
  const auto deadline = absl::ToChronoTime(start + connect_timeout);
  grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY &&
         state != GRPC_CHANNEL_TRANSIENT_FAILURE &&
         state != GRPC_CHANNEL_SHUTDOWN) {
    if (!channel.WaitForStateChange(state, deadline)) {
      return absl::DeadlineExceededError(absl::StrCat(
          "no connection within ", absl::FormatDuration(connect_timeout),
          ": the channel is still ",
          state == GRPC_CHANNEL_IDLE ? "IDLE" : "CONNECTING",
          " (a port that accepts TCP connections but never completes the "
          "HTTP/2 handshake, i.e. not a gRPC server, looks like this)"));
    }
    state = channel.GetState(/*try_to_connect=*/true);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<CsdsResource> FlattenClientStatus(
    const ClientStatusResponse& response) {
  std::vector<CsdsResource> out;
  Flattener flattener(&out);
  for (const ClientConfig& config : response.config()) {
    flattener.Client(config);
  }
  return out;
}

absl::StatusOr<ClientStatusResponse> FetchClientStatus(
    const std::shared_ptr<grpc::Channel>& channel, absl::Duration timeout,
    absl::Duration connect_timeout) {
  const absl::Time start = absl::Now();
  const auto deadline = absl::ToChronoTime(start + timeout);
  absl::Status connected =
      WaitForConnection(*channel, std::min(connect_timeout, timeout), start);
  if (!connected.ok()) return connected;
  auto stub = ClientStatusDiscoveryService::NewStub(channel);
  ClientStatusRequest request;
  ClientStatusResponse response;
  {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    grpc::Status status = stub->FetchClientStatus(&context, request, &response);
    if (status.ok()) return response;
    if (status.error_code() != grpc::StatusCode::UNIMPLEMENTED) {
      return ToAbsl(status);
    }
  }
  // Some servers (older gRPC admin services) serve only the stream.
  grpc::ClientContext context;
  context.set_deadline(deadline);
  auto stream = stub->StreamClientStatus(&context);
  if (!stream->Write(request) || !stream->WritesDone() ||
      !stream->Read(&response)) {
    grpc::Status status = stream->Finish();
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      // gRPC's own message is empty here.
      return absl::UnimplementedError(absl::StrCat(
          "the server does not serve CSDS "
          "(envoy.service.status.v3.ClientStatusDiscoveryService)",
          status.error_message().empty() ? "" : ": ", status.error_message()));
    }
    return ToAbsl(status);
  }
  (void)stream->Finish();  // the answer is in; how the stream ends is moot
  return response;
}

}  // namespace admin
}  // namespace xdsfed
