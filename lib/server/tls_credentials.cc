#include "lib/server/tls_credentials.h"

#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "lib/transport/certificate_providers.h"

namespace xdsfed::server {
namespace {

bool Readable(const std::string& path) {
  std::ifstream in(path);
  return in.good();
}

}  // namespace

TlsCredentialsCache::TlsCredentialsCache(
    std::shared_ptr<const Bootstrap> bootstrap)
    : bootstrap_(std::move(bootstrap)) {}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>>
TlsCredentialsCache::For(const resources::DownstreamTlsContext& tls) {
  const std::string key = absl::StrCat(
      tls.identity.instance_name, "\n", tls.identity.certificate_name, "\n",
      tls.root.has_value() ? tls.root->instance_name : "", "\n",
      tls.root.has_value() ? tls.root->certificate_name : "", "\n",
      tls.require_client_certificate);
  {
    MutexLock lock(&mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  absl::StatusOr<transport::ProviderFileSet> identity =
      transport::ProviderFiles(*bootstrap_, tls.identity.instance_name);
  if (!identity.ok()) return identity.status();
  if (identity->certificate_file.empty() ||
      identity->private_key_file.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "certificate provider instance \"", tls.identity.instance_name,
        "\" has no certificate_file / private_key_file"));
  }
  std::string ca_file;
  absl::Duration refresh = identity->refresh_interval;
  if (tls.root.has_value()) {
    absl::StatusOr<transport::ProviderFileSet> root =
        transport::ProviderFiles(*bootstrap_, tls.root->instance_name);
    if (!root.ok()) return root.status();
    if (root->ca_certificate_file.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "certificate provider instance \"", tls.root->instance_name,
          "\" has no ca_certificate_file"));
    }
    ca_file = root->ca_certificate_file;
    refresh = std::min(refresh, root->refresh_interval);
  }
  for (const std::string* path :
       {&identity->certificate_file, &identity->private_key_file, &ca_file}) {
    // The watcher would only log an unreadable file and retry forever.
    if (!path->empty() && !Readable(*path)) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read \"", *path, "\""));
    }
  }
  // The same provider objects the client's endpoint channels use.
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider =
      transport::SharedFileWatcherProvider(identity->private_key_file,
                                           identity->certificate_file, ca_file,
                                           refresh);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (!ca_file.empty()) options.watch_root_certs();
  options.set_cert_request_type(
      tls.require_client_certificate
          ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
      : !ca_file.empty() ? GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY
                         : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  std::shared_ptr<grpc::ServerCredentials> creds =
      grpc::experimental::TlsServerCredentials(options);
  if (creds == nullptr) {
    return absl::InternalError("grpc++ rejected the TLS server options");
  }
  MutexLock lock(&mu_);
  cache_.emplace(key, creds);
  return creds;
}

}  // namespace xdsfed::server
