// Name resolution for LOGICAL_DNS clusters (A37 §Discovery Mechanisms: "a DNS
// resolver to obtain the endpoint information ... resolving the DNS name
// encoded in the LOGICAL_DNS CDS resource"). Asynchronous behind an interface
// so that tests use a fake and the cluster driver never blocks on DNS.
//
//   std::shared_ptr<DnsResolver> dns = SystemDnsResolver();
//   DnsResolver::Handle h = dns->Resolve(
//       "localhost:8080",
//       [](absl::StatusOr<std::vector<std::string>> addresses) {
//         // {"127.0.0.1:8080", "[::1]:8080"} on some other thread
//       });
//   dns->Cancel(h);  // the cluster went away: the callback never runs
//
// Retry after a failure and re-resolution on request are the caller's (the
// cluster driver's) business: a resolver answers one query per Resolve().
#ifndef XDSFED_LIB_CLUSTER_DNS_RESOLVER_H_
#define XDSFED_LIB_CLUSTER_DNS_RESOLVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

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
  using Handle = uint64_t;

  virtual ~DnsResolver() = default;
  // Resolves `host_port`; `done` runs at most once (exactly once unless
  // cancelled), never inside Resolve() and never under a lock of the
  // resolver.
  virtual Handle Resolve(std::string host_port, Callback done) = 0;
  // The query's callback will not start after this returns (one already
  // running may finish), and is destroyed without running, so it releases
  // whatever it holds. A query not yet sent is never sent. Unknown or
  // finished handles are ignored.
  virtual void Cancel(Handle handle) = 0;
};

// getaddrinfo() on a small pool of worker threads (at most
// kSystemDnsWorkers queries at a time, the rest queued): a name that takes
// seconds to fail holds up nothing else, and thousands of LOGICAL_DNS
// clusters do not make thousands of threads. getaddrinfo() itself cannot be
// interrupted: cancelling a query that is running drops its answer.
inline constexpr int kSystemDnsWorkers = 4;
std::shared_ptr<DnsResolver> SystemDnsResolver();

// Splits "host:port" / "[v6]:port" (port required, 0..65535, digits only).
struct HostPort {
  std::string host;
  uint16_t port = 0;
};
absl::StatusOr<HostPort> SplitHostPort(absl::string_view host_port);

// Retry delays after failed resolutions, as gRPC's DNS resolver computes
// them: the first retry after `initial`, each later one `multiplier` times
// the previous (at most `max`), plus a uniform jitter of +-`jitter` of it.
struct DnsBackoffOptions {
  absl::Duration initial = absl::Seconds(1);
  double multiplier = 1.6;
  double jitter = 0.2;
  absl::Duration max = absl::Seconds(120);
};
class DnsBackoff {
 public:
  DnsBackoff(const DnsBackoffOptions& options, uint64_t seed)
      : options_(options), rng_(seed) {}
  absl::Duration NextDelay();
  // After a success: the next failure waits `initial` again.
  void Reset() { attempts_ = 0; }

 private:
  DnsBackoffOptions options_;
  std::mt19937_64 rng_;
  int attempts_ = 0;
  absl::Duration current_;
};

// Runs the driver's retry timers (lib/xds_config adapts the XdsClient's
// timers to it; tests use a fake). Callbacks run on some other thread,
// never inside RunAfter.
class RetryTimer {
 public:
  using Handle = uint64_t;
  virtual ~RetryTimer() = default;
  virtual Handle RunAfter(absl::Duration delay, std::function<void()> fn) = 0;
  // The callback will not start after this returns; unknown handles are
  // ignored.
  virtual void Cancel(Handle handle) = 0;
};

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_DNS_RESOLVER_H_
