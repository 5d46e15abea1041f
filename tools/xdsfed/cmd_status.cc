// `xdsfed status --server HOST:PORT [--timeout S] [--connect-timeout S]`:
// a CSDS client (envoy.service.status.v3) printing one line per resource of
// each xDS client the server reports (docs/cli.md). Works against any CSDS: an
// XdsClient's (xdsfed's own service, gRPC's admin services) or a
// management server's (`xdsfed control-plane`, which also fills
// "config_status").
//
//   {"valid":true,"node":"n1","authority":"xds.example.com",
//    "type":"type.googleapis.com/envoy.config.listener.v3.Listener",
//    "name":"...","version":"3","client_status":"NACKED",
//    "last_updated":"2026-...Z","error":{"version":"4","details":"..."},
//    "client_scope":"...","config_status":"ERROR"}
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "lib/admin/csds_client.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed status --server HOST:PORT [--timeout S] "
    "[--connect-timeout S]";

Json::Value ToJson(const admin::CsdsResource& r) {
  Json::Value out(Json::objectValue);
  out["valid"] = true;
  out["node"] = r.node_id;
  out["authority"] =
      r.authority.has_value() ? Json::Value(*r.authority) : Json::Value();
  out["type"] = r.type_url;
  out["name"] = r.name;
  out["version"] = r.version;
  out["client_status"] = r.client_status;
  out["last_updated"] =
      r.last_updated.has_value()
          ? Json::Value(absl::FormatTime(absl::RFC3339_full, *r.last_updated,
                                         absl::UTCTimeZone()))
          : Json::Value();
  if (r.error.has_value()) {
    Json::Value error(Json::objectValue);
    error["version"] = r.error->version;
    error["details"] = r.error->details;
    out["error"] = std::move(error);
  } else {
    out["error"] = Json::Value();
  }
  out["client_scope"] = r.client_scope;
  if (!r.config_status.empty()) out["config_status"] = r.config_status;
  return out;
}

int RunStatus(Context& context) {
  bool missing = false;
  std::optional<std::string> server =
      TakeFlag(&context.args, "--server", &missing);
  std::optional<std::string> timeout_text =
      TakeFlag(&context.args, "--timeout", &missing);
  std::optional<std::string> connect_timeout_text =
      TakeFlag(&context.args, "--connect-timeout", &missing);
  double timeout_seconds = 10;
  double connect_timeout_seconds = 3;
  auto bad_seconds = [](const std::optional<std::string>& text, double* out) {
    return text.has_value() && (!absl::SimpleAtod(*text, out) || !(*out > 0) ||
                                !std::isfinite(*out));
  };
  if (missing || !server.has_value() || !context.args.empty() ||
      bad_seconds(timeout_text, &timeout_seconds) ||
      bad_seconds(connect_timeout_text, &connect_timeout_seconds)) {
    return UsageError(kUsage);
  }
  auto response = admin::FetchClientStatus(
      grpc::CreateChannel(*server, grpc::InsecureChannelCredentials()),
      absl::Seconds(timeout_seconds), absl::Seconds(connect_timeout_seconds));
  if (!response.ok()) {
    // Nothing to report on is an I/O error (exit 2), still one JSON line.
    Json::Value out(Json::objectValue);
    out["server"] = *server;
    return ReportIoError(absl::StrCat("CSDS request to ", *server, " failed: ",
                                      response.status().ToString()),
                         std::move(out));
  }
  for (const admin::CsdsResource& r : admin::FlattenClientStatus(*response)) {
    PrintJson(ToJson(r));
  }
  return kExitValid;
}

XDSFED_REGISTER_COMMAND("status", RunStatus,
                        "status --server HOST:PORT [--timeout S] "
                        "[--connect-timeout S]  what an xDS client holds, "
                        "from its CSDS service");

}  // namespace
}  // namespace xdsfed::cli
