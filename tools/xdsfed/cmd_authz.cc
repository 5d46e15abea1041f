// `xdsfed authz --listener FILE --path P [--header NAME:VALUE]...
// [--source IP:PORT] [--destination IP:PORT] [--principal SAN]
// [--route-config FILE]`: would this RPC be allowed (A36 routing, then the
// RBAC filters of A41)? The same code an xDS-enabled server runs per RPC:
// the Listener validated as `validate` does, the connection's chain picked
// by FilterChainSelector, then server::ChainRoutes::Check with a trace of
// each RBAC filter's decision. One JSON line (docs/cli.md).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/authz/rbac_engine.h"
#include "lib/resources/listener.h"
#include "lib/resources/route_config.h"
#include "lib/routing/filter_chain_select.h"
#include "lib/server/chain_routes.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/resource_input.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed authz --listener FILE --path PATH [--header NAME:VALUE]... "
    "[--source IP:PORT] [--destination IP:PORT] [--principal SAN] "
    "[--route-config FILE]";

// Decodes FILE as resource type T; *error set on failure (invalid: exit 1),
// *io_error on an unreadable file (exit 2).
template <typename T>
std::shared_ptr<const T> DecodeFile(const resources::ResourceType& type,
                                    const std::string& file, bool federation,
                                    std::string* error, std::string* io_error) {
  absl::StatusOr<std::string> contents = ReadFile(file);
  if (!contents.ok()) {
    *io_error = std::string(contents.status().message());
    return nullptr;
  }
  absl::StatusOr<std::string> serialized =
      ResourceFileToSerialized(file, *std::move(contents), type);
  if (!serialized.ok()) {
    *error = std::string(serialized.status().message());
    return nullptr;
  }
  resources::DecodeContext decode_context;
  decode_context.federation = federation;
  resources::DecodeResult result = type.Decode(decode_context, *serialized);
  if (!result.value.ok()) {
    *error = std::string(result.value.status().message());
    return nullptr;
  }
  return resources::XdsResourceType<T>::Cast(*result.value);
}

