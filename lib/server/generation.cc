#include "lib/server/generation.h"

#include <unistd.h>

#include <algorithm>
#include <variant>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/security/auth_context.h"
#include "grpcpp/support/server_interceptor.h"

namespace xdsfed::server {
namespace {

constexpr size_t kMaxRememberedPeers = 65536;

// A36 §Connection and Request Handling and A41 RBAC, per RPC. grpc++'s
// public API runs the method handler anyway (a server interceptor cannot
// end a call before it), so a rejected RPC gets its status replaced by
// UNAVAILABLE (routing) or PERMISSION_DENIED (RBAC).
// The TLS peer comes from the call's auth context
// (transport_security_type, peer_uri, peer_dns, x509_subject).
class RouteCheckInterceptor : public grpc::experimental::Interceptor {
 public:
  RouteCheckInterceptor(Generation* generation,
                        grpc::experimental::ServerRpcInfo* info)
      : generation_(generation), info_(info) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* m) override {
    using grpc::experimental::InterceptionHookPoints;
    if (m->QueryInterceptionHookPoint(
            InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      grpc::ServerContextBase* context = info_->server_context();
      const std::string peer = context->peer();
      grpc::string_ref authority = context->ExperimentalGetAuthority();
      const char* method = info_->method();
      const auto* metadata = m->GetRecvInitialMetadata();
      std::string scratch;
      auto lookup = [&](absl::string_view name,
                        std::string* s) -> std::optional<absl::string_view> {
        if (metadata == nullptr) return std::nullopt;
        return routing::JoinedHeaderValue(*metadata, name, s);
      };
      // A41: RBAC sees a "-bin" header in its base64 form (grpc++ gives the
      // decoded bytes); several values are each encoded, then joined.
      std::string bin;
      auto rbac_lookup =
          [&](absl::string_view name,
              std::string* s) -> std::optional<absl::string_view> {
        if (!absl::EndsWith(name, "-bin")) return lookup(name, s);
        if (metadata == nullptr) return std::nullopt;
        auto range =
            metadata->equal_range(grpc::string_ref(name.data(), name.size()));
        if (range.first == range.second) return std::nullopt;
        bin.clear();
        for (auto it = range.first; it != range.second; ++it) {
          if (it != range.first) bin.push_back(',');
          bin += absl::Base64Escape(
              absl::string_view(it->second.data(), it->second.size()));
        }
        return absl::string_view(bin);
      };
      authz::RequestView rbac;
      rbac.headers.emplace(rbac_lookup);
      // The connection's TLS peer, as gRPC's auth context names it.
      std::vector<absl::string_view> uri_sans, dns_sans;
      std::shared_ptr<const grpc::AuthContext> auth = context->auth_context();
      if (auth != nullptr) {
        auto view = [](const grpc::string_ref& r) {
          return absl::string_view(r.data(), r.size());
        };
        for (const auto& v :
             auth->FindPropertyValues("transport_security_type")) {
          // "ssl" (SslServerCredentials) or "tls" (the TLS credentials our
          // chains use, as gRPC's xDS credentials do).
          if (view(v) == "ssl" || view(v) == "tls") rbac.tls = true;
        }
        for (const auto& v : auth->FindPropertyValues("peer_uri")) {
          uri_sans.push_back(view(v));
        }
        for (const auto& v : auth->FindPropertyValues("peer_dns")) {
          dns_sans.push_back(view(v));
        }
        for (const auto& v : auth->FindPropertyValues("x509_subject")) {
          rbac.subject = view(v);
        }
      }
      rbac.uri_sans = uri_sans;
      rbac.dns_sans = dns_sans;
      verdict_ = generation_->CheckRpc(
          peer, absl::string_view(authority.data(), authority.size()),
          method == nullptr ? "" : method, lookup, &scratch, &rbac);
    }
    if (!verdict_.ok() && m->QueryInterceptionHookPoint(
                              InterceptionHookPoints::PRE_SEND_STATUS)) {
      // The handler ran (see above); its status is replaced.
      m->ModifySendStatus(
          grpc::Status(verdict_.code() == absl::StatusCode::kPermissionDenied
                           ? grpc::StatusCode::PERMISSION_DENIED
                           : grpc::StatusCode::UNAVAILABLE,
                       std::string(verdict_.message())));
    }
    m->Proceed();
  }

 private:
  Generation* const generation_;
  grpc::experimental::ServerRpcInfo* const info_;
  absl::Status verdict_;
};

class RouteCheckFactory
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RouteCheckFactory(Generation* generation)
      : generation_(generation) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    // No interceptor at all when the routes pass every RPC: grpc++ then
    // skips its interception machinery for the call (~5 us of CPU per
    // call, bench/RESULTS.md session 10).
    if (generation_->AllowsEveryRpc()) return nullptr;
    return new RouteCheckInterceptor(generation_, info);
  }

