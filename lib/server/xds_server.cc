#include "lib/server/xds_server.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/impl/service_type.h"
#include "lib/admin/csds_service.h"
#include "lib/base/federation_gate.h"
#include "lib/base/mutex.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/client/xds_client.h"
#include "lib/resources/listener.h"
#include "lib/routing/socket_address.h"
#include "lib/server/generation.h"
#include "lib/server/tls_credentials.h"
#include "lib/transport/grpc_listen.h"
#include "lib/transport/grpc_transport.h"
#include "lib/xds_config/server_config_manager.h"

namespace xdsfed::server {

namespace {
// Draining generations kept at most; past this the oldest is shut down
// early (its connections then see their streams cancelled), so memory stays
// bounded under a storm of Listener updates.
constexpr size_t kMaxDrainingGenerations = 32;
}  // namespace

struct XdsServerBuilder::Options {
  std::string address;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::vector<grpc::Service*> services;
  std::vector<AsyncServiceFactory> async_factories;
  StatusNotifier notifier;
  absl::Duration drain_grace = absl::Minutes(10);
  absl::Duration max_connection_age = absl::Seconds(30);
  std::shared_ptr<const Bootstrap> bootstrap;
  std::optional<bool> federation;
  std::vector<std::pair<std::string, int>> int_args;
  bool spare_generation = true;
  bool allow_reuse_port = false;
  bool csds_service = false;
  client::XdsClient::Options client_options;
  std::shared_ptr<client::XdsTransportFactory> transport_factory;
};

class XdsServer::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(XdsServerBuilder::Options options, routing::SocketAddress address,
       int listen_fd, int wake_fd, std::string listener_name,
       std::unique_ptr<grpc::Service> csds_service)
      : options_(std::move(options)),
        csds_service_(std::move(csds_service)),
        address_(address),
        address_text_(address.ToString()),
        listener_name_(std::move(listener_name)),
        listen_fd_(listen_fd),
        wake_fd_(wake_fd) {
    gen_options_.listening_address = address_;
    gen_options_.credentials = options_.credentials;
    gen_options_.services = options_.services;
    gen_options_.async_factories = options_.async_factories;
    gen_options_.drain_grace = options_.drain_grace;
    gen_options_.max_connection_age = options_.max_connection_age;
    gen_options_.int_args = options_.int_args;
    tls_ = std::make_shared<TlsCredentialsCache>(options_.bootstrap);
    gen_options_.tls_credentials =
        [tls = tls_](const resources::DownstreamTlsContext& c) {
          return tls->For(c);
        };
  }

  ~Impl() {
    if (listen_fd_ >= 0) close(listen_fd_);
    if (wake_fd_ >= 0) close(wake_fd_);
  }

  absl::Status Start(std::shared_ptr<client::XdsClient> client) {
    // Before subscribing: the Listener's decode then lands on memory already
    // touched (~190 fewer first-touch page faults at 1,000 chains).
    resources::PrewarmListenerDecode();
    PrepareSpare();
    client_ = std::move(client);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
    reaper_thread_ = std::thread([this] { ReaperLoop(); });
    std::weak_ptr<Impl> weak = weak_from_this();
    auto manager = xds_config::ServerConfigManager::StartForAddress(
        client_, address_text_,
        [weak](std::shared_ptr<const xds_config::ServerConfig> config) {
          if (auto self = weak.lock()) self->OnConfig(std::move(config));
        });
    if (!manager.ok()) return manager.status();
    MutexLock lock(&mu_);
    manager_ = *std::move(manager);
    return absl::OkStatus();
  }

  void Shutdown(absl::Duration grace) {
    std::shared_ptr<xds_config::ServerConfigManager> manager;
    {
      MutexLock lock(&mu_);
      if (shutdown_) return;
      shutdown_ = true;
      manager = std::move(manager_);
    }
    // Stop accepting first, so no connection reaches a generation after it.
    uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    if (accept_thread_.joinable()) accept_thread_.join();
    // Refuse connections from now on instead of leaving them in the backlog.
    close(listen_fd_);
    listen_fd_ = -1;
    if (manager != nullptr) manager->Stop();
    std::vector<std::shared_ptr<Generation>> all;
    {
      MutexLock lock(&mu_);
      if (current_ != nullptr) all.push_back(std::move(current_));
      if (spare_ != nullptr) all.push_back(std::move(spare_));
      for (Draining& d : draining_) all.push_back(std::move(d.generation));
      draining_.clear();
      reaper_stop_ = true;
    }
    reaper_cv_.notify_all();
    if (reaper_thread_.joinable()) reaper_thread_.join();
    const absl::Time deadline = absl::Now() + grace;
    for (auto& g : all) g->Shutdown(deadline);
    all.clear();
    client_.reset();
  }

