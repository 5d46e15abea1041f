// XdsChannel: the client data plane of an `xds:` target. grpc++ 1.51 has
// no public hook for a load-balancing policy, so the design is an explicit
// pick: the channel runs lib/xds_config's dependency manager on its own
// XdsClient, and each RPC asks Pick() for an endpoint -- route (path,
// headers, weighted_clusters) -> cluster -> priority -> locality ->
// endpoint -- then runs on that endpoint's grpc::Channel, kept across picks,
// whose :authority is the target's data-plane authority (A47).
//
// clang-format off
//   absl::StatusOr<std::unique_ptr<XdsChannel>> ch =
//       XdsChannel::Create(bootstrap, "xds:///svc", {});
//   if (!ch.ok()) return ch.status();
//   PickResult pick = (*ch)->Pick({"/helloworld.Greeter/SayHello", {}},
//                                 absl::Now() + absl::Seconds(1));
//   if (pick.status.ok()) {
//     grpc::ClientContext ctx;
//     helloworld::HelloReply reply;
//     grpc::Status s = Greeter::NewStub(pick.endpoint->channel())
//                          ->SayHello(&ctx, request, &reply);
//     pick.tracker.Finish(s.ok());  // circuit breaker and load report
//   }
// clang-format on
//
// Or with a generated stub, one line (unary.h):
// clang-format off
//   grpc::ClientContext ctx;
//   helloworld::HelloReply reply;
//   grpc::Status s = xdsfed::channel::Unary(*ch, "/helloworld.Greeter/SayHello",
//                                           &Greeter::Stub::SayHello, &ctx,
//                                           request, &reply);
// clang-format on
//
// docs/channel.md is the guide (targets, deadlines, metadata, streaming).
#ifndef XDSFED_LIB_CHANNEL_XDS_CHANNEL_H_
#define XDSFED_LIB_CHANNEL_XDS_CHANNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/data_plane.h"
#include "lib/channel/grpc_endpoint.h"
#include "lib/client/xds_client.h"

namespace xdsfed {
namespace channel {

class XdsChannel {
 public:
  struct Options {
    // Priority failover / child retention (gRPC's priority policy values).
    absl::Duration failover_timeout = absl::Seconds(10);
    absl::Duration retention = absl::Minutes(15);
    // Send load reports to each cluster's LRS server (A47: a bootstrap
    // server only).
    bool load_reporting = true;
    // Endpoint channels' reconnect backoff (grpc_endpoint.h).
    absl::Duration min_reconnect_backoff = absl::Milliseconds(100);
    absl::Duration max_reconnect_backoff = absl::Seconds(1);
    // The XdsClient's options (timers, backoff, node user agent).
    client::XdsClient::Options xds_client;
    // Priority timers and pick deadlines; null: client::DefaultTimers().
    std::shared_ptr<client::Timers> timers;
  };

  // Resolves `target` against the bootstrap (A47) and starts watching.
  // Errors: the target's (kInvalidArgument), the XdsClient's.
  static absl::StatusOr<std::unique_ptr<XdsChannel>> Create(
      std::shared_ptr<const Bootstrap> bootstrap, absl::string_view target,
      Options options);
  // The same on an existing XdsClient (its bootstrap; several channels then
  // share one ADS stream per server, as gRPC's channels share the
  // process's XdsClient). Options::xds_client is not used.
  static absl::StatusOr<std::unique_ptr<XdsChannel>> Create(
      std::shared_ptr<client::XdsClient> client, absl::string_view target,
      Options options);

  // Stops the watches; picks still running fail UNAVAILABLE. Channels of
  // endpoints a caller still holds stay usable until released.
  ~XdsChannel();
  XdsChannel(const XdsChannel&) = delete;
  XdsChannel& operator=(const XdsChannel&) = delete;

  // Waits for the first config and for a connecting priority, up to
  // `deadline` (DataPlane::Pick).
  PickResult Pick(const PickArgs& args,
                  absl::Time deadline = absl::InfiniteFuture()) const {
    return data_plane_->Pick(args, deadline);
  }
  void PickAsync(const PickArgs& args, absl::Time deadline,
                 std::function<void(PickResult)> done) {
    data_plane_->PickAsync(args, deadline, std::move(done));
  }

  const std::string& data_plane_authority() const { return authority_; }
  DataPlane& data_plane() { return *data_plane_; }
  const std::shared_ptr<client::XdsClient>& xds_client() const {
    return client_;
  }

 private:
  struct ManagerRef;
  XdsChannel() = default;

  std::string authority_;
  std::shared_ptr<client::XdsClient> client_;
  std::shared_ptr<lrs::LrsClient> lrs_;
  std::shared_ptr<GrpcEndpointFactory> factory_;
  std::shared_ptr<DataPlane> data_plane_;
  std::shared_ptr<ManagerRef> manager_;
};

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_XDS_CHANNEL_H_