 private:
  Generation* const generation_;
};

// For queues no poller ever ran on (the server failed to start).
void DrainQueue(grpc::ServerCompletionQueue* cq) {
  void* tag;
  bool ok;
  while (cq->Next(&tag, &ok)) {
  }
}

// Spelled as grpc::ServerContext::peer() spells it, so that an RPC's chain
// is found in one probe (an IPv6 peer is "ipv6:%5B::1%5D:5": keyed
// "ipv6:[::1]:5", every RPC of an IPv6 client missed and got the default
// chain's routes).
std::string PeerKey(const routing::SocketAddress& peer) {
  return peer.ToGrpcPeer();
}

// Per chain (the default chain last) the credentials to serve it with; null
// for no chain, or a chain whose TLS credentials failed (a configuration
// error: its connections are closed, never served in plaintext).
std::vector<std::shared_ptr<grpc::ServerCredentials>> ChainCredentials(
    const resources::ServerListener& listener, const GenerationOptions& options,
    std::vector<std::string>* config_errors) {
  // A36 / A29: the TLS cache returns one object per distinct setting.
  auto credentials_of = [&](const resources::FilterChainData* chain)
      -> std::shared_ptr<grpc::ServerCredentials> {
    if (chain == nullptr) return nullptr;
    if (!chain->tls.has_value()) return options.credentials;
    if (!options.tls_credentials) return nullptr;
    auto creds = options.tls_credentials(*chain->tls);
    if (!creds.ok()) {
      config_errors->push_back(absl::StrCat(
          "TLS credentials unavailable (connections on its filter chain are "
          "closed): ",
          creds.status().message()));
      return nullptr;
    }
    return *std::move(creds);
  };
  std::vector<std::shared_ptr<grpc::ServerCredentials>> out;
  out.reserve(listener.filter_chains.size() + 1);
  for (const auto& chain : listener.filter_chains) {
    out.push_back(credentials_of(chain.get()));
  }
  out.push_back(credentials_of(listener.default_filter_chain.has_value()
                                   ? &*listener.default_filter_chain
                                   : nullptr));
  return out;
}

}  // namespace

Generation::Generation(routing::SocketAddress listening_address)
    : listening_address_(listening_address) {}

absl::StatusOr<std::unique_ptr<Generation>> Generation::Start(
    uint64_t id, std::shared_ptr<const xds_config::ServerConfig> config,
    const GenerationOptions& options, std::vector<std::string>* config_errors,
    std::unique_ptr<Generation>* spare) {
  if (config == nullptr || config->listener == nullptr ||
      !std::holds_alternative<resources::ServerListener>(
          config->listener->listener)) {
    return absl::InvalidArgumentError("not a server Listener");
  }
  const auto& listener =
      std::get<resources::ServerListener>(config->listener->listener);
  std::shared_ptr<const ChainRoutes> routes =
      ChainRoutes::Build(listener, *config, config_errors);
  std::vector<std::shared_ptr<grpc::ServerCredentials>> chain_credentials =
      ChainCredentials(listener, options, config_errors);
  std::unique_ptr<Generation> g;
  if (spare != nullptr && *spare != nullptr &&
      (*spare)->Serves(chain_credentials)) {
    g = std::move(*spare);
  } else {
    absl::StatusOr<std::unique_ptr<Generation>> built =
        Build(id, options, chain_credentials);
    if (!built.ok()) return built.status();
    g = *std::move(built);
  }
  g->Bind(id, std::move(config), std::move(routes), chain_credentials);
  return g;
}

absl::StatusOr<std::unique_ptr<Generation>> Generation::Prepare(
    const GenerationOptions& options,
    std::vector<std::shared_ptr<grpc::ServerCredentials>> credentials) {
  if (!options.async_factories.empty()) {
    return absl::FailedPreconditionError(
        "no generation is prepared ahead with async service factories");
  }
  return Build(0, options, std::move(credentials));
}

