#include "lib/channel/endpoint_tls.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "lib/channel/san_matcher.h"
#include "lib/transport/certificate_providers.h"
#include "lib/transport/tls_diagnosis.h"

namespace xdsfed::channel {
namespace {

std::vector<std::string> Strings(const std::vector<grpc::string_ref>& refs) {
  std::vector<std::string> out;
  out.reserve(refs.size());
  for (const grpc::string_ref& r : refs) out.emplace_back(r.data(), r.size());
  return out;
}

// A29 §Server Authorization, run by gRPC after its own check of the chain
// against the roots passed (set_verify_server_certs(true)): the leaf's SANs
// against the cluster's matchers, compiled when the Cluster was decoded.
class SanVerifier final
    : public grpc::experimental::ExternalCertificateVerifier {
 public:
  SanVerifier(std::shared_ptr<const resources::UpstreamTlsContext> tls,
              std::shared_ptr<TlsHandshakeReport> report)
      : tls_(std::move(tls)), report_(std::move(report)) {}

  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
              std::function<void(grpc::Status)> /*callback*/,
              grpc::Status* sync_status) override {
    PeerSans sans;
    sans.dns = Strings(request->dns_names());
    sans.uri = Strings(request->uri_names());
    sans.email = Strings(request->email_names());
    sans.ip = Strings(request->ip_names());
    if (SansMatch(tls_->match_subject_alt_names, sans)) {
      report_->RecordVerified(DescribeSans(sans));
      *sync_status = grpc::Status::OK;
    } else {
      std::string why =
          DescribeSanMismatch(tls_->match_subject_alt_names, sans);
      *sync_status = grpc::Status(
          grpc::StatusCode::UNAUTHENTICATED,
          absl::StrCat("SANs from certificate did not match SANs from xDS "
                       "control plane: ",
                       why));
      report_->RecordSanMismatch(std::move(why));
    }
    return true;  // answered synchronously
  }

  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {
  }

 private:
  const std::shared_ptr<const resources::UpstreamTlsContext> tls_;
  const std::shared_ptr<TlsHandshakeReport> report_;
};

struct Files {
  transport::ProviderFileSet root;
  std::optional<transport::ProviderFileSet> identity;
};

absl::StatusOr<Files> FilesOf(const Bootstrap& bootstrap,
                              const resources::UpstreamTlsContext& tls) {
  Files out;
  absl::StatusOr<transport::ProviderFileSet> root =
      transport::ProviderFiles(bootstrap, tls.root.instance_name);
  if (!root.ok()) return root.status();
  if (root->ca_certificate_file.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("certificate provider instance \"", tls.root.instance_name,
                     "\" has no ca_certificate_file"));
  }
  out.root = *std::move(root);
  if (tls.identity.has_value()) {
    absl::StatusOr<transport::ProviderFileSet> identity =
        transport::ProviderFiles(bootstrap, tls.identity->instance_name);
    if (!identity.ok()) return identity.status();
    if (identity->certificate_file.empty() ||
        identity->private_key_file.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "certificate provider instance \"", tls.identity->instance_name,
          "\" has no certificate_file / private_key_file"));
    }
    out.identity = *std::move(identity);
  }
  return out;
}

}  // namespace

void TlsHandshakeReport::RecordSanMismatch(std::string why) {
  MutexLock lock(&mu_);
  san_mismatch_ = std::move(why);
}

void TlsHandshakeReport::RecordVerified(std::string peer_identity) {
  MutexLock lock(&mu_);
  san_mismatch_.clear();
  peer_identity_ = std::move(peer_identity);
}

std::string TlsHandshakeReport::san_mismatch() const {
  MutexLock lock(&mu_);
  return san_mismatch_;
}

std::string TlsHandshakeReport::peer_identity() const {
  MutexLock lock(&mu_);
  return peer_identity_;
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
MakeEndpointCredentials(const Bootstrap& bootstrap,
                        const resources::UpstreamTlsContext& tls,
                        std::shared_ptr<TlsHandshakeReport> report) {
  absl::StatusOr<Files> files = FilesOf(bootstrap, tls);
  if (!files.ok()) return files.status();
  absl::Duration refresh = files->root.refresh_interval;
  std::string key_file, cert_file;
  if (files->identity.has_value()) {
    key_file = files->identity->private_key_file;
    cert_file = files->identity->certificate_file;
    refresh = std::min(refresh, files->identity->refresh_interval);
  }
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(transport::SharedFileWatcherProvider(
      key_file, cert_file, files->root.ca_certificate_file, refresh));
  options.watch_root_certs();
  if (files->identity.has_value()) options.watch_identity_key_cert_pairs();
  // The CA check stays gRPC's; the host name check gives way to the SAN
  // matchers (A29: "in lieu of the canonical hostname check").
  options.set_verify_server_certs(true);
  options.set_check_call_host(false);
  options.set_certificate_verifier(
      grpc::experimental::ExternalCertificateVerifier::Create<SanVerifier>(
          std::make_shared<const resources::UpstreamTlsContext>(tls),
          std::move(report)));
  std::shared_ptr<grpc::ChannelCredentials> creds =
      grpc::experimental::TlsCredentials(options);
  if (creds == nullptr) {
    return absl::InternalError("grpc++ rejected the TLS channel options");
  }
  return creds;
}

std::string ExplainTlsFailure(const Bootstrap& bootstrap,
                              const resources::UpstreamTlsContext& tls,
                              const TlsHandshakeReport& report,
                              const std::string& target,
                              absl::Duration timeout) {
  absl::StatusOr<Files> files = FilesOf(bootstrap, tls);
  if (!files.ok()) return std::string(files.status().message());
  absl::Status file_check = transport::CheckProviderFile(
      tls.root.instance_name, "ca_certificate_file",
      files->root.ca_certificate_file, /*key=*/false);
  if (file_check.ok() && tls.identity.has_value()) {
    file_check = transport::CheckProviderFile(
        tls.identity->instance_name, "certificate_file",
        files->identity->certificate_file, /*key=*/false);
    if (file_check.ok()) {
      file_check = transport::CheckProviderFile(
          tls.identity->instance_name, "private_key_file",
          files->identity->private_key_file, /*key=*/true);
    }
  }
  if (!file_check.ok()) return std::string(file_check.message());
  std::string san = report.san_mismatch();
  if (!san.empty()) {
    return absl::StrCat("SAN check failed: ", san);
  }
  transport::PeerCertificateProbe probe;
  probe.target = target;
  probe.roots_file = files->root.ca_certificate_file;
  probe.roots_name = absl::StrCat("certificate provider instance \"",
                                  tls.root.instance_name, "\"");
  if (files->identity.has_value()) {
    probe.certificate_file = files->identity->certificate_file;
    probe.private_key_file = files->identity->private_key_file;
  }
  return transport::DiagnosePeerCertificate(probe, timeout);
}

}  // namespace xdsfed::channel
