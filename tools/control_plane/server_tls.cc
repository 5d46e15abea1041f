#include "tools/control_plane/server_tls.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace xdsfed::control_plane {
namespace {

absl::Status CheckReadable(const char* flag, const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot read ", flag, " file \"", path, "\""));
  }
  std::fclose(file);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files) {
  if (files.cert_file.empty() && files.key_file.empty()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "a TLS client CA needs a server certificate and key");
    }
    return grpc::InsecureServerCredentials();
  }
  if (files.cert_file.empty() || files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "a TLS server certificate and its key go together");
  }
  for (const auto& [flag, path] : {std::pair<const char*, const std::string&>{
                                       "certificate", files.cert_file},
                                   {"key", files.key_file},
                                   {"client CA", files.client_ca_file}}) {
    if (path.empty()) continue;
    absl::Status readable = CheckReadable(flag, path);
    if (!readable.ok()) return readable;
  }
  const int64_t seconds =
      std::max<int64_t>(1, absl::ToInt64Seconds(files.refresh_interval));
  auto provider =
      std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
          files.key_file, files.cert_file, files.client_ca_file,
          static_cast<unsigned int>(seconds));
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (files.client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  std::shared_ptr<grpc::ServerCredentials> creds =
      grpc::experimental::TlsServerCredentials(options);
  if (creds == nullptr) {
    return absl::InvalidArgumentError("grpc++ rejected the TLS options");
  }
  return creds;
}

}  // namespace xdsfed::control_plane
