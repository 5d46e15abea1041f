#include "lib/admin/csds_service.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "envoy/service/status/v3/csds.grpc.pb.h"
#include "grpcpp/security/server_credentials.h"
#include "lib/client/node.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace admin {
namespace {

using envoy::admin::v3::ClientResourceStatus;
using envoy::service::status::v3::ClientConfig;
using envoy::service::status::v3::ClientStatusDiscoveryService;
using envoy::service::status::v3::ClientStatusRequest;
using envoy::service::status::v3::ClientStatusResponse;
using envoy::type::matcher::v3::StringMatcher;

ClientResourceStatus ToProto(cache::State state) {
  switch (state) {
    case cache::State::kRequested:
      return envoy::admin::v3::REQUESTED;
    case cache::State::kAcked:
      return envoy::admin::v3::ACKED;
    case cache::State::kNacked:
      return envoy::admin::v3::NACKED;
    case cache::State::kDoesNotExist:
      return envoy::admin::v3::DOES_NOT_EXIST;
  }
  return envoy::admin::v3::UNKNOWN;
}

void SetTime(absl::Time time, google::protobuf::Timestamp* out) {
  const int64_t nanos = absl::ToUnixNanos(time);
  out->set_seconds(nanos / 1000000000);
  out->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

// StringMatcher semantics of the xDS API (ignore_case for all but regex).
absl::StatusOr<bool> Matches(const StringMatcher& matcher,
                             absl::string_view value) {
  const bool icase = matcher.ignore_case();
  switch (matcher.match_pattern_case()) {
    case StringMatcher::kExact:
      return icase ? absl::EqualsIgnoreCase(value, matcher.exact())
                   : value == matcher.exact();
    case StringMatcher::kPrefix:
      return icase ? absl::StartsWithIgnoreCase(value, matcher.prefix())
                   : absl::StartsWith(value, matcher.prefix());
    case StringMatcher::kSuffix:
      return icase ? absl::EndsWithIgnoreCase(value, matcher.suffix())
                   : absl::EndsWith(value, matcher.suffix());
    case StringMatcher::kContains:
      return icase
                 ? absl::StrContains(absl::AsciiStrToLower(value),
                                     absl::AsciiStrToLower(matcher.contains()))
                 : absl::StrContains(value, matcher.contains());
    case StringMatcher::kSafeRegex:
      return absl::InvalidArgumentError(
          "safe_regex is not supported (RE2 is not a dependency)");
    case StringMatcher::MATCH_PATTERN_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("no match pattern set");
}

// Unary and streaming CSDS on the callback API, so that the service fits a
// server of either kind.
class CsdsService final : public ClientStatusDiscoveryService::CallbackService {
 public:
  explicit CsdsService(ClientConfigSource source)
      : source_(std::move(source)) {}

  grpc::ServerUnaryReactor* FetchClientStatus(
      grpc::CallbackServerContext* context, const ClientStatusRequest* request,
      ClientStatusResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    absl::StatusOr<ClientStatusResponse> answer =
        AnswerClientStatus(*request, source_);
    if (!answer.ok()) {
      reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                   std::string(answer.status().message())));
      return reactor;
    }
    *response = *std::move(answer);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerBidiReactor<ClientStatusRequest, ClientStatusResponse>*
  StreamClientStatus(grpc::CallbackServerContext* /*context*/) override {
    return new StreamReactor(this);
  }

 private:
  // One response per request, in order: read, answer, write, read again.
  // Reactor callbacks of one RPC never run concurrently with each other.
  class StreamReactor final
      : public grpc::ServerBidiReactor<ClientStatusRequest,
                                       ClientStatusResponse> {
   public:
    explicit StreamReactor(CsdsService* service) : service_(service) {
      StartRead(&request_);
    }

    void OnReadDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status::OK);
        return;
      }
      absl::StatusOr<ClientStatusResponse> answer =
          AnswerClientStatus(request_, service_->source_);
      if (!answer.ok()) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            std::string(answer.status().message())));
        return;
      }
      response_ = *std::move(answer);
      StartWrite(&response_);
    }

    void OnWriteDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status::CANCELLED);
        return;
      }
      StartRead(&request_);
    }

    void OnDone() override { delete this; }

   private:
    CsdsService* const service_;
    ClientStatusRequest request_;
    ClientStatusResponse response_;
  };

  const ClientConfigSource source_;
};

}  // namespace

