// Reading CSDS (envoy.service.status.v3) answers, from xdsfed's own service
// or any other implementation's (gRPC C-core, grpc-go, grpc-java,
// grpc-js-xds, Envoy, management servers): one flat, typed row per
// resource of each reported client. Both answer forms are read: the
// GenericXdsConfig list and the deprecated per-type PerXdsConfig dumps that
// older servers send.
//
//   auto response = FetchClientStatus(
//       grpc::CreateChannel("127.0.0.1:5000",
//                           grpc::InsecureChannelCredentials()),
//       absl::Seconds(10));
//   for (const CsdsResource& r : FlattenClientStatus(*response)) ...
#ifndef XDSFED_LIB_ADMIN_CSDS_CLIENT_H_
#define XDSFED_LIB_ADMIN_CSDS_CLIENT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "envoy/service/status/v3/csds.pb.h"
#include "grpcpp/channel.h"

namespace xdsfed {
namespace admin {

struct CsdsResource {
  std::string node_id;       // of the client holding it
  std::string client_scope;  // "" when not given
  // That of an xdstp: name; nullopt for an old-style name.
  std::optional<std::string> authority;
  std::string type_url;
  std::string name;
  std::string version;
  // ClientResourceStatus name: "REQUESTED", "DOES_NOT_EXIST", "ACKED",
  // "NACKED", ... ("UNKNOWN" when not given).
  std::string client_status;
  // ConfigStatus name as a management server fills it ("SYNCED", "ERROR",
  // ...); "" when not given (clients do not).
  std::string config_status;
  std::optional<absl::Time> last_updated;
  struct Error {
    std::string version;  // the rejected version
    std::string details;
  };
  std::optional<Error> error;  // the last rejected update, if any
};

std::vector<CsdsResource> FlattenClientStatus(
    const envoy::service::status::v3::ClientStatusResponse& response);

// Asks `channel`'s server for every client's status: FetchClientStatus, or,
// where only the stream is served, one StreamClientStatus exchange, all
// within `timeout`. The channel must be connected within `connect_timeout`
// (capped by `timeout`): a port that accepts TCP but never completes the
// HTTP/2 handshake fails then with kDeadlineExceeded, instead of at the
// end of `timeout`; a connection that fails (refused, TLS) fails at once
// with the RPC's kUnavailable. A server without CSDS fails with
// kUnimplemented, saying so. Other errors: the RPC's, as an absl::Status
// with the same code.
absl::StatusOr<envoy::service::status::v3::ClientStatusResponse>
FetchClientStatus(const std::shared_ptr<grpc::Channel>& channel,
                  absl::Duration timeout,
                  absl::Duration connect_timeout = absl::Seconds(3));

}  // namespace admin
}  // namespace xdsfed

#endif  // XDSFED_LIB_ADMIN_CSDS_CLIENT_H_
