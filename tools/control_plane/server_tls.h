// The control plane's server credentials: plaintext, TLS, or mutual TLS,
// with certificate files re-read while serving (a file_watcher provider), so
// tests can rotate them on disk.
//
//   ServerTlsFiles tls{"server.pem", "server.key", "ca.pem"};
//   absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds =
//       MakeServerCredentials(tls);
#ifndef XDSFED_TOOLS_CONTROL_PLANE_SERVER_TLS_H_
#define XDSFED_TOOLS_CONTROL_PLANE_SERVER_TLS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace grpc {
class ServerCredentials;
}  // namespace grpc

namespace xdsfed::control_plane {

struct ServerTlsFiles {
  // PEM certificate chain and private key of the server. Both empty:
  // plaintext (insecure) serving; one without the other is an error.
  std::string cert_file;
  std::string key_file;
  // PEM roots that client certificates must chain to; when set, clients must
  // present one (mutual TLS).
  std::string client_ca_file;
  // How often the files are re-read (gRPC's file watcher: whole seconds).
  absl::Duration refresh_interval = absl::Seconds(1);
};

// Errors: kInvalidArgument for a certificate without a key (or the reverse)
// or a client CA without a certificate, kNotFound for an unreadable file
// (naming it).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files);

}  // namespace xdsfed::control_plane

#endif  // XDSFED_TOOLS_CONTROL_PLANE_SERVER_TLS_H_