std::optional<std::string> CsdsAuthority(absl::string_view name,
                                         bool federation) {
  absl::StatusOr<ResourceName> parsed = ResourceName::Parse(name, federation);
  if (!parsed.ok() || parsed->old_style) return std::nullopt;
  return parsed->authority;
}

ClientConfig ClientConfigOf(const client::XdsClient& client,
                            absl::string_view client_scope) {
  ClientConfig config;
  *config.mutable_node() =
      client::BuildNode(*client.bootstrap(), client.options().user_agent_name,
                        client.options().user_agent_version);
  config.set_client_scope(std::string(client_scope));
  for (const client::ResourceStatus& r : client.ResourceStatuses()) {
    ClientConfig::GenericXdsConfig* out = config.add_generic_xds_configs();
    out->set_type_url(r.type_url);
    out->set_name(r.name);
    out->set_version_info(r.version);
    if (r.update_time != absl::InfinitePast()) {
      SetTime(r.update_time, out->mutable_last_updated());
    }
    out->set_client_status(ToProto(r.state));
    if (r.state == cache::State::kNacked) {
      envoy::admin::v3::UpdateFailureState* error = out->mutable_error_state();
      error->set_details(r.error);
      error->set_version_info(r.error_version);
      if (r.error_time != absl::InfinitePast()) {
        SetTime(r.error_time, error->mutable_last_update_attempt());
      }
    }
  }
  return config;
}

ClientConfigSource XdsClientSource(
    std::weak_ptr<const client::XdsClient> client, std::string client_scope) {
  return [client = std::move(client), client_scope = std::move(client_scope)] {
    std::vector<ClientConfig> out;
    if (std::shared_ptr<const client::XdsClient> c = client.lock()) {
      out.push_back(ClientConfigOf(*c, client_scope));
    }
    return out;
  };
}

absl::StatusOr<ClientStatusResponse> AnswerClientStatus(
    const ClientStatusRequest& request, const ClientConfigSource& source) {
  ClientStatusResponse response;
  for (ClientConfig& config : source()) {
    bool selected = request.node_matchers().empty();
    for (int i = 0; i < request.node_matchers_size() && !selected; ++i) {
      const auto& matcher = request.node_matchers(i);
      if (!matcher.has_node_id()) {
        selected = true;  // node_metadatas are not evaluated (see node.proto)
        continue;
      }
      absl::StatusOr<bool> match =
          Matches(matcher.node_id(), config.node().id());
      if (!match.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node_matchers[", i, "].node_id: ", match.status().message()));
      }
      selected = *match;
    }
    if (!selected) continue;
    if (request.exclude_resource_contents()) {
      for (auto& generic : *config.mutable_generic_xds_configs()) {
        generic.clear_xds_config();
      }
    }
    *response.add_config() = std::move(config);
  }
  return response;
}

std::unique_ptr<grpc::Service> NewCsdsService(ClientConfigSource source) {
  return std::make_unique<CsdsService>(std::move(source));
}

std::unique_ptr<grpc::Service> AddCsdsService(grpc::ServerBuilder& builder,
                                              ClientConfigSource source) {
  std::unique_ptr<grpc::Service> service = NewCsdsService(std::move(source));
  builder.RegisterService(service.get());
  return service;
}

absl::StatusOr<std::unique_ptr<CsdsServer>> CsdsServer::Start(
    const std::string& listen, ClientConfigSource source,
    const transport::ListenOptions& options) {
  std::unique_ptr<CsdsServer> server(new CsdsServer());
  grpc::ServerBuilder builder;
  server->service_ = AddCsdsService(builder, std::move(source));
  absl::StatusOr<std::unique_ptr<grpc::Server>> started =
      transport::BuildAndStartListening(builder, listen,
                                        grpc::InsecureServerCredentials(),
                                        options, &server->port_);
  if (!started.ok()) {
    return absl::Status(
        started.status().code(),
        absl::StrCat("cannot serve CSDS: ", started.status().message()));
  }
  server->server_ = *std::move(started);
  return server;
}

CsdsServer::~CsdsServer() {
  if (server_ != nullptr) server_->Shutdown();
}

}  // namespace admin
}  // namespace xdsfed
