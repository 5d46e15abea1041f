// `xdsfed validate --type TYPE FILE...`: decode and validate resources as
// the XdsClient would on receipt (../shared/CLI.md). Each FILE is proto3
// JSON ("@type" optional, but it must name TYPE) or, if it ends in ".pb",
// the serialized message. One JSON line per file.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "google/protobuf/descriptor.h"
#include "lib/json/json_reader.h"
#include "lib/resources/proto_json.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/resource_input.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed validate --type "
    "Listener|RouteConfiguration|Cluster|ClusterLoadAssignment FILE...";

// Writes the JSON of a decoded resource, as JsonToString(type.ToJson())
// would, to `out`. A RouteConfiguration goes one virtual host at a time:
// its whole Json::Value tree is ~30x the size of its JSON text, and the
// text itself ~2x the input (issue 16 item 5).
void WriteResourceJson(const resources::ResourceType& type,
                       const resources::ResourceData* value,
                       std::ostream& out) {
  const resources::RouteConfig* route_config =
      resources::RouteConfigResourceType().Cast(value);
  if (route_config == nullptr) {
    out << JsonToString(type.ToJson(value));
    return;
  }
  const resources::RouteConfig& config = *route_config;
  out << "{\"name\":" << JsonToString(Json::Value(config.name))
      << ",\"virtual_hosts\":[";
  for (size_t i = 0; i < config.virtual_hosts.size(); ++i) {
    if (i > 0) out << ",";
    out << JsonToString(config.virtual_hosts[i].ToJson());
  }
  out << "]}";
}

int RunValidate(Context& context) {
  if (!AnyPayloadTypesLinked()) {
    return UsageError("internal error: Any payload types are not linked");
  }
  bool missing = false;
  std::optional<std::string> type_flag =
      TakeFlag(&context.args, "--type", &missing);
  if (missing || !type_flag.has_value()) {
    return UsageError(absl::StrCat("--type is required; ", kUsage));
  }
  const resources::ResourceType* type = resources::FindResourceType(*type_flag);
  if (type == nullptr) {
    return UsageError(
        absl::StrCat("unknown resource type \"", *type_flag, "\"; ", kUsage));
  }
  std::vector<std::string> files;
  bool flags_done = false;
  for (const std::string& arg : context.args) {
    if (!flags_done && arg == "--") {
      flags_done = true;
    } else if (!flags_done && absl::StartsWith(arg, "--")) {
      return UsageError(absl::StrCat("unknown flag ", arg, "; ", kUsage));
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) return UsageError(kUsage);

  resources::DecodeContext decode_context;
  decode_context.federation = context.FederationEnabled();
  bool any_invalid = false;
  bool io_error = false;
  for (const std::string& file : files) {
    absl::StatusOr<std::string> contents = ReadFile(file);
    if (!contents.ok()) {
      Json::Value out(Json::objectValue);
      out["name"] = "";
      out["file"] = file;
      ReportIoError(contents.status().message(), std::move(out));
      io_error = true;
      continue;
    }
    absl::StatusOr<std::string> serialized =
        absl::EndsWith(file, ".pb") ? *std::move(contents)
                                    : JsonToSerialized(*contents, *type);
    // Each stage frees the one before it, so memory peaks once (issue 16
    // item 5: peak RSS within 8x the input).
    std::string().swap(*contents);
    if (!serialized.ok()) {
      Json::Value out = InvalidResult(serialized.status().message());
      out["name"] = "";
      out["file"] = file;
      PrintJson(out);
      any_invalid = true;
      continue;
    }
    resources::DecodeResult result = type->Decode(decode_context, *serialized);
    std::string().swap(*serialized);
    if (!result.value.ok()) {
      Json::Value out = InvalidResult(result.value.status().message());
      out["name"] = result.name;
      out["file"] = file;
      PrintJson(out);
      any_invalid = true;
      continue;
    }
    // The keys in jsoncpp's (sorted) order; the resource is streamed out, not
    // built as one string (validate prints from this thread only).
    Json::Value head(Json::objectValue);
    head["file"] = file;
    head["name"] = result.name;
    std::string start = JsonToString(head);
    start.pop_back();  // the closing brace
    std::cout << start << ",\"resource\":";
    WriteResourceJson(*type, result.value->get(), std::cout);
    std::cout << ",\"valid\":true}\n";
    std::cout.flush();
  }
  if (io_error) return kExitUsage;
  return any_invalid ? kExitInvalid : kExitValid;
}

XDSFED_REGISTER_COMMAND(
    "validate", RunValidate,
    "validate --type Listener|RouteConfiguration|Cluster|"
    "ClusterLoadAssignment FILE...  validate resources as the client would");

}  // namespace
}  // namespace xdsfed::cli
