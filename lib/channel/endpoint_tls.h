// TLS for endpoint channels from a Cluster's UpstreamTlsContext (gRFC A29
// §CDS for Client Side Security): grpc++ TLS credentials whose roots and
// identity come from the bootstrap's certificate provider instances (the
// provider objects lib/server uses too, transport/certificate_providers.h),
// whose server certificate gRPC checks against those roots and then a
// verifier of ours against the SAN matchers (san_matcher.h). Never a
// fallback to plaintext: an endpoint whose credentials cannot be made
// fails.
//
//   auto report = std::make_shared<TlsHandshakeReport>();
//   auto creds = MakeEndpointCredentials(*bootstrap, tls, report);
//   if (!creds.ok()) fail(creds.status());
//   // ... after a failed connection:
//   std::string why = ExplainTlsFailure(*bootstrap, tls, *report, target,
//                                       absl::Seconds(2));
#ifndef XDSFED_LIB_CHANNEL_ENDPOINT_TLS_H_
#define XDSFED_LIB_CHANNEL_ENDPOINT_TLS_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"
#include "lib/base/mutex.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/resources/upstream_tls_context.h"

namespace xdsfed::channel {

// What the handshakes of one endpoint's channel saw, written by its
// verifier (on gRPC's handshake threads) and read by the diagnosis.
class TlsHandshakeReport {
 public:
  void RecordSanMismatch(std::string why);
  void RecordVerified(std::string peer_identity);
  // The last SAN mismatch since the last verified handshake; "" if none.
  std::string san_mismatch() const;
  // How the last verified server named itself (its SANs); "" if none yet.
  std::string peer_identity() const;

 private:
  mutable Mutex mu_;
  std::string san_mismatch_ ABSL_GUARDED_BY(mu_);
  std::string peer_identity_ ABSL_GUARDED_BY(mu_);
};

// Errors (kFailedPrecondition, naming the instance): an instance the
// bootstrap lacks or whose config is invalid, a root instance without
// ca_certificate_file, an identity instance without certificate_file /
// private_key_file. Missing or bad files are not errors here: gRPC's file
// watcher picks up the next good file; ExplainTlsFailure names them.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
MakeEndpointCredentials(const Bootstrap& bootstrap,
                        const resources::UpstreamTlsContext& tls,
                        std::shared_ptr<TlsHandshakeReport> report);

// Why TLS connections to `target` (a grpc++ target: "ipv4:1.2.3.4:5") fail,
// best first: a certificate file of the cluster's provider instances that
// is missing, unreadable, empty or not PEM (naming the file and the
// instance); the SAN mismatch the verifier recorded; else what a diagnostic
// handshake (at most `timeout`) finds wrong with the server's chain against
// the roots (expired, unknown CA: transport/tls_diagnosis.h). "" when
// nothing is found. Blocking: never call it under a lock or on a pick path.
std::string ExplainTlsFailure(const Bootstrap& bootstrap,
                              const resources::UpstreamTlsContext& tls,
                              const TlsHandshakeReport& report,
                              const std::string& target,
                              absl::Duration timeout);

}  // namespace xdsfed::channel

#endif  // XDSFED_LIB_CHANNEL_ENDPOINT_TLS_H_
