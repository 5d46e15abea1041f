// The grpc++ implementation of lib/client/xds_transport.h: one grpc::Channel
// per xDS server, streaming calls over grpc::GenericStub's callback API (so
// payloads stay serialized bytes), and a channel-state watcher that reports
// TRANSIENT_FAILURE.
//
//   GrpcXdsTransportFactory factory;
//   absl::StatusOr<std::unique_ptr<client::XdsTransport>> transport =
//       factory.Create(server, [](absl::Status s) { /* server unreachable */
//       });
//   client::StreamingCallPtr ads = (*transport)->CreateStreamingCall(
//       client::kAdsMethod, std::make_unique<MyHandler>());
//   ads->SendMessage(request.SerializeAsString());
#ifndef XDSFED_LIB_TRANSPORT_GRPC_TRANSPORT_H_
#define XDSFED_LIB_TRANSPORT_GRPC_TRANSPORT_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/bootstrap/xds_server_config.h"
#include "lib/client/xds_transport.h"

namespace grpc {
class ChannelCredentials;
}  // namespace grpc

namespace xdsfed::transport {

struct GrpcTransportOptions {
  // Largest response accepted. A response is held whole in memory (the
  // serialized bytes, then the decoded resources), so this bounds what one
  // server can make us allocate; 128 MiB leaves room for the 100 MB responses
  // seen in practice. A bigger one fails the stream with RESOURCE_EXHAUSTED.
  int max_receive_message_bytes = 128 << 20;
  // HTTP/2 pings on an idle connection, as gRPC's own xDS channel does
  // (5 minutes), so a dead server is noticed while no response is due.
  absl::Duration keepalive_time = absl::Minutes(5);
  // How often the connectivity watcher reads the state of a READY channel
  // (leaving READY is not a failure yet; it sleeps on its own condition
  // variable in between, so destroying a transport does not wait for it),
  // and the longest it waits inside gRPC for a state change in any other
  // state (grpc++ offers no way to interrupt that wait: destroying a
  // transport whose channel is not READY may wait this long).
  absl::Duration state_poll_interval = absl::Milliseconds(100);
  absl::Duration connecting_poll_interval = absl::Milliseconds(10);
  // The channel's reconnect backoff (gRPC's GRPC_ARG_INITIAL_/
  // MAX_RECONNECT_BACKOFF_MS; gRPC adds +-20% jitter). Streams are
  // wait-for-ready, as C-core's xDS calls are, so a stream (re)starts the
  // moment the channel reconnects: this schedule, not the XdsClient's stream
  // backoff, decides how soon a client is back once its control plane
  // returns. gRPC's default grows 1.6x per attempt up to 120 s, so after a
  // 12 s outage a client sat out another 4-7 s; capped at 1 s, clients are
  // back within about a second, spread by the jitter (bench/RESULTS.md,
  // "Reconnect after an outage"). The price: while a server is down (or its
  // handshake fails) each client dials it about once a second.
  absl::Duration initial_reconnect_backoff = absl::Seconds(1);
  absl::Duration max_reconnect_backoff = absl::Seconds(1);
  // How long the connectivity watcher waits for the probe call that learns
  // why the channel failed (see Create).
  absl::Duration failure_probe_timeout = absl::Seconds(1);
  // When the failure is a rejected server certificate ("tls" creds), how
  // long the diagnostic handshake that says why (expired, not from a CA of
  // ca_certificate_file, not valid for the host; tls_diagnosis.h) may take.
  // It runs once each time the channel enters TRANSIENT_FAILURE, on the
  // watcher thread, after the probe: destroying a transport meanwhile waits
  // for both. Zero: no diagnosis.
  absl::Duration tls_diagnosis_timeout = absl::Seconds(1);
  // The HTTP/2 stream window the channel offers (gRPC's
  // GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES); 0: gRPC's default (64 KiB, grown
  // by its BDP probe). A large response then arrives without waiting for
  // WINDOW_UPDATE round trips, each of which waits for both processes to be
  // scheduled on a loaded machine (lib/server sets 8 MiB: a 346 KB Listener
  // reached SERVING in half the time at load ~4.5, bench/RESULTS.md).
  int http2_stream_lookahead_bytes = 0;
  // Tests only: the connectivity watcher's first read of the channel's state
  // comes this late, as it may when its thread is scheduled after a stream
  // already made the channel connect and fail.
  absl::Duration watcher_start_delay = absl::ZeroDuration();
};

// The channel credentials a server's selected creds type asks for:
//   insecure       -> InsecureChannelCredentials
//   google_default -> GoogleDefaultCredentials
//   tls            -> TLS with the file_watcher keys of the config:
//                     ca_certificate_file (else the system roots),
//                     certificate_file + private_key_file (mutual TLS),
//                     refresh_interval ("600s", the default)
// Errors (kInvalidArgument / kFailedPrecondition) name the server and the
// problem, e.g. "tls channel creds for xds.example.com:443: cannot read
// ca_certificate_file \"/no/such.pem\"".
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
CreateChannelCredentials(const XdsServerConfig& server);

class GrpcXdsTransportFactory : public client::XdsTransportFactory {
 public:
  GrpcXdsTransportFactory() = default;
  explicit GrpcXdsTransportFactory(GrpcTransportOptions options)
      : options_(options) {}

  // A new channel to server.server_uri(); it starts connecting right away.
  // on_connectivity_failure runs on the transport's watcher thread each time
  // the channel enters TRANSIENT_FAILURE: kUnavailable naming the server and,
  // when grpc++ tells it, why ("xds channel to HOST:PORT is in
  // TRANSIENT_FAILURE: failed to connect to all addresses; last error: ...
  // Tls handshake failed: ... certificate verify failed; the server's
  // certificate \"CN=cp\" expired at 2026-11-24T10:51:05Z (OpenSSL:
  // certificate has expired)"). It may destroy the transport.
  // Streaming calls are wait-for-ready (as C-core's ADS and LRS calls): one
  // started while the server is unreachable waits for the channel to
  // connect instead of failing, and there is no plaintext fallback.
  absl::StatusOr<std::unique_ptr<client::XdsTransport>> Create(
      const XdsServerConfig& server,
      std::function<void(absl::Status)> on_connectivity_failure) override;

 private:
  GrpcTransportOptions options_;
};

}  // namespace xdsfed::transport

#endif  // XDSFED_LIB_TRANSPORT_GRPC_TRANSPORT_H_
