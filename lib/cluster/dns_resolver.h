// Name resolution for LOGICAL_DNS clusters (A37 §Discovery Mechanisms: "a DNS
// resolver to obtain the endpoint information ... resolving the DNS name
// encoded in the LOGICAL_DNS CDS resource"). Asynchronous behind an interface
// so that tests use a fake and the cluster driver never blocks on DNS.
//
//   std::shared_ptr<DnsResolver> dns = SystemDnsResolver();
//   dns->Resolve("localhost:8080",
//                [](absl::StatusOr<std::vector<std::string>> addresses) {
//                  // {"127.0.0.1:8080", "[::1]:8080"} on some other thread
//                });
#ifndef XDSFED_LIB_CLUSTER_DNS_RESOLVER_H_
#define XDSFED_LIB_CLUSTER_DNS_RESOLVER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {
namespace cluster {

class DnsResolver {
 public:
  // Addresses as "ip:port" ("10.0.0.1:80", "[2001:db8::1]:80"), in the
  // order the resolver returned them, without duplicates; or an error
  // (kInvalidArgument for a malformed "host:port", kUnavailable when the
  // name does not resolve).
  using Callback =
      std::function<void(absl::StatusOr<std::vector<std::string>> addresses)>;

  virtual ~DnsResolver() = default;
  // Resolves `host_port`; `done` runs exactly once, never inside Resolve()
  // and never under a lock of the resolver. Callers that may go away first
  // hand in a callback holding a weak reference.
  virtual void Resolve(std::string host_port, Callback done) = 0;
};

// getaddrinfo() on a thread of its own per request, so a name that takes
// seconds to fail holds up nothing else.
std::shared_ptr<DnsResolver> SystemDnsResolver();

// Splits "host:port" / "[v6]:port" (port required, 0..65535, digits only).
struct HostPort {
  std::string host;
  uint16_t port = 0;
};
absl::StatusOr<HostPort> SplitHostPort(absl::string_view host_port);

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_DNS_RESOLVER_H_