int RunAuthz(Context& context) {
  if (!AnyPayloadTypesLinked()) {
    return UsageError("internal error: Any payload types are not linked");
  }
  bool missing = false;
  std::optional<std::string> listener_file =
      TakeFlag(&context.args, "--listener", &missing);
  std::optional<std::string> path = TakeFlag(&context.args, "--path", &missing);
  std::optional<std::string> source_text =
      TakeFlag(&context.args, "--source", &missing);
  std::optional<std::string> destination_text =
      TakeFlag(&context.args, "--destination", &missing);
  std::optional<std::string> principal =
      TakeFlag(&context.args, "--principal", &missing);
  std::optional<std::string> route_file =
      TakeFlag(&context.args, "--route-config", &missing);
  std::vector<std::pair<std::string, std::string>> headers;
  for (const std::string& flag :
       TakeFlagValues(&context.args, "--header", &missing)) {
    const std::string* h = &flag;  // the flag's text, NAME:VALUE
    // NAME:VALUE; a pseudo-header's name keeps its leading ':'.
    const size_t colon = h->find(':', h->empty() || (*h)[0] != ':' ? 0 : 1);
    if (colon == std::string::npos || colon == 0) {
      return UsageError(
          absl::StrCat("--header \"", *h, "\": expected NAME:VALUE; ", kUsage));
    }
    headers.emplace_back(absl::AsciiStrToLower(h->substr(0, colon)),
                         h->substr(colon + 1));
  }
  if (missing || !listener_file.has_value() || !path.has_value()) {
    return UsageError(kUsage);
  }
  if (!context.args.empty()) {
    return UsageError(
        absl::StrCat("unexpected argument ", context.args[0], "; ", kUsage));
  }
  auto parse_address = [](const std::optional<std::string>& text,
                          absl::string_view flag,
                          std::optional<routing::SocketAddress>* out) {
    if (!text.has_value()) return std::string();
    *out = routing::SocketAddress::Parse(*text);
    if (out->has_value()) return std::string();
    return absl::StrCat(flag, " \"", *text,
                        "\": expected IP:PORT (an IPv6 address bracketed, "
                        "e.g. [::1]:50051)");
  };
  std::optional<routing::SocketAddress> source, destination;
  std::string error = parse_address(source_text, "--source", &source);
  if (error.empty()) {
    error = parse_address(destination_text, "--destination", &destination);
  }
  if (!error.empty()) return UsageError(error);

  Json::Value out(Json::objectValue);
  out["path"] = *path;
  std::string io_error;
  auto listener = DecodeFile<resources::Listener>(
      resources::ListenerResourceType(), *listener_file,
      context.FederationEnabled(), &error, &io_error);
  if (!io_error.empty()) return ReportIoError(io_error, std::move(out));
  auto invalid = [&out](absl::string_view message) {
    out["valid"] = false;
    out["error"] = std::string(message);
    PrintJson(out);
    return kExitInvalid;
  };
  if (listener == nullptr) return invalid(error);
  const auto* server =
      std::get_if<resources::ServerListener>(&listener->listener);
  if (server == nullptr) {
    return invalid(
        "not a server Listener: it has api_listener (a client Listener)");
  }
  xds_config::ServerConfig config;
  config.listener = listener;
  if (route_file.has_value()) {
    auto routes = DecodeFile<resources::RouteConfig>(
        resources::RouteConfigResourceType(), *route_file,
        context.FederationEnabled(), &error, &io_error);
    if (!io_error.empty()) return ReportIoError(io_error, std::move(out));
    if (routes == nullptr) return invalid(error);
    config.route_configs[routes->name].route_config = routes;
  }
  // The connection: from --source (default 127.0.0.1:0) to --destination
  // (default: the Listener's own address).
  if (!source.has_value())
    source = routing::SocketAddress::Parse("127.0.0.1:0");
  if (!destination.has_value()) {
    destination = routing::SocketAddress::Parse(server->address);
  }
  if (!destination.has_value()) {
    return UsageError(absl::StrCat("the Listener's address \"", server->address,
                                   "\" is not IP:PORT; give --destination"));
  }
  out["source"] = source->ToString();
  out["destination"] = destination->ToString();
  const routing::FilterChainSelector selector(*server);
  routing::SocketAddress peer = *source;
  std::optional<size_t> chain = selector.Select(*destination, &peer);
  size_t chain_index = server->filter_chains.size();
  if (chain.has_value()) {
    out["filter_chain"] = Json::UInt64{server->input_index.at(*chain)};
    chain_index = *chain;
  } else if (server->default_filter_chain.has_value()) {
    out["filter_chain"] = "default";
  } else {
    out["valid"] = true;
    out["filter_chain"] = "none";
    out["decision"] = "closed";  // A36: no chain, the connection is closed
    out["allowed"] = false;
    PrintJson(out);
    return kExitValid;
  }
  std::vector<std::string> config_errors;
  auto routes = server::ChainRoutes::Build(*server, config, &config_errors);
  std::string authority;
  for (const auto& [name, value] : headers) {
    if (name == ":authority" || name == "host") authority = value;
  }
  std::vector<absl::string_view> uri_sans, dns_sans;
  authz::RequestView view;
  if (principal.has_value()) {
    // A certificate SAN: URI if it has a scheme, else DNS; implies TLS.
    view.tls = true;
    (absl::StrContains(*principal, "://") ? uri_sans : dns_sans)
        .push_back(*principal);
    out["principal"] = *principal;
  }
  view.uri_sans = uri_sans;
  view.dns_sans = dns_sans;
  view.peer = *source;
  view.local = *destination;
  std::multimap<std::string, std::string> metadata;
  for (const auto& [name, value] : headers) {
    if (name[0] != ':' && name != "host") metadata.emplace(name, value);
  }
  auto lookup = [&metadata](absl::string_view name, std::string* s) {
    return routing::JoinedHeaderValue(metadata, name, s);
  };
  std::string scratch;
  std::vector<server::ChainRoutes::RbacVerdict> trace;
  absl::Status status = routes->Check(chain_index, authority, *path, lookup,
                                      &scratch, &view, &trace);
  out["valid"] = true;
  out["allowed"] = status.ok();
  out["decision"] = status.ok() ? "allow"
                    : status.code() == absl::StatusCode::kPermissionDenied
                        ? "permission_denied"
                        : "unavailable";
  if (!status.ok()) out["reason"] = std::string(status.message());
  Json::Value filters(Json::arrayValue);
  Json::Value policy;  // the deciding filter's matched policy, or null
  for (const auto& v : trace) {
    Json::Value f(Json::objectValue);
    f["filter"] = v.filter;
    f["config"] = v.config;
    f["enforcing"] = v.enforcing;
    f["allowed"] = v.allowed;
    f["policy"] = v.policy.empty() ? Json::Value() : Json::Value(v.policy);
    filters.append(f);
    if (!v.policy.empty()) policy = v.policy;
  }
  out["rbac_filters"] = filters;
  out["policy"] = policy;
  PrintJson(out);
  return kExitValid;
}

XDSFED_REGISTER_COMMAND(
    "authz", RunAuthz,
    "authz --listener FILE --path PATH [--header NAME:VALUE]... "
    "[--source IP:PORT] [--destination IP:PORT] [--principal SAN] "
    "[--route-config FILE]  would this RPC pass the routes and RBAC filters "
    "(A36, A41) of its connection's chain");

}  // namespace
}  // namespace xdsfed::cli