absl::StatusOr<std::unique_ptr<Generation>> Generation::Build(
    uint64_t id, const GenerationOptions& options,
    std::vector<std::shared_ptr<grpc::ServerCredentials>> credentials) {
  std::unique_ptr<Generation> g(new Generation(options.listening_address));
  grpc::ServerBuilder builder;
  for (grpc::Service* s : options.services) builder.RegisterService(s);
  // grpc++ binds an async service to one grpc::Server: each generation has
  // its own instances, each with its own completion queue.
  for (const AsyncServiceFactory& factory : options.async_factories) {
    Async a;
    a.instance = factory(id);
    if (a.instance == nullptr || a.instance->service() == nullptr) {
      return absl::InternalError(absl::StrCat(
          "generation ", id, ": an async service factory returned null"));
    }
    builder.RegisterService(a.instance->service());
    a.cq = builder.AddCompletionQueue();
    g->async_.push_back(std::move(a));
  }
  for (const auto& [name, value] : options.int_args) {
    builder.AddChannelArgument(name, value);
  }
  // The drain (xds_server.h): every connection gets a graceful GOAWAY at
  // its maximum age, then RPCs still running get the drain grace time.
  auto ms = [](absl::Duration d) {
    int64_t v = absl::ToInt64Milliseconds(d);
    return static_cast<int>(v > INT32_MAX ? INT32_MAX : (v < 1 ? 1 : v));
  };
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                             ms(options.max_connection_age));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                             ms(options.drain_grace));
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(std::make_unique<RouteCheckFactory>(g.get()));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  for (std::shared_ptr<grpc::ServerCredentials>& c : credentials) {
    // One acceptor per distinct credentials object (the TLS cache returns
    // one per distinct setting).
    if (c == nullptr || g->AcceptorFor(c) != nullptr) continue;
    Acceptor a;
    a.acceptor = builder.experimental().AddExternalConnectionAcceptor(
        grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD,
        c);
    a.credentials = std::move(c);
    g->acceptors_.push_back(std::move(a));
  }
  g->server_ = builder.BuildAndStart();
  if (g->server_ == nullptr) {
    for (Async& a : g->async_) a.cq->Shutdown();
    for (Async& a : g->async_) DrainQueue(a.cq.get());
    return absl::InternalError(
        absl::StrCat("generation ", id, ": grpc::ServerBuilder failed"));
  }
  for (Async& a : g->async_) a.instance->Start(a.cq.get());
  return g;
}

std::vector<std::shared_ptr<grpc::ServerCredentials>> Generation::credentials()
    const {
  std::vector<std::shared_ptr<grpc::ServerCredentials>> out;
  out.reserve(acceptors_.size());
  for (const Acceptor& a : acceptors_) out.push_back(a.credentials);
  return out;
}

grpc::experimental::ExternalConnectionAcceptor* Generation::AcceptorFor(
    const std::shared_ptr<grpc::ServerCredentials>& credentials) const {
  if (credentials == nullptr) return nullptr;
  for (const Acceptor& a : acceptors_) {
    if (a.credentials == credentials) return a.acceptor.get();
  }
  return nullptr;
}

bool Generation::Serves(
    const std::vector<std::shared_ptr<grpc::ServerCredentials>>&
        chain_credentials) const {
  return std::all_of(chain_credentials.begin(), chain_credentials.end(),
                     [this](const auto& c) {
                       return c == nullptr || AcceptorFor(c) != nullptr;
                     });
}

void Generation::Bind(
    uint64_t id, std::shared_ptr<const xds_config::ServerConfig> c,
    std::shared_ptr<const ChainRoutes> routes,
    const std::vector<std::shared_ptr<grpc::ServerCredentials>>&
        chain_credentials) {
  id_ = id;
  config_ = std::move(c);
  listener_ = &std::get<resources::ServerListener>(config_->listener->listener);
  chain_selector_ = std::make_unique<routing::FilterChainSelector>(*listener_);
  chain_acceptor_.clear();
  chain_acceptor_.reserve(chain_credentials.size());
  for (const auto& creds : chain_credentials) {
    chain_acceptor_.push_back(AcceptorFor(creds));
  }
  MutexLock lock(&mu_);
  route_source_ = *config_;
  routes_ = std::move(routes);
  allows_every_rpc_.store(routes_->allows_every_rpc(),
                          std::memory_order_release);
}

