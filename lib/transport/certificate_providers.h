// The bootstrap's file_watcher certificate provider instances (gRFC A29
// §Certificate Provider Plugin Framework) as grpc++ provider objects, shared
// by the server's filter chains (lib/server, DownstreamTlsContext) and the
// client's endpoint channels (lib/channel, UpstreamTlsContext): one object
// per distinct set of files, kept for the process's life so its watcher
// keeps re-reading them and a rotated certificate is picked up without a
// restart.
//
//   auto files = transport::ProviderFiles(bootstrap, "mesh_certs");
//   if (!files.ok()) return files.status();   // not in the bootstrap, ...
//   auto provider = transport::SharedFileWatcherProvider(
//       files->private_key_file, files->certificate_file,
//       files->ca_certificate_file, files->refresh_interval);
//
// grpc++ 1.51's TLS options take one provider for both the identity and the
// roots, so a context whose identity and roots come from two instances gets
// one provider watching both instances' files; it is still shared by every
// user of that pair.
#ifndef XDSFED_LIB_TRANSPORT_CERTIFICATE_PROVIDERS_H_
#define XDSFED_LIB_TRANSPORT_CERTIFICATE_PROVIDERS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "lib/bootstrap/bootstrap.h"

namespace xdsfed::transport {

// One file_watcher instance's config (its keys are those of the "tls"
// channel creds config).
struct ProviderFileSet {
  std::string certificate_file;
  std::string private_key_file;
  std::string ca_certificate_file;
  absl::Duration refresh_interval;
};

// kFailedPrecondition naming the instance when the bootstrap lacks it or its
// config is invalid.
absl::StatusOr<ProviderFileSet> ProviderFiles(const Bootstrap& bootstrap,
                                              absl::string_view instance);

// The one provider watching these files (empty names: not watched; the
// identity is watched only with both key and certificate). Never null.
std::shared_ptr<grpc::experimental::CertificateProviderInterface>
SharedFileWatcherProvider(const std::string& private_key_file,
                          const std::string& certificate_file,
                          const std::string& ca_certificate_file,
                          absl::Duration refresh_interval);

// What gRPC's file watcher would make of one file now, as an error that
// names the instance and the file, e.g.
//   certificate provider instance "mesh" ca_certificate_file
//   "/etc/ca.pem": cannot read /etc/ca.pem: No such file or directory
// Checked: readable (size-capped), not empty, and holding a PEM certificate
// (`key` false) or a PEM private key (`key` true). gRPC itself only logs
// such a file and keeps the last good one (or none), so its handshakes fail
// without saying why; this is what says why.
absl::Status CheckProviderFile(absl::string_view instance,
                               absl::string_view field, const std::string& path,
                               bool key);

}  // namespace xdsfed::transport

#endif  // XDSFED_LIB_TRANSPORT_CERTIFICATE_PROVIDERS_H_
