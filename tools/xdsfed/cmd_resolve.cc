// `xdsfed resolve TARGET` and `xdsfed server-name ADDRESS`: the Listener a
// channel or an xDS-enabled server would watch, and the servers it would ask
// (../shared/CLI.md, gRFC A47 §xds Resolver Changes).
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/bootstrap/target_resolver.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

Json::Value ResolvedToJson(const ResolvedListener& resolved, bool server) {
  Json::Value out(Json::objectValue);
  out["valid"] = true;
  out["listener_resource_name"] = resolved.listener_resource_name;
  out["authority"] = resolved.authority.has_value()
                         ? Json::Value(*resolved.authority)
                         : Json::Value();
  Json::Value servers(Json::arrayValue);
  for (const auto& s : resolved.xds_servers) servers.append(s->server_uri());
  out["xds_servers"] = std::move(servers);
  out["data_plane_authority"] =
      server ? Json::Value() : Json::Value(resolved.data_plane_authority);
  return out;
}

int Resolve(Context& context, bool server) {
  const char* input_key = server ? "listening_address" : "target";
  if (context.args.size() != 1) {
    return UsageError(server ? "usage: xdsfed server-name ADDRESS"
                             : "usage: xdsfed resolve TARGET");
  }
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());
  const std::string& input = context.args[0];
  auto resolved = server ? ResolveServerListener(**bootstrap, input)
                         : ResolveXdsTarget(**bootstrap, input);
  Json::Value out;
  if (resolved.ok()) {
    out = ResolvedToJson(*resolved, server);
  } else {
    std::string error(resolved.status().message());
    // The library names the environment variable; here the flag counts too.
    if (!context.FederationEnabled() &&
        absl::StrContains(error, "federation is off")) {
      absl::StrAppend(&error, "; in xdsfed, --federation=on also does");
    }
    out = InvalidResult(error);
  }
  out[input_key] = input;
  PrintJson(out);
  return resolved.ok() ? kExitValid : kExitInvalid;
}

int RunResolve(Context& context) { return Resolve(context, false); }
int RunServerName(Context& context) { return Resolve(context, true); }

XDSFED_REGISTER_COMMAND("resolve", RunResolve,
                        "resolve TARGET                the Listener and "
                        "servers for an xds: target");
XDSFED_REGISTER_COMMAND("server-name", RunServerName,
                        "server-name ADDRESS           the Listener an xDS "
                        "server on ip:port watches");

}  // namespace
}  // namespace xdsfed::cli
