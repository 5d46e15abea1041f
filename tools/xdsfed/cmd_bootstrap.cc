// `xdsfed bootstrap`: parse and validate a bootstrap, print what the library
// will use (../shared/CLI.md).
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

int RunBootstrap(Context& context) {
  if (!context.args.empty()) {
    return UsageError("bootstrap takes no arguments besides its flags");
  }
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());
  Json::Value out = (*bootstrap)->ToJson();
  out["valid"] = true;
  out["federation"] = (*bootstrap)->federation();
  Json::Value warnings(Json::arrayValue);
  for (const std::string& warning : (*bootstrap)->warnings()) {
    warnings.append(warning);
  }
  out["warnings"] = std::move(warnings);
  PrintJson(out);
  return kExitValid;
}

XDSFED_REGISTER_COMMAND(
    "bootstrap", RunBootstrap,
    "bootstrap                     validate a bootstrap, print the result");

}  // namespace
}  // namespace xdsfed::cli