Generation::~Generation() {
  Shutdown(absl::Now());
  // The server's interceptors point at this object; async services and
  // their queues outlive the server.
  server_.reset();
  async_.clear();
}

bool Generation::HandOff(int listener_fd, int fd,
                         const routing::SocketAddress& peer,
                         const routing::SocketAddress& local, size_t chain) {
  grpc::experimental::ExternalConnectionAcceptor* acceptor =
      chain < chain_acceptor_.size() ? chain_acceptor_[chain] : nullptr;
  if (acceptor == nullptr) return false;
  {
    MutexLock lock(&mu_);
    if (!routes_->uniform()) {
      if (chain_by_peer_.size() >= kMaxRememberedPeers) chain_by_peer_.clear();
      chain_by_peer_[PeerKey(peer)] = PeerConnection{chain, local};
    }
  }
  grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters p;
  p.listener_fd = listener_fd;
  p.fd = fd;
  acceptor->HandleNewConnection(&p);
  return true;
}

void Generation::UpdateRoutes(const xds_config::ServerConfig& config,
                              std::vector<std::string>* config_errors) {
  // Called only from the config manager's serialized callbacks: no other
  // writer of route_source_ runs meanwhile.
  xds_config::ServerConfig merged;
  {
    MutexLock lock(&mu_);
    merged = route_source_;
  }
  bool changed = false;
  for (auto& [name, rds] : merged.route_configs) {
    auto it = config.route_configs.find(name);
    if (it != config.route_configs.end() && !(it->second == rds)) {
      rds = it->second;
      changed = true;
    }
  }
  if (!changed) return;
  std::shared_ptr<const ChainRoutes> routes =
      ChainRoutes::Build(*listener_, merged, config_errors);
  MutexLock lock(&mu_);
  route_source_ = std::move(merged);
  routes_ = std::move(routes);
  allows_every_rpc_.store(routes_->allows_every_rpc(),
                          std::memory_order_release);
}

Generation::PeerConnection Generation::ChainForPeer(absl::string_view peer) {
  auto it = chain_by_peer_.find(peer);
  if (it != chain_by_peer_.end()) return it->second;
  std::optional<routing::SocketAddress> source =
      routing::SocketAddress::FromGrpcPeer(peer);
  if (source.has_value()) {
    // Another spelling of a peer we handed off (a gRPC other than 1.51's).
    it = chain_by_peer_.find(PeerKey(*source));
    if (it != chain_by_peer_.end()) return it->second;
    std::optional<size_t> i =
        chain_selector_->Select(listening_address_, &*source);
    if (i.has_value()) return {*i, listening_address_};
  }
  // The default chain.
  return {listener_->filter_chains.size(), listening_address_};
}

absl::Status Generation::CheckRpc(absl::string_view peer,
                                  absl::string_view authority,
                                  absl::string_view path,
                                  routing::HeaderLookup headers,
                                  std::string* scratch,
                                  authz::RequestView* rbac) {
  std::shared_ptr<const ChainRoutes> routes;
  PeerConnection connection{0, listening_address_};
  {
    MutexLock lock(&mu_);
    routes = routes_;
    if (!routes->uniform()) connection = ChainForPeer(peer);
  }
  if (rbac != nullptr && routes->has_rbac()) {
    rbac->local = connection.local;
    std::optional<routing::SocketAddress> source =
        routing::SocketAddress::FromGrpcPeer(peer);
    // An unparsable peer is seen as 0.0.0.0:0 (matches no source_ip but
    // 0.0.0.0/0).
    rbac->peer = source.value_or(routing::SocketAddress{});
  }
  return routes->Check(connection.chain, authority, path, headers, scratch,
                       rbac);
}

void Generation::Shutdown(absl::Time deadline) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  server_->Shutdown(absl::ToChronoTime(deadline));
  server_->Wait();
  // grpc++'s order: the server, then its completion queues, drained (by
  // the instances' pollers) before the server is destroyed.
  for (Async& a : async_) {
    a.instance->Stop();
    a.cq->Shutdown();
  }
  for (Async& a : async_) a.instance->Join();
}

}  // namespace xdsfed::server
