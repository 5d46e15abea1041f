#include "lib/cluster/dns_resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

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

class SystemResolver : public DnsResolver {
 public:
  void Resolve(std::string host_port, Callback done) override {
    // Detached: getaddrinfo() cannot be interrupted, and nothing must wait
    // for it. The callback owns all the thread touches.
    std::thread([host_port = std::move(host_port),
                 done = std::move(done)]() mutable {
      done(ResolveBlocking(host_port));
    }).detach();
  }
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

}  // namespace cluster
}  // namespace xdsfed
