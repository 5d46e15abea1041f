// The Client Status Discovery Service (envoy.service.status.v3, CSDS), the
// admin service xDS users inspect a running client with (grpcdebug, Envoy
// tooling, `xdsfed status`), for any grpc::ServerBuilder in one call:
//
//   grpc::ServerBuilder builder;
//   auto csds = xdsfed::admin::AddCsdsService(
//       builder, xdsfed::admin::XdsClientSource(client));  // keep `csds`
//   auto server = builder.BuildAndStart();                // alive as long
//                                                         // as the server
//
// Both FetchClientStatus and StreamClientStatus answer with one
// ClientConfig per client the source reports, filtered by the request's
// node_matchers (a client matches if any matcher matches its node id). Per
// resource: type URL, name, version, last updated, client status
// (REQUESTED / DOES_NOT_EXIST / ACKED / NACKED) and, for NACKED, the error
// and the NACKed version in error_state. xds_config (the resource itself) is
// left out: the XdsClient keeps validated values, not the wire bytes. A
// resource's authority is that of its xdstp: name (CsdsAuthority()).
#ifndef XDSFED_LIB_ADMIN_CSDS_SERVICE_H_
#define XDSFED_LIB_ADMIN_CSDS_SERVICE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "envoy/service/status/v3/csds.pb.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "lib/client/xds_client.h"
#include "lib/transport/grpc_listen.h"

namespace xdsfed {
namespace admin {

// What CSDS reports: called once per request, on a gRPC thread; must be
// thread-safe.
using ClientConfigSource =
    std::function<std::vector<envoy::service::status::v3::ClientConfig>()>;

// A71 §Update CSDS: the client_scope of the XdsClient xDS-enabled servers
// use (gRPC's well-known key).
inline constexpr absl::string_view kServerClientScope = "#server";

// One XdsClient's config, as CSDS reports it. client_scope: what the client
// serves (A71: the channel target, or kServerClientScope), "" for none.
envoy::service::status::v3::ClientConfig ClientConfigOf(
    const client::XdsClient& client, absl::string_view client_scope = "");

// A source reporting `client` while it lives (held weakly: a destroyed client
// is no longer reported).
ClientConfigSource XdsClientSource(
    std::weak_ptr<const client::XdsClient> client,
    std::string client_scope = "");

// The answer to `request` from `source`: the configs whose node matches a
// node_matcher (all when there are none); exclude_resource_contents clears
// xds_config. kInvalidArgument for a matcher this service cannot evaluate
// (safe_regex: RE2 is not a dependency).
absl::StatusOr<envoy::service::status::v3::ClientStatusResponse>
AnswerClientStatus(
    const envoy::service::status::v3::ClientStatusRequest& request,
    const ClientConfigSource& source);

// Registers CSDS on `builder`. The returned service must outlive the server
// built from `builder`.
std::unique_ptr<grpc::Service> AddCsdsService(grpc::ServerBuilder& builder,
                                              ClientConfigSource source);

// The CSDS service alone, for a caller that registers it itself (e.g. on
// every grpc::Server an xDS-enabled server builds). It must outlive every
// server it is registered on.
std::unique_ptr<grpc::Service> NewCsdsService(ClientConfigSource source);

// A grpc::Server of its own serving only CSDS, for processes that have no
// server to add it to (`xdsfed watch --csds-listen`). Shut down when
// destroyed.
class CsdsServer {
 public:
  // `listen`: "host:port", port 0 picks a free one (see port()). Insecure
  // credentials: bind it to loopback. A port another socket holds is
  // refused unless both asked for sharing (options.allow_reuse_port).
  // Errors: kUnavailable if it cannot listen there ("address A is in use").
  static absl::StatusOr<std::unique_ptr<CsdsServer>> Start(
      const std::string& listen, ClientConfigSource source,
      const transport::ListenOptions& options = {});
  ~CsdsServer();
  CsdsServer(const CsdsServer&) = delete;
  CsdsServer& operator=(const CsdsServer&) = delete;

  int port() const { return port_; }

 private:
  CsdsServer() = default;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// The authority of a resource name as CSDS readers group by it: that of an
// xdstp: name, nullopt for an old-style one (or any name with federation
// off).
std::optional<std::string> CsdsAuthority(absl::string_view name,
                                         bool federation = true);

}  // namespace admin
}  // namespace xdsfed

#endif  // XDSFED_LIB_ADMIN_CSDS_SERVICE_H_