  const std::string& address_text() const { return address_text_; }
  const std::string& listener_name() const { return listener_name_; }
  bool serving() const {
    MutexLock lock(&mu_);
    return current_ != nullptr;
  }
  uint64_t generations_started() const { return generations_.load(); }
  uint64_t accepted() const { return accepted_.load(); }
  uint64_t closed_unserved() const { return closed_unserved_.load(); }

 private:
  struct Draining {
    absl::Time shutdown_at;
    std::shared_ptr<Generation> generation;
  };

  // ServerConfigManager callbacks: one at a time.
  void OnConfig(std::shared_ptr<const xds_config::ServerConfig> config) {
    if (!config->status.ok()) {
      {
        MutexLock lock(&mu_);
        if (shutdown_) return;
        RetireLocked(std::move(current_));
      }
      Report(config->status);
      return;
    }
    std::shared_ptr<Generation> same;
    std::vector<std::shared_ptr<Generation>> draining;
    std::unique_ptr<Generation> spare;
    {
      MutexLock lock(&mu_);
      if (shutdown_) return;
      if (current_ != nullptr &&
          *current_->listener_resource() == *config->listener) {
        same = current_;
      } else {
        spare = std::move(spare_);
      }
      for (const Draining& d : draining_) draining.push_back(d.generation);
    }
    // RDS changes reach existing connections at once, draining ones too.
    std::vector<std::string> ignored;
    for (const auto& g : draining) g->UpdateRoutes(*config, &ignored);
    std::vector<std::string> config_errors;
    if (same != nullptr) {
      // An RDS-only change (same Listener): nothing to drain.
      same->UpdateRoutes(*config, &config_errors);
      LogConfigErrors(config_errors);
      return;
    }
    absl::StatusOr<std::unique_ptr<Generation>> built = Generation::Start(
        generations_.load() + 1, config, gen_options_, &config_errors, &spare);
    LogConfigErrors(config_errors);
    if (!built.ok()) {
      {
        MutexLock lock(&mu_);
        RetireLocked(std::move(current_));
        if (!shutdown_ && spare_ == nullptr) spare_ = std::move(spare);
      }
      Report(built.status());
      return;
    }
    std::shared_ptr<Generation> fresh = *std::move(built);
    generations_.fetch_add(1);
    std::vector<std::shared_ptr<grpc::ServerCredentials>> credentials =
        fresh->credentials();
    {
      MutexLock lock(&mu_);
      if (shutdown_) {
        // Shutdown already took the generations; this one has no connection.
        fresh.reset();
        return;
      }
      RetireLocked(std::move(current_));
      current_ = std::move(fresh);
    }
    Report(absl::OkStatus());
    // After SERVING: the next Listener's server, with this one's
    // credentials (a spare left unused could not serve them).
    spare.reset();
    PrepareSpare(std::move(credentials));
  }

  // A started grpc::Server kept for the next Listener (Generation::Prepare):
  // building and starting one (~0.2-0.3 ms) is then off the way from a
  // Listener to SERVING. It serves the user's credentials and `more` (the
  // current Listener's TLS ones); a Listener needing others builds its own.
  // None with async service factories (their instances are per generation)
  // or when the builder said not to.
  // Before the config manager starts, or from its (serialized) callbacks.
  void PrepareSpare(
      std::vector<std::shared_ptr<grpc::ServerCredentials>> more = {}) {
    if (!options_.spare_generation || !gen_options_.async_factories.empty()) {
      return;
    }
    // Generation keeps one acceptor per distinct credentials.
    more.insert(more.begin(), options_.credentials);
    absl::StatusOr<std::unique_ptr<Generation>> spare =
        Generation::Prepare(gen_options_, std::move(more));
    if (!spare.ok()) return;              // the next Listener builds its own
    std::unique_ptr<Generation> dropped;  // destroyed outside mu_
    MutexLock lock(&mu_);
    if (shutdown_) {
      dropped = *std::move(spare);
    } else {
      dropped = std::move(spare_);
      spare_ = *std::move(spare);
    }
  }

