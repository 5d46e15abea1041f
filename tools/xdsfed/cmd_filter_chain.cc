// `xdsfed filter-chain --destination IP:PORT [--source IP:PORT] FILE`: which
// filter chain of a server Listener a connection selects (A36; contract in
// ../shared/CLI.md). FILE is validated as `validate --type Listener` does,
// then the connection is matched with the library's FilterChainSelector,
// the code an xDS-enabled server runs per connection.
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/resources/listener.h"
#include "lib/routing/filter_chain_select.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/resource_input.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed filter-chain --destination IP:PORT [--source IP:PORT] FILE";

// The address flag `flag` ("--destination"), parsed; *error set (exit 2)
// if it is missing, has no value or is not an IP literal and port.
std::optional<routing::SocketAddress> TakeAddress(
    std::vector<std::string>* args, absl::string_view flag, bool required,
    std::string* error) {
  bool missing = false;
  std::optional<std::string> text = TakeFlag(args, flag, &missing);
  if (missing || (required && !text.has_value())) {
    *error = absl::StrCat(flag, " IP:PORT is required; ", kUsage);
    return std::nullopt;
  }
  if (!text.has_value()) return std::nullopt;
  std::optional<routing::SocketAddress> a =
      routing::SocketAddress::Parse(*text);
  if (!a.has_value()) {
    *error = absl::StrCat(flag, " \"", *text,
                          "\": expected IP:PORT (an IPv6 address bracketed, "
                          "e.g. [::1]:50051)");
  }
  return a;
}

int RunFilterChain(Context& context) {
  if (!AnyPayloadTypesLinked()) {
    return UsageError("internal error: Any payload types are not linked");
  }
  std::string error;
  std::optional<routing::SocketAddress> destination =
      TakeAddress(&context.args, "--destination", true, &error);
  if (!error.empty()) return UsageError(error);
  std::optional<routing::SocketAddress> source =
      TakeAddress(&context.args, "--source", false, &error);
  if (!error.empty()) return UsageError(error);
  std::vector<std::string> files;
  for (const std::string& arg : context.args) {
    if (absl::StartsWith(arg, "--")) {
      return UsageError(absl::StrCat("unknown flag ", arg, "; ", kUsage));
    }
    files.push_back(arg);
  }
  if (files.size() != 1) return UsageError(kUsage);
  const std::string& file = files[0];

  Json::Value out(Json::objectValue);
  out["name"] = "";
  out["destination"] = destination->ToString();
  out["source"] =
      source.has_value() ? Json::Value(source->ToString()) : Json::Value();
  absl::StatusOr<std::string> contents = ReadFile(file);
  if (!contents.ok()) {
    return ReportIoError(contents.status().message(), std::move(out));
  }
  const resources::ResourceType& type = resources::ListenerResourceType();
  absl::StatusOr<std::string> serialized =
      ResourceFileToSerialized(file, *std::move(contents), type);
  auto invalid = [&out](absl::string_view message) {
    out["valid"] = false;
    out["error"] = std::string(message);
    PrintJson(out);
    return kExitInvalid;
  };
  if (!serialized.ok()) return invalid(serialized.status().message());
  resources::DecodeContext decode_context;
  decode_context.federation = context.FederationEnabled();
  resources::DecodeResult result = type.Decode(decode_context, *serialized);
  out["name"] = result.name;
  if (!result.value.ok()) return invalid(result.value.status().message());
  const auto& listener = *resources::XdsResourceType<resources::Listener>::Cast(
      result.value->get());
  const auto* server =
      std::get_if<resources::ServerListener>(&listener.listener);
  if (server == nullptr) {
    return invalid(
        "not a server Listener: it has api_listener (a client Listener)");
  }
  const routing::FilterChainSelector selector(*server);
  std::optional<size_t> chain =
      selector.Select(*destination, source.has_value() ? &*source : nullptr);
  out["valid"] = true;
  if (chain.has_value()) {
    Json::Value selected(Json::objectValue);
    selected["filter_chain_index"] =
        Json::UInt64{server->input_index.at(*chain)};
    out["selected"] = selected;
  } else {
    out["selected"] =
        server->default_filter_chain.has_value() ? "default" : "none";
  }
  PrintJson(out);
  return kExitValid;
}

XDSFED_REGISTER_COMMAND(
    "filter-chain", RunFilterChain,
    "filter-chain --destination IP:PORT [--source IP:PORT] FILE  which "
    "filter chain of a server Listener a connection selects (A36)");

}  // namespace
}  // namespace xdsfed::cli
