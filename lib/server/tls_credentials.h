// Server credentials for filter chains with a DownstreamTlsContext (A29 as
// A36 applies it): TLS from the bootstrap's file_watcher certificate
// provider instances, mutual TLS when the chain verifies or requires client
// certificates. One credentials object per distinct TLS setting, kept for
// the server's life so its file watchers stay fresh (A36: "keep the
// credentials cache fresh").
#ifndef XDSFED_LIB_SERVER_TLS_CREDENTIALS_H_
#define XDSFED_LIB_SERVER_TLS_CREDENTIALS_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"
#include "lib/base/mutex.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/resources/downstream_tls_context.h"

namespace xdsfed::server {

class TlsCredentialsCache {
 public:
  explicit TlsCredentialsCache(std::shared_ptr<const Bootstrap> bootstrap);

  // Errors: a provider instance the bootstrap does not have, a provider
  // config that is invalid, or a certificate / key file that cannot be read.
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> For(
      const resources::DownstreamTlsContext& tls);

 private:
  const std::shared_ptr<const Bootstrap> bootstrap_;
  Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::ServerCredentials>> cache_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_TLS_CREDENTIALS_H_