  // Old connections keep their generation until their max-age GOAWAY and
  // grace have passed (xds_server.h); then the reaper shuts it down.
  void RetireLocked(std::shared_ptr<Generation> g)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (g == nullptr) return;
    // gRPC jitters the max age by +-10%.
    absl::Time at = absl::Now() + options_.max_connection_age * 1.1 +
                    options_.drain_grace + absl::Seconds(1);
    draining_.push_back({at, std::move(g)});
    if (draining_.size() > kMaxDrainingGenerations) {
      draining_.front().shutdown_at = absl::InfinitePast();
    }
    reaper_cv_.notify_all();
  }

  // A36 §Configuration Error Logging: a warning on each update while the
  // configuration has errors, and one when they are gone.
  void LogConfigErrors(const std::vector<std::string>& errors) {
    if (errors.empty()) {
      if (had_config_errors_) {
        std::fprintf(stderr,
                     "xdsfed server %s: warning: configuration errors fixed\n",
                     address_text_.c_str());
      }
      had_config_errors_ = false;
      return;
    }
    had_config_errors_ = true;
    for (const std::string& e : errors) {
      std::fprintf(stderr,
                   "xdsfed server %s: warning: configuration error: %s\n",
                   address_text_.c_str(), e.c_str());
    }
  }

  // Called on serving changes (and a changed NOT_SERVING reason), never
  // under mu_; serialized by the config manager.
  void Report(const absl::Status& status) {
    if (last_report_.has_value() && *last_report_ == status) return;
    const bool resumed = status.ok() && last_report_.has_value();
    last_report_ = status;
    if (options_.notifier) {
      options_.notifier(address_text_, status);
      return;
    }
    // A36: without a notifier, errors and each resumption after an error are
    // logged at a default-visible level.
    if (!status.ok()) {
      std::fprintf(stderr, "xdsfed server %s: not serving: %s\n",
                   address_text_.c_str(), status.ToString().c_str());
    } else if (resumed) {
      std::fprintf(stderr, "xdsfed server %s: serving again\n",
                   address_text_.c_str());
    }
  }

  void AcceptLoop() {
    while (true) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      int n = poll(fds, 2, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::fprintf(stderr, "xdsfed server %s: poll: errno %d\n",
                     address_text_.c_str(), errno);
        return;
      }
      if (fds[1].revents != 0) return;
      // A bounded batch per wakeup; the next poll picks up the rest.
      for (int i = 0; i < 256; ++i) {
        sockaddr_storage peer;
        socklen_t peer_len = sizeof(peer);
        int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer),
                         &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          if (errno == EINTR || errno == ECONNABORTED) continue;
          if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
              errno == ENOMEM) {
            // Out of descriptors: back off instead of spinning on poll.
            absl::SleepFor(absl::Milliseconds(10));
          }
          break;
        }
        Dispatch(fd, peer, peer_len);
      }
    }
  }

  // A36 §Connection and Request Handling, steps 1-3.
  void Dispatch(int fd, const sockaddr_storage& peer, socklen_t peer_len) {
    accepted_.fetch_add(1, std::memory_order_relaxed);
    sockaddr_storage local;
    socklen_t local_len = sizeof(local);
    std::optional<routing::SocketAddress> source =
        routing::SocketAddress::FromSockaddr(
            reinterpret_cast<const sockaddr*>(&peer), peer_len);
    // A socket listening on one address accepts on that address only:
    // getsockname is needed for a wildcard (0.0.0.0, [::]) alone.
    std::optional<routing::SocketAddress> destination;
    if (address_.ip != 0) {
      destination = address_;
    } else if (getsockname(fd, reinterpret_cast<sockaddr*>(&local),
                           &local_len) == 0) {
      destination = routing::SocketAddress::FromSockaddr(
          reinterpret_cast<const sockaddr*>(&local), local_len);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    // Reading the generation and handing off under one lock: a generation
    // is never retired between the two (gRPC would leak a connection handed
    // to a server that is shutting down).
    MutexLock lock(&mu_);
    Generation* g = current_.get();
    const resources::FilterChainData* chain = nullptr;
    size_t chain_index = 0;
    if (g != nullptr && source.has_value() && destination.has_value()) {
      const resources::ServerListener& l = g->listener();
      std::optional<size_t> index =
          g->chain_selector().Select(*destination, &*source);
      if (index.has_value() && *index < l.filter_chains.size()) {
        chain = l.filter_chains[*index].get();
        chain_index = *index;
      } else if (l.default_filter_chain.has_value()) {
        chain = &*l.default_filter_chain;
        chain_index = l.filter_chains.size();
      }
    }
    // No chain, or its TLS credentials failed (never served in plaintext):
    // closed without a byte (A36).
    if (chain == nullptr ||
        !g->HandOff(listen_fd_, fd, *source, *destination, chain_index)) {
      closed_unserved_.fetch_add(1, std::memory_order_relaxed);
      close(fd);
    }
  }

  void ReaperLoop() {
    mu_.Lock();
    while (!reaper_stop_) {
      auto earliest =
          std::min_element(draining_.begin(), draining_.end(),
                           [](const Draining& a, const Draining& b) {
                             return a.shutdown_at < b.shutdown_at;
                           });
      if (earliest == draining_.end()) {
        reaper_cv_.wait(mu_);
        continue;
      }
      absl::Time now = absl::Now();
      if (earliest->shutdown_at > now) {
        reaper_cv_.wait_for(
            mu_, absl::ToChronoNanoseconds(earliest->shutdown_at - now));
        continue;
      }
      std::shared_ptr<Generation> g = std::move(earliest->generation);
      draining_.erase(earliest);
      mu_.Unlock();
      g->Shutdown(absl::Now() + absl::Seconds(1));
      g.reset();
      mu_.Lock();
    }
    mu_.Unlock();
  }

  const XdsServerBuilder::Options options_;
  // Registered on every generation (options_.services has it): outlives
  // them all, the members below.
  const std::unique_ptr<grpc::Service> csds_service_;
  GenerationOptions gen_options_;
  const routing::SocketAddress address_;
  const std::string address_text_;
  const std::string listener_name_;
  int listen_fd_;  // -1 once Shutdown closed it
  const int wake_fd_;
  std::shared_ptr<TlsCredentialsCache> tls_;
  std::shared_ptr<client::XdsClient> client_;
  std::thread accept_thread_;
  std::thread reaper_thread_;
  std::atomic<uint64_t> generations_{0};
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> closed_unserved_{0};
  // Config-manager callback state (serialized).
  std::optional<absl::Status> last_report_;
  bool had_config_errors_ = false;

  mutable Mutex mu_;
  std::condition_variable_any reaper_cv_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  bool reaper_stop_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<xds_config::ServerConfigManager> manager_
      ABSL_GUARDED_BY(mu_);
  std::shared_ptr<Generation> current_ ABSL_GUARDED_BY(mu_);
  // Started, no Listener yet, no connection ever (PrepareSpare).
  std::unique_ptr<Generation> spare_ ABSL_GUARDED_BY(mu_);
  std::deque<Draining> draining_ ABSL_GUARDED_BY(mu_);
};

