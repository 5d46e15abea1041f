// Why a control plane's certificate was rejected, when gRPC does not say.
//
// gRPC 1.51 reports every OpenSSL verification failure as "certificate
// verify failed" (an expired certificate reads the same as one from an
// unknown CA), and a name mismatch as "Hostname Verification Check failed."
// without the names involved. After such a failure the transport runs a
// second, diagnostic handshake that accepts any certificate, records the
// chain the server presented and closes before sending anything; then
// OpenSSL's own verifier (X509_verify_cert, the check the handshake ran) and
// X509_check_host/X509_check_ip_asc say what is wrong with that chain:
//
//   "...certificate verify failed; the server's certificate \"CN=cp\" expired
//    at 2026-11-24T10:51:05Z (OpenSSL: certificate has expired)"
//
// The verdict stays gRPC's: the diagnosis only adds words to an error, and a
// chain it finds nothing wrong with (say, the server rotated its certificate
// between the two handshakes) adds none. Everything read from the server is
// parsed by OpenSSL, never by hand, and quoted escaped and length-capped.
#ifndef XDSFED_LIB_TRANSPORT_TLS_DIAGNOSIS_H_
#define XDSFED_LIB_TRANSPORT_TLS_DIAGNOSIS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/bootstrap/xds_server_config.h"

namespace xdsfed::transport {

// What one diagnosis looks at.
struct ServerCertificateCheck {
  // The chain the server presented, PEM, its own certificate first.
  std::string chain_pem;
  // The CAs the client trusts, PEM; empty: OpenSSL's default paths (what
  // the system trusts).
  std::string roots_pem;
  // How the message names those CAs: "ca_certificate_file \"/etc/ca.pem\""
  // or "the system roots".
  std::string roots_name;
  // The name the client checks the certificate against: the target's host,
  // without a port ("127.0.0.1", "xds.example.com", "::1").
  std::string host;
  // When to check validity periods against.
  absl::Time now;
};

// What is wrong with the chain, as a clause to append to gRPC's error,
// e.g. "the server's certificate \"CN=cp\" expired at 2026-11-24T10:51:05Z
// (OpenSSL: certificate has expired)". The cases:
//   - expired / not yet valid (the certificate, or a CA of its chain, with
//     its subject and the date);
//   - not issued by a CA among the roots (its issuer and the roots' name);
//   - any other OpenSSL verification error, in OpenSSL's words;
//   - the chain verifies but does not name `host` (with the names it has);
//   - "the server presented no certificate that could be read".
// "" when nothing is wrong.
std::string ExplainServerCertificate(const ServerCertificateCheck& check);

// The target's host without its port, as gRPC checks it: "127.0.0.1:5000"
// -> "127.0.0.1", "[::1]:443" -> "::1", "xds.example.com" (no port) ->
// itself. grpc++ hands the diagnosis the target name it verifies against.
std::string HostOfTargetName(absl::string_view target_name);

// The clause above for `server` (a "tls" creds server), found with a
// diagnostic handshake to it that waits at most `timeout` for the server's
// chain; "" when the chain could not be fetched in time or nothing is wrong
// with it. The roots are read from ca_certificate_file now (size-capped), as
// gRPC's file watcher would; with a client certificate configured, the
// handshake presents it too (an mTLS server may want it before it finishes).
std::string DiagnoseServerCertificate(const XdsServerConfig& server,
                                      absl::Duration timeout);

// The same for any TLS peer (an xDS cluster's endpoint, lib/channel): a
// diagnostic handshake to `target` presenting the identity files if both
// are set, its chain checked against the roots in `roots_file` (read now,
// size-capped; empty: the system roots), and against the target's host
// only with `check_host` (xDS endpoints are checked by SAN matchers
// instead, A29).
struct PeerCertificateProbe {
  std::string target;  // a grpc++ target: "ipv4:127.0.0.1:443"
  std::string roots_file;
  std::string roots_name;  // how the message names the roots
  std::string certificate_file;
  std::string private_key_file;
  bool check_host = false;
};
std::string DiagnosePeerCertificate(const PeerCertificateProbe& probe,
                                    absl::Duration timeout);

}  // namespace xdsfed::transport

#endif  // XDSFED_LIB_TRANSPORT_TLS_DIAGNOSIS_H_
