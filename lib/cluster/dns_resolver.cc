#include "lib/cluster/dns_resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <deque>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/base/mutex.h"

namespace xdsfed {
namespace cluster {
namespace {

// getaddrinfo() result for one "ip:port" string.
std::string FormatAddress(const sockaddr* address) {
  char ip[INET6_ADDRSTRLEN] = {};
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof(ip));
    return absl::StrCat(ip, ":", ntohs(v4->sin_port));
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
  inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof(ip));
  return absl::StrCat("[", ip, "]:", ntohs(v6->sin6_port));
}

absl::StatusOr<std::vector<std::string>> ResolveBlocking(
    const std::string& host_port) {
  absl::StatusOr<HostPort> split = SplitHostPort(host_port);
  if (!split.ok()) return split.status();
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* result = nullptr;
  const std::string port = absl::StrCat(split->port);
  int rc = getaddrinfo(split->host.c_str(), port.c_str(), &hints, &result);
  if (rc != 0) {
    return absl::UnavailableError(absl::StrCat(
        "DNS resolution failed for \"", host_port, "\": ", gai_strerror(rc)));
  }
  std::vector<std::string> addresses;
  absl::flat_hash_set<std::string> seen;
  for (const addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    std::string address = FormatAddress(ai->ai_addr);
    if (seen.insert(address).second) addresses.push_back(std::move(address));
  }
  freeaddrinfo(result);
  if (addresses.empty()) {
    return absl::UnavailableError(absl::StrCat(
        "DNS resolution for \"", host_port, "\" returned no addresses"));
  }
  return addresses;
}

// The queue and the queries being resolved, shared with the worker threads
// (which outlive the resolver if a getaddrinfo() is slow).
struct PoolState {
  struct Query {
    DnsResolver::Handle handle;
    std::string host_port;
    DnsResolver::Callback done;
  };
  Mutex mu;
  std::deque<Query> queue ABSL_GUARDED_BY(mu);
  // Callbacks of the queries a worker is resolving, until it takes them.
  absl::flat_hash_map<DnsResolver::Handle, DnsResolver::Callback> running
      ABSL_GUARDED_BY(mu);
  int workers ABSL_GUARDED_BY(mu) = 0;
  DnsResolver::Handle next_handle ABSL_GUARDED_BY(mu) = 1;
};

void Work(const std::shared_ptr<PoolState>& state) {
  for (;;) {
    PoolState::Query query;
    {
      MutexLock lock(&state->mu);
      if (state->queue.empty()) {
        --state->workers;
        return;
      }
      query = std::move(state->queue.front());
      state->queue.pop_front();
      state->running.emplace(query.handle, std::move(query.done));
    }
    absl::StatusOr<std::vector<std::string>> result =
        ResolveBlocking(query.host_port);
    DnsResolver::Callback done;
    {
      MutexLock lock(&state->mu);
      auto it = state->running.find(query.handle);
      if (it != state->running.end()) {
        done = std::move(it->second);
        state->running.erase(it);
      }
    }
    // Not found: cancelled while resolving; the answer is dropped.
    if (done) done(std::move(result));
  }
}

class SystemResolver : public DnsResolver {
 public:
  Handle Resolve(std::string host_port, Callback done) override {
    Handle handle;
    bool spawn = false;
    {
      MutexLock lock(&state_->mu);
      handle = state_->next_handle++;
      state_->queue.push_back({handle, std::move(host_port), std::move(done)});
      if (state_->workers < kSystemDnsWorkers) {
        ++state_->workers;
        spawn = true;
      }
    }
    // Detached: getaddrinfo() cannot be interrupted, and nothing must wait
    // for it. A worker exits when the queue is empty.
    if (spawn) std::thread([state = state_] { Work(state); }).detach();
    return handle;
  }

  void Cancel(Handle handle) override {
    Callback dropped;  // destroyed outside the lock
    MutexLock lock(&state_->mu);
    for (auto it = state_->queue.begin(); it != state_->queue.end(); ++it) {
      if (it->handle == handle) {
        dropped = std::move(it->done);
        state_->queue.erase(it);
        return;
      }
    }
    auto it = state_->running.find(handle);
    if (it != state_->running.end()) {
      dropped = std::move(it->second);
      state_->running.erase(it);
    }
  }

 private:
  const std::shared_ptr<PoolState> state_ = std::make_shared<PoolState>();
};

}  // namespace

std::shared_ptr<DnsResolver> SystemDnsResolver() {
  return std::make_shared<SystemResolver>();
}

absl::StatusOr<HostPort> SplitHostPort(absl::string_view host_port) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad DNS name \"", absl::CHexEscape(host_port.substr(0, 256)),
        host_port.size() > 256 ? "...\"" : "\"", ": ", why));
  };
  absl::string_view host;
  absl::string_view port;
  if (absl::StartsWith(host_port, "[")) {
    size_t close = host_port.find(']');
    if (close == absl::string_view::npos) return bad("unterminated '['");
    host = host_port.substr(1, close - 1);
    absl::string_view rest = host_port.substr(close + 1);
    if (!absl::StartsWith(rest, ":")) return bad("no port");
    port = rest.substr(1);
  } else {
    size_t colon = host_port.rfind(':');
    if (colon == absl::string_view::npos) return bad("no port");
    host = host_port.substr(0, colon);
    port = host_port.substr(colon + 1);
    if (absl::StrContains(host, ':')) {
      return bad("IPv6 address must be in brackets");
    }
  }
  if (host.empty()) return bad("empty host");
  if (host.find('\0') != absl::string_view::npos) return bad("NUL in host");
  uint32_t port_number = 0;
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(port, &port_number) || port_number > 65535) {
    return bad("port must be a number in 0..65535");
  }
  return HostPort{std::string(host), static_cast<uint16_t>(port_number)};
}

absl::Duration DnsBackoff::NextDelay() {
  if (attempts_++ == 0) {
    current_ = options_.initial;
    return current_;
  }
  current_ = std::min(current_ * options_.multiplier, options_.max);
  const double spread = absl::ToDoubleSeconds(current_) * options_.jitter;
  std::uniform_real_distribution<double> jitter(-spread, spread);
  return current_ + absl::Seconds(jitter(rng_));
}

}  // namespace cluster
}  // namespace xdsfed
