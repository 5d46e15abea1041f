#include "lib/transport/certificate_providers.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/base/file_reader.h"
#include "lib/base/mutex.h"
#include "schema/channel_creds.xds.h"

namespace xdsfed::transport {
namespace {

// A certificate chain or a roots bundle is a few hundred KB at most.
constexpr size_t kMaxCertificateFileBytes = size_t{16} << 20;

using Key = std::tuple<std::string, std::string, std::string, int64_t>;

struct Registry {
  Mutex mu;
  std::map<Key,
           std::shared_ptr<grpc::experimental::CertificateProviderInterface>>
      providers ABSL_GUARDED_BY(mu);
};

Registry& GlobalRegistry() {
  static Registry* const kRegistry = new Registry();
  return *kRegistry;
}

// True if `pem` holds at least one PEM block OpenSSL reads as the kind
// asked for. OpenSSL parses; nothing is read by hand.
bool HoldsPem(const std::string& pem, bool key) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return false;
  bool ok = false;
  if (key) {
    EVP_PKEY* pkey = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    ok = pkey != nullptr;
    EVP_PKEY_free(pkey);
  } else {
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    ok = cert != nullptr;
    X509_free(cert);
  }
  BIO_free(bio);
  ERR_clear_error();
  return ok;
}

}  // namespace

absl::StatusOr<ProviderFileSet> ProviderFiles(const Bootstrap& bootstrap,
                                              absl::string_view instance) {
  auto it = bootstrap.certificate_providers().find(std::string(instance));
  if (it == bootstrap.certificate_providers().end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("certificate provider instance \"", instance,
                     "\" is not in the bootstrap's certificate_providers"));
  }
  absl::StatusOr<schema::TlsChannelCredsConfig> config =
      schema::TlsChannelCredsConfig::Parse(
          it->second.config.value_or(Json::Value(Json::objectValue)),
          absl::StrCat("certificate_providers[\"", instance, "\"].config: "));
  if (!config.ok()) {
    return absl::FailedPreconditionError(config.status().message());
  }
  ProviderFileSet out;
  out.certificate_file = config->certificate_file;
  out.private_key_file = config->private_key_file;
  out.ca_certificate_file = config->ca_certificate_file;
  out.refresh_interval = config->refresh_interval;
  return out;
}

std::shared_ptr<grpc::experimental::CertificateProviderInterface>
SharedFileWatcherProvider(const std::string& private_key_file,
                          const std::string& certificate_file,
                          const std::string& ca_certificate_file,
                          absl::Duration refresh_interval) {
  // gRPC's smallest file-watcher interval is 1 s.
  const int64_t refresh_s =
      std::max<int64_t>(1, absl::ToInt64Seconds(refresh_interval));
  const bool identity = !private_key_file.empty() && !certificate_file.empty();
  Key key(identity ? private_key_file : "", identity ? certificate_file : "",
          ca_certificate_file, refresh_s);
  Registry& registry = GlobalRegistry();
  MutexLock lock(&registry.mu);
  auto& slot = registry.providers[key];
  if (slot == nullptr) {
    const unsigned interval = static_cast<unsigned>(refresh_s);
    using grpc::experimental::FileWatcherCertificateProvider;
    if (!identity) {
      slot = std::make_shared<FileWatcherCertificateProvider>(
          ca_certificate_file, interval);
    } else if (ca_certificate_file.empty()) {
      slot = std::make_shared<FileWatcherCertificateProvider>(
          private_key_file, certificate_file, interval);
    } else {
      slot = std::make_shared<FileWatcherCertificateProvider>(
          private_key_file, certificate_file, ca_certificate_file, interval);
    }
  }
  return slot;
}

absl::Status CheckProviderFile(absl::string_view instance,
                               absl::string_view field, const std::string& path,
                               bool key) {
  const std::string what =
      absl::StrCat("certificate provider instance \"", instance, "\" ", field,
                   " \"", path, "\"");
  if (path.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(what, ": not set"));
  }
  absl::StatusOr<std::string> text =
      ReadFileCapped(path, kMaxCertificateFileBytes);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(what, ": ", text.status().message()));
  }
  if (text->empty()) {
    return absl::FailedPreconditionError(absl::StrCat(what, ": is empty"));
  }
  if (!HoldsPem(*text, key)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, key ? ": holds no PEM private key"
                               : ": holds no PEM certificate"));
  }
  return absl::OkStatus();
}

}  // namespace xdsfed::transport