// ---------------------------------------------------------------- builder

XdsServerBuilder::XdsServerBuilder() : options_(std::make_unique<Options>()) {}
XdsServerBuilder::~XdsServerBuilder() = default;

XdsServerBuilder& XdsServerBuilder::AddListeningPort(
    const std::string& address,
    std::shared_ptr<grpc::ServerCredentials> credentials) {
  options_->address = address;
  options_->credentials = std::move(credentials);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::RegisterService(grpc::Service* service) {
  options_->services.push_back(service);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::RegisterAsyncServiceFactory(
    AsyncServiceFactory factory) {
  options_->async_factories.push_back(std::move(factory));
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_status_notifier(
    StatusNotifier notifier) {
  options_->notifier = std::move(notifier);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_drain_grace_time(absl::Duration grace) {
  options_->drain_grace = grace;
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_max_connection_age(absl::Duration age) {
  options_->max_connection_age = age;
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_bootstrap(
    std::shared_ptr<const Bootstrap> bootstrap) {
  options_->bootstrap = std::move(bootstrap);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_federation(bool enabled) {
  options_->federation = enabled;
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_xds_client_options(
    client::XdsClient::Options options) {
  options_->client_options = std::move(options);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_transport_factory(
    std::shared_ptr<client::XdsTransportFactory> factory) {
  options_->transport_factory = std::move(factory);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::AddChannelArgument(const std::string& name,
                                                       int value) {
  options_->int_args.emplace_back(name, value);
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_csds_service(bool enabled) {
  options_->csds_service = enabled;
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_spare_generation(bool enabled) {
  options_->spare_generation = enabled;
  return *this;
}
XdsServerBuilder& XdsServerBuilder::set_allow_reuse_port(bool enabled) {
  options_->allow_reuse_port = enabled;
  return *this;
}

namespace {

absl::StatusOr<int> OpenListeningSocket(const routing::SocketAddress& address,
                                        bool reuse_port) {
  int fd = socket(address.ipv6 ? AF_INET6 : AF_INET,
                  SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("socket: errno ", errno));
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  sockaddr_storage storage;
  socklen_t len = address.ToSockaddr(&storage);
  if (bind(fd, reinterpret_cast<sockaddr*>(&storage), len) != 0 ||
      listen(fd, SOMAXCONN) != 0) {
    int err = errno;
    close(fd);
    return transport::ListenError(address.ToString(), err);
  }
  return fd;
}

}  // namespace

absl::StatusOr<std::unique_ptr<XdsServer>> XdsServerBuilder::BuildAndStart() {
  if (options_ == nullptr) {
    return absl::FailedPreconditionError("BuildAndStart was already called");
  }
  if (options_->address.empty()) {
    return absl::InvalidArgumentError("no listening port (AddListeningPort)");
  }
  if (options_->credentials == nullptr) {
    return absl::InvalidArgumentError("AddListeningPort: null credentials");
  }
  absl::StatusOr<routing::SocketAddress> address =
      routing::ParseListeningAddress(options_->address);
  if (!address.ok()) return address.status();
  std::shared_ptr<const Bootstrap> bootstrap = options_->bootstrap;
  if (bootstrap == nullptr) {
    auto loaded = Bootstrap::FromEnv(
        options_->federation.value_or(FederationEnabledFromEnv()));
    if (!loaded.ok()) return loaded.status();
    bootstrap = *std::move(loaded);
    options_->bootstrap = bootstrap;
  }
  absl::StatusOr<ResolvedListener> resolved =
      ResolveServerListener(*bootstrap, address->ToString());
  if (!resolved.ok()) return resolved.status();
  std::shared_ptr<client::XdsTransportFactory> transport =
      options_->transport_factory;
  if (transport == nullptr) {
    // A server's Listener is one large response that gates SERVING: offered
    // a big window, it arrives without WINDOW_UPDATE round trips (under
    // load, each waits for both processes to be scheduled).
    transport::GrpcTransportOptions transport_options;
    transport_options.http2_stream_lookahead_bytes = 8 << 20;
    transport =
        std::make_shared<transport::GrpcXdsTransportFactory>(transport_options);
  }
  absl::StatusOr<std::shared_ptr<client::XdsClient>> client =
      client::XdsClient::Create(bootstrap, std::move(transport),
                                options_->client_options);
  if (!client.ok()) return client.status();
  std::unique_ptr<grpc::Service> csds;
  if (options_->csds_service) {
    csds = admin::NewCsdsService(admin::XdsClientSource(
        *client, std::string(admin::kServerClientScope)));
    options_->services.push_back(csds.get());
  }
  absl::StatusOr<int> listen_fd =
      OpenListeningSocket(*address, options_->allow_reuse_port);
  if (!listen_fd.ok()) return listen_fd.status();
  int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    close(*listen_fd);
    return absl::InternalError(absl::StrCat("eventfd: errno ", errno));
  }
  auto impl = std::make_shared<XdsServer::Impl>(
      std::move(*options_), *address, *listen_fd, wake_fd,
      resolved->listener_resource_name, std::move(csds));
  options_.reset();
  std::unique_ptr<XdsServer> server(new XdsServer(impl));
  absl::Status started = impl->Start(*std::move(client));
  if (!started.ok()) return started;
  return server;
}

// ---------------------------------------------------------------- server

XdsServer::XdsServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
XdsServer::~XdsServer() { Shutdown(); }
void XdsServer::Shutdown(absl::Duration grace) { impl_->Shutdown(grace); }
const std::string& XdsServer::listening_address() const {
  return impl_->address_text();
}
const std::string& XdsServer::listener_resource_name() const {
  return impl_->listener_name();
}
bool XdsServer::serving() const { return impl_->serving(); }
uint64_t XdsServer::generations_started() const {
  return impl_->generations_started();
}
uint64_t XdsServer::connections_accepted() const { return impl_->accepted(); }
uint64_t XdsServer::connections_closed_unserved() const {
  return impl_->closed_unserved();
}

}  // namespace xdsfed::server
